package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/chartview"
	"plumbline/internal/contract"
	"plumbline/internal/oauth"
	"plumbline/internal/scrub"
	"plumbline/internal/telemetry"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// Version is plumbline's version, as the server reports it.
var Version = "0.1.0"

// Options tune a server. The zero value is ready to use.
type Options struct {
	// Logger receives the server's own logs. If nil, slog.Default().
	Logger *slog.Logger
	// Caller names who a call comes from. If nil, every call comes from
	// the process's own identity (stdio, development).
	Caller func(*mcp.CallToolRequest) ask.Caller
	// Analyst, if set, offers the analyst's door (package analyst): the sql
	// tool, listed and answered only for callers it allows (a service whose
	// token allows the tool); anyone else does not see it in tools/list and
	// is refused, on record, when they call it by name.
	Analyst *analyst.Door
	// TextContent is what a tool result's text block holds: TextReader
	// (the default, when empty) or TextJSON.
	TextContent string
	// CacheTTL is how long clients may keep the lists and the metric
	// definitions (ttlMs). If zero, DefaultCacheTTL.
	CacheTTL time.Duration
	// Metrics, if set, count every tool call by tool and outcome and time
	// it and its stages (package telemetry).
	Metrics *telemetry.Metrics
	// Compress says which answers over HTTP go compressed: CompressRemote
	// (the default, when empty), CompressAlways or CompressNever.
	Compress string
}

// Which answers over HTTP go compressed (Options.Compress).
const (
	// CompressRemote compresses the answers to clients on other
	// machines: for a client on this machine's loopback there is no wire
	// to save, only the CPU both ends spend.
	CompressRemote = "remote"
	// CompressAlways compresses every answer the client accepts
	// compressed, behind a proxy on the same machine too.
	CompressAlways = "always"
	// CompressNever compresses nothing.
	CompressNever = "never"
)

// CompressModes lists the compression modes.
var CompressModes = []string{CompressRemote, CompressAlways, CompressNever}

// compression holds each server's Options.Compress, for the HTTP handlers
// built on it (New registers it).
var compression sync.Map // *mcp.Server → string

// New returns an MCP server offering every tool of engine, and the MCP Apps
// view that draws the answers of the tools that name it.
func New(engine *reports.Engine, opts *Options) *mcp.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Caller == nil {
		o.Caller = func(*mcp.CallToolRequest) ask.Caller { return ask.Caller{Person: "local", Client: "local"} }
	}
	caller := o.Caller
	o.Caller = func(req *mcp.CallToolRequest) ask.Caller {
		c := caller(req)
		c.Software = software(req.ClientInfo())
		return c
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	// The tools and resources never change while plumbline runs. There are
	// no prompts, but the go-sdk answers prompts/list (with none) all the
	// same, so the capability is declared to say what is answered.
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{},
		Prompts: &mcp.PromptCapabilities{}}
	caps.AddExtension(chartview.Extension, map[string]any{"mimeTypes": []string{chartview.MIMEType}})
	advertiseLogging(caps)
	impl := &mcp.Implementation{Name: "plumbline", Title: "plumbline: governed sales-floor reports", Version: Version}
	srv := mcp.NewServer(impl,
		&mcp.ServerOptions{
			Instructions: contract.Instructions(),
			// The SDK logs every stateless request at info; keep its warnings.
			Logger:            slog.New(atLeast{o.Logger.Handler(), slog.LevelWarn}),
			Capabilities:      caps,
			CompletionHandler: complete(engine),
			SetCacheable:      cacheable(o.CacheTTL, o.Analyst != nil),
		},
	)
	srv.AddReceivingMiddleware(unechoed(engine), knownLevel)
	addView(srv, chartview.Chart)
	addResources(srv, engine, o)
	closed := false
	call := calls(engine, o)
	for _, t := range contract.Tools(engine) {
		var meta mcp.Meta
		if v, ok := chartview.For(engine.Catalog(), t.Name); ok {
			meta = v.ToolMeta()
		}
		srv.AddTool(&mcp.Tool{
			Meta:         meta,
			Name:         t.Name,
			Title:        t.Title,
			Description:  t.Description,
			InputSchema:  encoded(t.InputSchema),
			OutputSchema: encoded(t.ListedOutputSchema()),
			// The title is the tool's own; the annotations need not repeat it.
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed},
		}, handler(call))
	}
	tools := engine.ToolNames()
	directCalls.Store(srv, newDirect(impl, slices.Clone(tools), call))
	compression.Store(srv, cmp.Or(o.Compress, CompressRemote))
	if o.Analyst != nil {
		addDoor(srv, engine, o)
		tools = append(tools, analyst.ToolName)
	}
	o.Metrics.Tools(tools, reports.Outcomes)
	return srv
}

