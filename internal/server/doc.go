// Package server assembles a running plumbline server from settings a
// command has parsed: it connects the stores, refuses to start when a
// login reaches more than its grants, builds the request log, the engine,
// the analyst's door and the MCP server, puts them behind the authorization
// server on an HTTP listener with its timeouts, and drains in-flight calls
// on shutdown. serve and demo run it alike; it decides nothing about
// reports, which is package reports' work.
package server
