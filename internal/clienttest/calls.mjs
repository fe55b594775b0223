// Makes every call of a matrix with a connected client on the official
// TypeScript SDK, which checks every structured result, refusals included,
// against the tool's published output schema and throws when one does not
// match; with a contract file (the exact output schema of each tool, by
// name), the SDK's own validator also checks every result against the
// exact schema. Shared by matrix.mjs and signin-client.mjs.
//
// It returns the tools listed and, for each call's label, whether the SDK
// accepted the result, whether it was a refusal, the structured content,
// the SDK's error when it threw, and the exact schema's complaint, if any.
import { readFileSync } from "node:fs";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

export async function callEach(client, matrixFile, contractFile) {
  const calls = JSON.parse(readFileSync(matrixFile, "utf8"));
  const exact = {};
  if (contractFile) {
    const validator = new AjvJsonSchemaValidator();
    for (const [name, schema] of Object.entries(JSON.parse(readFileSync(contractFile, "utf8")))) {
      exact[name] = validator.getValidator(schema);
    }
  }
  const { tools } = await client.listTools(); // compiles each output schema
  const seen = { tools: tools.map((t) => t.name), results: {} };
  for (const { label, tool, arguments: args } of calls) {
    try {
      const res = await client.callTool({ name: tool, arguments: args });
      seen.results[label] = { accepted: true, isError: res.isError === true, structured: res.structuredContent };
      const check = exact[tool]?.(res.structuredContent);
      if (check && !check.valid) {
        seen.results[label].exactError = check.errorMessage;
      }
    } catch (err) {
      seen.results[label] = { accepted: false, error: String(err?.message ?? err) };
    }
  }
  return seen;
}
