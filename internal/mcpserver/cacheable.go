package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports"
)

// DefaultCacheTTL is how long a client may keep plumbline's lists and
// metric definitions. They change only with the catalogue, which takes a
// restart (a deploy); the TTL bounds how long a client holds a list from
// before one.
const DefaultCacheTTL = 15 * time.Minute

// Cache scopes of the 2026-07-28 revision's cacheable results.
const (
	scopePublic  = "public"  // any client or intermediary may cache it
	scopePrivate = "private" // only the caller's own client may
)

// cacheable sets the caching hints (ttlMs, cacheScope) of list and read
// results: the catalogue's lists and metric definitions for ttl, shared
// by everyone, unless the tool list differs by caller (the analyst's door
// shows only to whom it allows); a team's roster, which names people,
// privately and for as long as the engine trusts its directory.
func cacheable(ttl time.Duration, perCaller bool) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
		if c.TTLMs > 0 {
			return // its handler decided (a view's HTML never changes under its URI)
		}
		c.TTLMs, c.CacheScope = int(ttl.Milliseconds()), scopePublic
		switch r := req.(type) {
		case *mcp.ListToolsRequest:
			if perCaller {
				c.CacheScope = scopePrivate
			}
		case *mcp.ReadResourceRequest:
			if strings.HasPrefix(r.Params.URI, teamsURI) {
				c.TTLMs, c.CacheScope = int(reports.DefaultDirectoryTTL.Milliseconds()), scopePrivate
			}
		}
	}
}
