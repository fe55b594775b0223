// Package oauth is plumbline's OAuth 2.1 authorization server and the
// resource-server side of its MCP endpoint, following the MCP authorization
// specification: /mcp is a protected resource (RFC 9728 metadata, Bearer
// challenges, tokens bound to this resource), and the authorization server
// on the same origin (RFC 8414 metadata, /authorize with PKCE S256 and a
// consent page, /token, /revoke, and Dynamic Client Registration when it is
// turned on) issues opaque tokens, stored as SHA-256 hashes in PostgreSQL.
//
// Clients register by Client ID Metadata Document (package cimd), by
// pre-registration in configuration, or by Dynamic Client Registration. A
// person signs in through an identity provider (package signin); what they
// may then do depends on the membership table, read fresh at consent and
// on every request.
package oauth
