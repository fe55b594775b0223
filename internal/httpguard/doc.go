// Package httpguard holds the transport protections of plumbline's HTTP
// surface: a Host allow-list against DNS rebinding, Origin validation for
// the MCP endpoint, CORS that lets allowed browser clients read the MCP and
// authorization headers, and the headers that keep its HTML pages from being
// cached or framed.
package httpguard
