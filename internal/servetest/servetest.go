package servetest

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/reports"
)

// Options adjust a served floor; nil, or any nil field, keeps what serve
// does.
type Options struct {
	// Log adjusts the request log's options (such as PerMinute).
	Log func(*reqlog.Options)
	// Engine adjusts the engine's options (such as a Cache or Now).
	Engine func(*reports.Options)
	// Server adjusts the MCP server's options (such as Caller or the
	// analyst's door) for the floor built so far, all but its Server.
	Server func(*mcpserver.Options, *Floor)
}

// Floor is the demo floor of a test database, served.
type Floor struct {
	DB     *pgtest.DB
	Store  *pgstore.Store
	Log    *reqlog.Log
	Engine *reports.Engine
	Server *mcp.Server
}

// Quiet is a logger that writes nowhere, for the parts a test does not
// read the logs of.
var Quiet = slog.New(slog.DiscardHandler)

// New serves db's floor, answered as of db.Now; everything is closed when
// the test ends.
func New(t testing.TB, db *pgtest.DB, o *Options) *Floor {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	st := db.Store(t)
	lo := &reqlog.Options{Role: pgtest.Roles.Logger, Logger: Quiet}
	if o.Log != nil {
		o.Log(lo)
	}
	rl := reqlog.New(st, lo)
	t.Cleanup(rl.Close)
	eo := &reports.Options{Now: func() time.Time { return db.Now }, Logger: Quiet, Recorder: rl}
	if o.Engine != nil {
		o.Engine(eo)
	}
	f := &Floor{DB: db, Store: st, Log: rl, Engine: reports.New(st.Catalog(), st, eo)}
	so := &mcpserver.Options{Logger: eo.Logger}
	if o.Server != nil {
		o.Server(so, f)
	}
	f.Server = mcpserver.New(f.Engine, so)
	return f
}

// Handler is the floor's MCP endpoint over Streamable HTTP, at /mcp.
func (f *Floor) Handler() http.Handler { return mcpserver.HTTPHandler(f.Server) }

// URL serves Handler on a local HTTP server until the test ends and
// returns its MCP endpoint.
func (f *Floor) URL(t testing.TB) string {
	t.Helper()
	ts := httptest.NewServer(f.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}
