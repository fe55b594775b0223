package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/chartview"
	"plumbline/internal/mcpserver"
	"plumbline/internal/servetest"
	"plumbline/reports"
)

// List and read results carry the 2026-07-28 revision's caching hints: the
// catalogue's lists and the metric definitions may be kept and shared for
// the cache TTL, a team's roster (it names people) only by the caller's own
// client and only as long as the engine trusts its directory, and the
// chart view, whose URI changes with its content, for a year.
func TestCachingHints(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	ttl := int(mcpserver.DefaultCacheTTL.Milliseconds())
	check := func(what string, c mcp.Cacheable, ms int, scope string) {
		t.Helper()
		if c.TTLMs != ms || c.CacheScope != scope {
			t.Errorf("%s: ttlMs %d, cacheScope %q; want %d, %q", what, c.TTLMs, c.CacheScope, ms, scope)
		}
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("tools/list", tools.Cacheable, ttl, "public")
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("resources/list", resources.Cacheable, ttl, "public")
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("resources/templates/list", templates.Cacheable, ttl, "public")
	for uri, want := range map[string]struct {
		ms    int
		scope string
	}{
		"plumbline://metrics":            {ttl, "public"},
		"plumbline://metrics/close_rate": {ttl, "public"},
		"plumbline://teams/hawks":        {int(reports.DefaultDirectoryTTL.Milliseconds()), "private"},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		check(uri, res.Cacheable, want.ms, want.scope)
	}
	shown := 0
	for _, r := range resources.Resources {
		if r.MIMEType == chartview.MIMEType {
			shown++
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				t.Fatal(err)
			}
			check(r.URI, res.Cacheable, int((365 * 24 * time.Hour).Milliseconds()), "public")
		}
	}
	if shown == 0 {
		t.Error("no view is listed")
	}

	// The TTL is the server's to choose.
	f.server = mcpserver.New(f.engine, &mcpserver.Options{Logger: servetest.Quiet, CacheTTL: time.Minute})
	tools, err = f.client(t).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("tools/list with a one-minute TTL", tools.Cacheable, 60000, "public")
}
