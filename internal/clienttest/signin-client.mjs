// A third-party MCP client on the official TypeScript SDK. Given only the
// server's URL, it discovers the authorization server, identifies itself
// with a Client ID Metadata Document (or a pre-registered client id),
// completes the authorization code flow with PKCE through its loopback
// callback, and calls a report.
//
// Usage: node signin-client.mjs MCP_URL CALLBACK_PORT (CLIENT_METADATA_URL | --client-id ID) [MATRIX.json [CONTRACT.json]]
// It prints "AUTHORIZE <url>" when the person must sign in in a browser,
// and "RESULT <json>" with the report's structured content at the end.
// With a matrix file it makes every call of the matrix instead, as
// matrix.mjs does (calls.mjs), and prints "TOKEN <access token>" (for a
// later request with the same token) and "MATRIX <json>" with what it saw.
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { callEach } from "./calls.mjs";

const [url, port, who, ...rest] = process.argv.slice(2);
const clientId = who === "--client-id" ? rest.shift() : undefined;
const [matrixFile, contractFile] = rest;
const redirectUrl = `http://127.0.0.1:${port}/callback`;

let codeVerifier, tokens, clientInfo = who === "--client-id" ? { client_id: clientId } : undefined;
const provider = {
  get redirectUrl() { return redirectUrl; },
  clientMetadataUrl: who === "--client-id" ? undefined : who,
  get clientMetadata() {
    return { client_name: "SDK test client", redirect_uris: [redirectUrl], grant_types: ["authorization_code"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return clientInfo; },
  saveClientInformation(info) { clientInfo = info; },
  tokens() { return tokens; },
  saveTokens(t) { tokens = t; },
  redirectToAuthorization(u) { console.log("AUTHORIZE " + u.toString()); },
  saveCodeVerifier(v) { codeVerifier = v; },
  codeVerifier() { return codeVerifier; },
};

// The loopback callback: resolves with the code the browser brings back.
const code = new Promise((resolve, reject) => {
  const server = http.createServer((req, res) => {
    const q = new URL(req.url, redirectUrl).searchParams;
    res.end("signed in; you can close this page");
    server.close();
    q.get("code") ? resolve(q.get("code")) : reject(new Error("authorization failed: " + q.get("error")));
  });
  server.listen(Number(port), "127.0.0.1");
});

const connect = async () => {
  const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
};

try {
  let client;
  try {
    client = await connect();
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await transport.finishAuth(await code);
    client = await connect();
  }
  if (matrixFile) {
    const seen = await callEach(client, matrixFile, contractFile);
    console.log("TOKEN " + tokens.access_token);
    console.log("MATRIX " + JSON.stringify(seen));
  } else {
    const res = await client.callTool({ name: "sales", arguments: { who: { team: "falcons" }, period: { named: "last_week" }, group_by: "week" } });
    if (res.isError) throw new Error("the report was refused: " + JSON.stringify(res.structuredContent));
    console.log("RESULT " + JSON.stringify(res.structuredContent));
  }
  await client.close();
  process.exit(0);
} catch (err) {
  console.error("FAIL: " + (err?.stack ?? err));
  process.exit(1);
}
