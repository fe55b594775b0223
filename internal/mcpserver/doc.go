// Package mcpserver serves the report engine over the Model Context
// Protocol, on the official go-sdk: every tool the engine offers, registered
// with plumbline's own schemas and validation (the SDK's typed tools would
// answer bad arguments with their own text, which quotes the caller), the
// metric definitions and team rosters as resources with completion of their
// arguments, and logging to the client, over stdio or Streamable HTTP. Every
// answer is scrubbed of long digit runs on its way out (package scrub).
package mcpserver
