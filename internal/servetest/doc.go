// Package servetest serves the engine over a test database the way
// plumbline serve does: the store signed in as plumbline's login with
// reports run as the reader, every call on the request log, and the MCP
// server over the engine. Tests that need a served floor build it here
// instead of wiring the packages again.
package servetest
