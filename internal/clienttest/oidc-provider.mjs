// A real OpenID Connect provider (oidc-provider, a certified OP) for the
// sign-in tests, on loopback, with its development login: any login is
// accepted and becomes the account's email. PKCE is required.
//
// Usage: node oidc-provider.mjs PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI
// It prints "READY <issuer>" once it listens.
import Provider from "oidc-provider";

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri],
    grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" }],
  pkce: { required: () => true },
  claims: { openid: ["sub"], email: ["email", "email_verified"] },
  features: { devInteractions: { enabled: true } },
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, email: id, email_verified: !id.startsWith("unverified") }),
  }),
  cookies: { keys: ["plumbline-test-only"] },
});
provider.listen(Number(port), "127.0.0.1", () => console.log("READY " + issuer));