// encoded is a schema as JSON, encoded once: the go-sdk re-encodes a
// tool's schema on every call to it (looking for header annotations) and
// every tools/list, which costs hundreds of allocations for a schema held
// as maps and next to none for one held as bytes.
func encoded(schema map[string]any) json.RawMessage {
	b, err := json.Marshal(schema)
	if err != nil {
		panic("a tool schema does not encode: " + err.Error()) // the engine's own schemas always do
	}
	return b
}

// viewTTL is how long a host may cache a view: its URI changes whenever its
// content does, so what a URI names never goes stale.
const viewTTL = 365 * 24 * time.Hour

// addView offers a view as a UI resource. Its contents are built once; every
// read answers with the same text.
func addView(srv *mcp.Server, v *chartview.View) {
	meta := chartview.ResourceMeta()
	srv.AddResource(&mcp.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description,
		MIMEType: chartview.MIMEType, Size: int64(len(v.HTML)), Meta: meta},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{
				Contents:  []*mcp.ResourceContents{{URI: v.URI, MIMEType: chartview.MIMEType, Text: v.HTML, Meta: meta}},
				Cacheable: mcp.Cacheable{TTLMs: int(viewTTL.Milliseconds()), CacheScope: "public"},
			}, nil
		})
}

func handler(call toolCall) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := call(ctx, req)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: r.text}},
			StructuredContent: json.RawMessage(r.body),
			IsError:           r.refused,
		}, nil
	}
}

// toolResult is what a tool call's result holds: its answer as text and as
// JSON, and whether it is a refusal.
type toolResult struct {
	text    string
	body    []byte
	refused bool
}

// toolCall runs one call to a tool of the engine.
type toolCall func(context.Context, *mcp.CallToolRequest) (toolResult, error)

// calls returns the tool call every tool of the engine shares.
func calls(engine *reports.Engine, o Options) toolCall {
	return func(ctx context.Context, req *mcp.CallToolRequest) (toolResult, error) {
		ctx, t := timing(ctx)
		ctx, span := telemetry.StartCall(ctx, req.Params.Name, req.Params.Meta, t)
		start := time.Now()
		ans, body, err := answer(ctx, engine, o, req)
		if err != nil {
			telemetry.EndCall(span, "", ask.CodeInternal, 0, true)
			return toolResult{}, err
		}
		logOutcome(ctx, req, ans, time.Since(start))
		r := toolResult{text: textFor(engine, o, ans, body), body: body, refused: ans.Refusal != nil}
		count(o.Metrics, req.Params.Name, ans, t, telemetry.LimitCallsPerMinute)
		telemetry.EndCall(span, ans.RequestID, ans.Outcome(), ans.Rows, fault(ans))
		return r, nil
	}
}

// timing returns the timing of the request a call came in (Timed starts
// it on arrival over HTTP), or starts one for a call that came otherwise.
func timing(ctx context.Context) (context.Context, *telemetry.Timing) {
	if t := telemetry.TimingFrom(ctx); t != nil {
		return ctx, t
	}
	t := telemetry.NewTiming(time.Now())
	return telemetry.WithTiming(ctx, t), t
}

// fault reports whether a call was refused for a fault of the server's
// rather than of the call's.
func fault(ans *reports.Answer) bool {
	if ans.Refusal == nil {
		return false
	}
	switch ans.Refusal.Code {
	case ask.CodeUnavailable, ask.CodeBusy, ask.CodeTimeout, ask.CodeInternal:
		return true
	}
	return false
}

// count counts a call in the metrics, and a rate-limited one under limit.
func count(m *telemetry.Metrics, tool string, ans *reports.Answer, t *telemetry.Timing, limit string) {
	if m == nil {
		return
	}
	outcome, argument := ans.Outcome(), ""
	if ans.Refusal != nil {
		argument = ans.Refusal.Argument
		if outcome == ask.CodeRateLimited {
			m.Limited(limit)
		}
	}
	m.Call(tool, outcome, ans.Refusal != nil, argument, t)
}

// answer runs a tool call and returns the answer with its JSON, scrubbed.
func answer(ctx context.Context, engine *reports.Engine, o Options, req *mcp.CallToolRequest) (*reports.Answer, []byte, error) {
	ans := engine.Call(ctx, o.Caller(req), req.Params.Name, req.Params.Arguments)
	// A kept answer is already its JSON, as json.Marshal wrote it.
	body, kept := ans.Body.(json.RawMessage)
	if !kept {
		var err error
		if body, err = json.Marshal(ans.Body); err != nil {
			return nil, nil, err
		}
	}
	// The backstop: no long digit run leaves the server, except inside
	// plumbline's own identifiers.
	return ans, scrub.JSON(body, ans.RequestID, engine.Catalog().Version()), nil
}

