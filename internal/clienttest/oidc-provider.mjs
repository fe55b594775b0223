// A real OpenID Connect provider (oidc-provider, a certified OP) for the
// sign-in tests, on loopback, with its development login: any login is
// accepted and becomes the account's email. PKCE is required.
//
// Usage: node oidc-provider.mjs PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI [PATH] [VOUCH]
// PATH puts the issuer under a path, as Okta's authorization servers
// (/oauth2/default) and Microsoft Entra ID's (/TENANT/v2.0) are. VOUCH is
// the claim that vouches for the email address: email_verified (the
// default) or xms_edov, Entra's, which it sends instead once an
// administrator adds it. A login that starts with "unverified" is not
// vouched for.
// It prints "READY <issuer>" once it listens.
import http from "node:http";
import Provider from "oidc-provider";

const [port, clientId, clientSecret, redirectUri, path = "", vouch = "email_verified"] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}${path}`;
const provider = new Provider(issuer, {
  clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri],
    grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" }],
  pkce: { required: () => true },
  claims: { openid: ["sub"], email: ["email", vouch] },
  features: { devInteractions: { enabled: true } },
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, email: id, [vouch]: !id.startsWith("unverified") }),
  }),
  cookies: { keys: ["plumbline-test-only"] },
});
// Under a path, the provider serves what is below it; it reads where it is
// mounted from the request's original URL.
const serve = provider.callback();
http.createServer((req, res) => {
  if (!req.url.startsWith(path + "/")) {
    res.statusCode = 404;
    res.end();
    return;
  }
  req.originalUrl = req.url;
  req.url = req.url.slice(path.length);
  serve(req, res);
}).listen(Number(port), "127.0.0.1", () => console.log("READY " + issuer));
