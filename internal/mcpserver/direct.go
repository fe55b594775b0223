package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports/rawjson"
)

// This file answers the call a client makes most, a tools/call of one of
// the engine's tools over the stateless Streamable HTTP transport, without
// the go-sdk's machinery for the general case. For each request the go-sdk
// connects a session, decodes the body about nine times (each through a
// fresh 32 KiB buffer) and compacts the answer, already encoded, three
// times more; for a report that is about as much of the server's CPU as
// the report's own work. A direct call runs the same tool handler, on the
// same request the go-sdk would have built, and writes the response the
// go-sdk would have written.
//
// It takes only requests it can answer exactly so: one JSON-RPC call with
// nothing but jsonrpc, id, method and params, on a protocol revision it
// knows, with every header the revision asks for present and matching.
// Anything else, valid or not, goes on to the go-sdk, which answers it or
// words the error. TestDirectCallsAnswerAsTheSDK sends randomized requests
// both ways and compares the responses byte for byte.

// directRevisions are the protocol revisions a direct call answers: those
// without JSON-RPC batches, as the MCP-Protocol-Version header names them.
var directRevisions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// protocolVersionHeader is the header that names a request's protocol
// revision, spelled as net/http keeps it, so that reading it need not
// respell it first.
const protocolVersionHeader = "Mcp-Protocol-Version"

// revisionPerRequest is the first revision whose calls carry the revision
// and the client's capabilities in _meta, and repeat the method and name in
// headers.
const revisionPerRequest = "2026-07-28"

// Keys of a call's _meta on revisionPerRequest.
const (
	metaRevision     = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo   = "io.modelcontextprotocol/clientInfo"
)

// directID is a request id a direct call echoes as it came: a small
// integer, or a plain string that JSON encodes as it is.
var directID = regexp.MustCompile(`^([1-9][0-9]{0,14}|0|"[A-Za-z0-9._:-]{1,64}")$`)

// directCalls holds each server's direct tool calls, for the HTTP handlers
// built on it (New registers them).
var directCalls sync.Map // *mcp.Server → *direct

// direct is a server's direct tool calls: its engine's tools, by name, the
// call they share, and the server's name and version as results on
// revisionPerRequest carry them, encoded.
type direct struct {
	tools      []string
	call       toolCall
	serverInfo []byte

	fitsMu sync.Mutex
	fits   map[string]bool // metaFits, by revision and _meta as sent
}

// Bounds of the memory of which _meta fit: a client sends the same on
// every call, so a few entries serve every client; a larger _meta, or a
// changing one, is judged afresh each time.
const (
	maxFits    = 256
	maxFitsKey = 2 << 10
)

func newDirect(impl *mcp.Implementation, tools []string, call toolCall) *direct {
	info, err := json.Marshal(impl)
	if err != nil {
		panic("the server's implementation does not encode: " + err.Error())
	}
	return &direct{tools: tools, call: call, serverInfo: info}
}

// directOff turns direct calls off, and directAnswered counts those
// answered, for the test that compares them with the go-sdk's answers.
var (
	directOff      atomic.Bool
	directAnswered atomic.Int64
)

// answerDirectly serves next with srv's direct calls in front, if srv has
// any. localhostOnly says next refuses a request to a loopback listener
// whose Host is not a loopback name, which a direct call leaves to it.
func answerDirectly(srv *mcp.Server, next http.Handler, localhostOnly bool) http.Handler {
	v, ok := directCalls.Load(srv)
	if !ok {
		return next
	}
	d := v.(*direct)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if directOff.Load() || !d.takes(r, localhostOnly) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		var id json.RawMessage
		var req *mcp.CallToolRequest
		ok := err == nil
		if ok {
			id, req, ok = d.request(r, body)
		}
		if !ok {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			return
		}
		directAnswered.Add(1)
		res, err := d.call(r.Context(), req)
		w.Header().Set("Cache-Control", "no-cache, no-transform")
		w.Header().Set("Content-Type", "application/json")
		w.Write(d.encode(id, r.Header.Get(protocolVersionHeader) >= revisionPerRequest, res, err))
	})
}

// takes reports whether a request's method and headers are those of a call
// a direct call may answer.
func (d *direct) takes(r *http.Request, localhostOnly bool) bool {
	if r.Method != http.MethodPost || r.Body == nil || len(r.Header.Values("Last-Event-Id")) > 0 {
		return false
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		return false
	}
	revision := r.Header.Get(protocolVersionHeader)
	if !accepts(r.Header.Values("Accept")) || !slices.Contains(directRevisions, revision) {
		return false
	}
	// A revision that names the method in a header says, before the body
	// is read, whether this is a tool call at all.
	if revision >= revisionPerRequest && r.Header.Get("Mcp-Method") != "tools/call" {
		return false
	}
	return !localhostOnly || loopbackHost(r.Host)
}

// isJSON reports whether a Content-Type is JSON's, with or without
// parameters; written as clients write it, it needs no parsing.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "application/json"
}