// HTTPHandler serves the server over Streamable HTTP at /mcp, statelessly
// (no MCP session is kept, so replicas need no sticky routing), with
// /healthz for load balancers.
func HTTPHandler(srv *mcp.Server) http.Handler {
	mcpHandler := streamable(srv, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, true)
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(mcpHandler))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return mux
}

// StreamableHTTP is the bare Streamable HTTP handler for /mcp, stateless,
// for a caller that puts its own guards in front (package oauth: a Host
// allow-list, Origin validation and the token check). The go-sdk's own
// DNS-rebinding check, which refuses every non-loopback Host on a loopback
// listener, is off: it would refuse a deployment behind a proxy on the same
// machine, and the Host allow-list in front does its job for any listener.
func StreamableHTTP(srv *mcp.Server) http.Handler {
	return streamable(srv, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true}, false)
}

// streamable is the go-sdk's Streamable HTTP handler for srv, with opts,
// behind plumbline's own: compression, errors that never echo the request,
// direct tool calls (localhostOnly as answerDirectly takes it) and, for
// every request the direct calls leave to the go-sdk (they take only
// messages that already fit), the refusal of a message unfit refuses.
func streamable(srv *mcp.Server, opts *mcp.StreamableHTTPOptions, localhostOnly bool) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	return compressed(srv, unechoedHTTP(answerDirectly(srv, wellFormed(sdk), localhostOnly)))
}

// compressed sends a response of 1 KiB or more compressed (zstd or gzip,
// as the client's Accept-Encoding allows; every HTTP client an MCP client
// is built on asks for gzip and decodes it on its own), to the clients
// srv's Options.Compress says. A tool result carries its answer twice, as
// structured content and as text, and most of both is the same words:
// compressed, the wire is about half the structured answer instead of
// nearly twice it. Below 1 KiB a response fits one packet either way and
// goes as it is. Compressing costs CPU at both ends: for a client on the
// same machine, where there is no wire, CompressRemote spares it.
func compressed(srv *mcp.Server, h http.Handler) http.Handler {
	mode, _ := compression.Load(srv)
	gz := gzhttp.GzipHandler(h)
	switch mode {
	case CompressNever:
		return h
	case CompressAlways:
		return gz
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopbackPeer(r.RemoteAddr) {
			h.ServeHTTP(w, r)
			return
		}
		gz.ServeHTTP(w, r)
	})
}

// loopbackPeer reports whether a request's remote address is on the
// loopback interface.
func loopbackPeer(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// Timed answers every request that succeeds (a status below 400) with a
// Server-Timing header naming the time plumbline took over it, from the
// moment the request reached h to the moment its answer's header was
// written, and the part of it each stage of a tool call took (package
// telemetry: auth, request_log, report_sql and assembly), in milliseconds:
// "plumbline;dur=1.234, auth;dur=0.021, ...". Around /mcp it covers the
// token check, the call's admission, its report and the JSON-RPC framing:
// the server's side of a call, for a client (or plumbline-bench) to set
// beside its own. A refused request (a missing, bad or revoked token, one
// short of a scope, a Host or origin not served) hears nothing of how long
// any stage took, which would tell a guesser how far its token got. The
// request's context carries the timing (telemetry.TimingFrom), for the
// stages to add their time to and the metrics to read.
func Timed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := telemetry.NewTiming(time.Now())
		h.ServeHTTP(&timedWriter{ResponseWriter: w, t: t}, r.WithContext(telemetry.WithTiming(r.Context(), t)))
	})
}

type timedWriter struct {
	http.ResponseWriter
	t       *telemetry.Timing
	written bool
}

func (w *timedWriter) WriteHeader(status int) {
	if !w.written {
		w.written = true
		if status < http.StatusBadRequest {
			w.Header().Set("Server-Timing", w.t.ServerTiming(w.t.Elapsed()))
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *timedWriter) Write(p []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *timedWriter) Flush() {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// atLeast passes on only records at or above a level.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(attrs), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}

// software names the MCP client program as it named itself, in its
// initialize request or in the call's _meta: its name and version, shown
// safely and at most 200 characters long.
func software(info *mcp.Implementation) string {
	if info == nil {
		return ""
	}
	s := strings.TrimSpace(info.Name + " " + info.Version)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return oauth.DisplayText(s)
}
