// A sales manager's questions, asked the way an AI client asks them: with the
// official TypeScript SDK's client over Streamable HTTP.
//
// It lists the tools and reads their schemas, calls the tools the questions
// need (the SDK checks every answer against the tool's output schema), makes
// one bad call, reads a metric definition as a resource and completes a team
// name, then prints everything it saw as one JSON document on stdout for the
// caller to check against figures of its own. It exits 1 on any protocol
// error.
//
// Usage: node questions.mjs URL [TOKEN]   (TOKEN is sent as a bearer token)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
if (!url) {
  console.error("usage: node questions.mjs URL [TOKEN]");
  process.exit(2);
}

// Each question, and the call a client makes to answer it.
const questions = {
  "How did the Hawks do last week?": ["sales", { who: { team: "Hawks" }, period: { named: "last_week" } }],
  "Who are the Marias?": ["find_people", { query: "Maria" }],
  "How do the teams stand over the last 28 days?": ["league", { period: { named: "last_28_days" } }],
  "What is on today's board?": [
    "sales",
    { who: { floor: true }, period: { named: "today" }, metrics: ["board_sales"], group_by: "team" },
  ],
  "What does close rate mean?": ["metric_definitions", { metrics: ["close_rate"] }],
};

const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "plumbline-questions", version: "1.0.0" });

try {
  await client.connect(transport);
  const seen = {
    server: client.getServerVersion(),
    protocol: transport.protocolVersion,
    capabilities: client.getServerCapabilities(),
    tools: {},
    answers: {},
  };

  const { tools } = await client.listTools();
  for (const t of tools) {
    seen.tools[t.name] = {
      readOnly: t.annotations?.readOnlyHint === true,
      required: t.inputSchema.required ?? [],
      properties: Object.keys(t.inputSchema.properties ?? {}),
      closed: t.inputSchema.additionalProperties === false,
      outputSchema: t.outputSchema !== undefined,
    };
  }

  for (const [question, [name, args]] of Object.entries(questions)) {
    const res = await client.callTool({ name, arguments: args });
    seen.answers[question] = { tool: name, isError: res.isError === true, answer: res.structuredContent };
  }

  const bad = await client.callTool({
    name: "sales",
    arguments: { who: { floor: true }, period: { named: "last_week" }, zq9MARKERzq9: 1 },
  });
  seen.refusal = { isError: bad.isError === true, text: bad.content[0].text };

  seen.resources = (await client.listResources()).resources.map((r) => r.uri);
  seen.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  const def = await client.readResource({ uri: "plumbline://metrics/close_rate" });
  seen.closeRateResource = JSON.parse(def.contents[0].text);
  seen.teamCompletion = (
    await client.complete({ ref: { type: "ref/resource", uri: "plumbline://teams/{team}" }, argument: { name: "team", value: "h" } })
  ).completion;

  console.log(JSON.stringify(seen));
} catch (err) {
  console.error("questions.mjs:", err?.message ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
