// A contained analyst agent, as its client would be written: the official
// TypeScript SDK's client over Streamable HTTP, with a service token.
//
// It lists the tools (the SDK then checks every structured answer against
// the tool's output schema, and throws when one does not fit), pages
// through a statement with the sql tool until has_more is false, and sends
// one statement the door refuses; then prints what it saw as one JSON
// document on stdout. It exits 1 on any protocol error or schema mismatch.
//
// Usage: node analyst-client.mjs URL TOKEN SQL

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, sql] = process.argv.slice(2);
if (!url || !token || !sql) {
  console.error("usage: node analyst-client.mjs URL TOKEN SQL");
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "plumbline-analyst-agent", version: "1.0.0" });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const door = tools.find((t) => t.name === "sql");
  const seen = { tools: tools.map((t) => t.name), pages: [], refusal: null };
  if (door) {
    seen.door = {
      readOnly: door.annotations?.readOnlyHint === true,
      closed: door.inputSchema.additionalProperties === false,
      required: door.inputSchema.required ?? [],
      outputSchema: door.outputSchema !== undefined,
      description: door.description,
    };
    for (let offset = 0; ; ) {
      const res = await client.callTool({ name: "sql", arguments: { sql, page_size: 20, offset } });
      seen.pages.push({ isError: res.isError === true, answer: res.structuredContent });
      if (res.isError || !res.structuredContent.has_more) break;
      offset = res.structuredContent.next_offset;
    }
  }
  const bad = await client.callTool({ name: "sql", arguments: { sql: "SELECT transcript FROM crm.member_calls" } });
  seen.refusal = { isError: bad.isError === true, answer: bad.structuredContent };
  console.log(JSON.stringify(seen));
} catch (err) {
  console.error("analyst-client.mjs:", err?.message ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
