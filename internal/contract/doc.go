// Package contract is what an MCP client reads beyond the engine's grammar:
// each tool's title, description and output JSON Schema, the server
// instructions, and each answer's text for the model. The grammar (tool
// names, input schemas and the metrics each tool carries) stays with the
// engine, package reports, which decodes exactly it.
package contract