// accepts reports whether an Accept header names both media types a
// Streamable HTTP client must accept, each by its own name.
func accepts(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for token := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

// loopbackHost reports whether a Host header names the loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// request reads a direct call from its body: its id as sent, and the tool
// request the go-sdk would hand the tool's handler. It reads the body as
// json.Unmarshal would into maps of raw values, one for the message and
// one for its params (the last of a repeated key counting), but in place.
func (d *direct) request(r *http.Request, body []byte) (json.RawMessage, *mcp.CallToolRequest, bool) {
	if !json.Valid(body) {
		return nil, nil, false
	}
	var jsonrpc, id, method, params []byte
	if !rawjson.Object(body, func(key, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			jsonrpc = value
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			params = value
		default:
			return false
		}
		return true
	}) || string(jsonrpc) != `"2.0"` || string(method) != `"tools/call"` || !directID.Match(id) {
		return nil, nil, false
	}
	var name string
	var args, rawMeta json.RawMessage
	if !rawjson.Object(params, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			name, _ = rawjson.Choice(value, d.tools)
		case "arguments":
			args = value
		case "_meta":
			rawMeta = value
		default:
			return false
		}
		return true
	}) || name == "" {
		return nil, nil, false
	}
	hasArgs, hasMeta := args != nil, rawMeta != nil
	if hasArgs && !isObject(args) || hasMeta && !isObject(rawMeta) {
		return nil, nil, false
	}
	var meta mcp.Meta
	if hasMeta {
		var ok bool
		if meta, ok = metaOf(rawMeta); !ok {
			return nil, nil, false
		}
	}
	revision := r.Header.Get(protocolVersionHeader)
	if !d.metaFits(meta, rawMeta, revision) {
		return nil, nil, false
	}
	if revision >= revisionPerRequest && r.Header.Get("Mcp-Name") != name {
		return nil, nil, false
	}
	return id, &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Meta: meta, Name: name, Arguments: args},
		Extra:  &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header},
	}, true
}

// metaFits is the package's metaFits, remembered for _meta as sent (raw)
// and the revision: judging it decodes the capabilities and the client's
// information twice.
func (d *direct) metaFits(meta mcp.Meta, raw json.RawMessage, revision string) bool {
	if revision < revisionPerRequest || len(revision)+len(raw) > maxFitsKey {
		return metaFits(meta, revision)
	}
	key := revision + "\x00" + string(raw)
	d.fitsMu.Lock()
	fits, known := d.fits[key]
	d.fitsMu.Unlock()
	if known {
		return fits
	}
	fits = metaFits(meta, revision)
	d.fitsMu.Lock()
	defer d.fitsMu.Unlock()
	if d.fits == nil || len(d.fits) >= maxFits {
		d.fits = map[string]bool{}
	}
	d.fits[key] = fits
	return fits
}

// metaFits reports whether a call's _meta is what its revision asks: on
// revisionPerRequest the revision itself and the client's capabilities
// (and its info, if given) as the go-sdk reads them; before it, no
// revision at all.
func metaFits(meta mcp.Meta, revision string) bool {
	v, named := meta[metaRevision]
	if revision < revisionPerRequest {
		return !named
	}
	if v != revision {
		return false
	}
	if _, ok := meta[metaCapabilities].(map[string]any); !ok || !decodes[mcp.ClientCapabilities](meta[metaCapabilities]) {
		return false
	}
	info, hasInfo := meta[metaClientInfo]
	return !hasInfo || decodes[mcp.Implementation](info)
}

// decodes reports whether a decoded JSON value decodes again as a T, as
// the go-sdk reads _meta values.
func decodes[T any](v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var t T
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(&t) == nil
}

// metaOf decodes a call's _meta, if it decodes: apart, so that a call
// without one makes no room for it.
func metaOf(raw json.RawMessage) (mcp.Meta, bool) {
	var meta mcp.Meta
	err := json.Unmarshal(raw, &meta)
	return meta, err == nil
}

func isObject(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// encode writes a direct call's response as the go-sdk encodes one: the
// result (on revisionPerRequest with the server's info and its result
// type), or for a call that failed, plumbline's own wording of the error.
// Within the result the go-sdk encodes as json.Marshal does, so the text
// escapes HTML characters; the body already is as json.Marshal wrote it.
func (d *direct) encode(id json.RawMessage, perRequest bool, res toolResult, err error) []byte {
	text, _ := json.Marshal(res.text)
	out := make([]byte, 0, len(res.body)+len(text)+len(d.serverInfo)+160)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	if err != nil {
		e, _ := json.Marshal(unechoedError(err))
		out = append(out, `,"error":`...)
		return append(append(out, e...), '}')
	}
	out = append(out, `,"result":{`...)
	if perRequest {
		out = append(out, `"_meta":{"io.modelcontextprotocol/serverInfo":`...)
		out = append(append(out, d.serverInfo...), `},`...)
	}
	out = append(out, `"content":[{"type":"text","text":`...)
	out = append(append(out, text...), `}],"structuredContent":`...)
	out = append(out, res.body...)
	if res.refused {
		out = append(out, `,"isError":true`...)
	}
	if perRequest {
		out = append(out, `,"resultType":"complete"`...)
	}
	return append(out, "}}"...)
}
