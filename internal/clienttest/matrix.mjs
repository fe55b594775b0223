// Calls plumbline's tools the way the strictest real client does: with the
// official TypeScript SDK's client over Streamable HTTP, which checks every
// structured result, refusals included, against the tool's published output
// schema and throws when one does not match. With a contract file (the
// exact output schema of each tool, by name), the SDK's own validator also
// checks every structured result against the exact schema.
//
// It lists the tools, makes every call in the matrix file (a JSON array of
// {"label", "tool", "arguments"}), and prints one JSON object on stdout:
// for each label whether the SDK accepted the result, whether it was a
// refusal, the structured content, the SDK's error when it threw, and the
// exact schema's complaint, if any. It exits 1 on a protocol error outside
// the calls.
//
// Usage: node matrix.mjs URL TOKEN MATRIX.json [CONTRACT.json]

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callEach } from "./calls.mjs";

const [url, token, file, contractFile] = process.argv.slice(2);
if (!url || !token || !file) {
  console.error("usage: node matrix.mjs URL TOKEN MATRIX.json");
  process.exit(2);
}
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "plumbline-matrix", version: "1.0.0" });

try {
  await client.connect(transport);
  const seen = await callEach(client, file, contractFile);
  console.log(JSON.stringify(seen));
} catch (err) {
  console.error("matrix.mjs:", err?.message ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
