package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports"
	"plumbline/reports/ask"
)

// This file keeps what a caller sent out of the protocol's own errors. The
// go-sdk's messages quote the caller: an unknown tool, prompt or method by
// name, a malformed body by its text. plumbline answers every such error with
// its own teaching message instead, on both transports and for every
// protocol revision: the error's code is kept, its message and data become
// plumbline's. Only the request id comes back, as JSON-RPC requires.

// revisionShape is what a protocol revision looks like: a date, or a
// version number.
var revisionShape = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|v?\d{1,4}(\.\d{1,4}){1,2})$`)

// Methods plumbline answers, for the error that names an unknown one.
var servedMethods = []string{
	"initialize", "server/discover", "ping", "tools/list", "tools/call", "resources/list", "resources/templates/list",
	"resources/read", "completion/complete", "prompts/list", "logging/setLevel",
}

// teaching returns plumbline's own error for a JSON-RPC error code.
func teaching(code int64) *jsonrpc.Error {
	r := &ask.Refusal{Code: ask.CodeInvalidArgument, Choices: []string{}}
	switch code {
	case jsonrpc.CodeParseError:
		r.Argument, r.Rule = "body", "is not one valid JSON value with nothing after it; send one JSON-RPC message, a JSON object, per request (per line on stdio)."
	case jsonrpc.CodeInvalidRequest:
		r.Argument, r.Rule = "request", `is not a valid JSON-RPC request: it needs "jsonrpc": "2.0", a method, an id for a call and none for a notification, and params where the method takes them.`
	case jsonrpc.CodeMethodNotFound:
		r.Argument, r.Rule, r.Choices = "method", "is not a method plumbline serves.", servedMethods
	case jsonrpc.CodeInvalidParams:
		r.Argument, r.Rule = "params", `do not fit the method: a field is missing or of the wrong type (on the 2026-07-28 revision, every request's _meta carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities).`
	case mcp.CodeHeaderMismatch:
		r.Argument, r.Rule = "headers", `do not match the body: MCP-Protocol-Version must equal _meta["io.modelcontextprotocol/protocolVersion"], `+
			"and Mcp-Method (with Mcp-Name, for a call that names a tool, resource or prompt) must repeat the body's method and name."
	case mcp.CodeUnsupportedProtocolVersion:
		r.Argument, r.Rule = "protocolVersion", "is not a revision plumbline serves; the error's data lists the supported ones."
	default:
		r.Code, r.Argument, r.Rule = ask.CodeUnavailable, "request", "could not be handled; try again."
	}
	data, _ := json.Marshal(r)
	return &jsonrpc.Error{Code: code, Message: r.Error(), Data: data}
}

// unechoedError is err as plumbline answers it: its own refusals as they
// are, anything else by its code alone.
func unechoedError(err error) error {
	var jerr *jsonrpc.Error
	switch {
	case errors.As(err, &jerr) && isRefusal(jerr.Data):
		return jerr
	case errors.As(err, &jerr) && jerr.Code == mcp.CodeUnsupportedProtocolVersion:
		// Clients read the supported revisions from the data to try again,
		// and the protocol has the data repeat the revision asked for: it is
		// repeated only when it has the shape of a revision.
		var data mcp.UnsupportedProtocolVersionData
		json.Unmarshal(jerr.Data, &data)
		if !revisionShape.MatchString(data.Requested) {
			data.Requested = ""
		}
		out := teaching(jerr.Code)
		out.Data, _ = json.Marshal(data)
		return out
	case errors.As(err, &jerr):
		return teaching(jerr.Code)
	default:
		return teaching(jsonrpc.CodeInternalError)
	}
}

// unechoed answers the method errors the go-sdk words with the caller's
// text: a resource URI that matches nothing, a tool or a prompt plumbline
// does not have, and every other error of a method it routes.
func unechoed(engine *reports.Engine) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var jerr *jsonrpc.Error
			switch {
			case err == nil || errors.As(err, &jerr) && isRefusal(jerr.Data):
				return res, err
			case method == "resources/read" && errors.As(err, &jerr) && jerr.Code == jsonrpc.CodeInvalidParams:
				return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "uri",
					Rule:    "names no plumbline resource; resources/list and resources/templates/list give the ones there are.",
					Choices: []string{metricsURI, metricTemplate, teamTemplate}})
			case method == "tools/call" && errors.As(err, &jerr) && jerr.Code == jsonrpc.CodeInvalidParams:
				return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "name",
					Rule: "is not a plumbline tool; tools/list gives them.", Choices: engine.ToolNames()})
			case method == "prompts/get" && errors.As(err, &jerr) && jerr.Code == jsonrpc.CodeInvalidParams:
				return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "name",
					Rule: "is not a prompt: plumbline offers none, as its tools answer every question."})
			}
			return nil, unechoedError(err)
		}
	}
}

// isRefusal reports whether an error's data is one of plumbline's refusals.
func isRefusal(data json.RawMessage) bool {
	var r ask.Refusal
	return json.Unmarshal(data, &r) == nil && r.Code != ""
}

// echoingTexts begin the go-sdk's plain-text HTTP errors that quote the
// request, by the error each means: a method it does not route, a body it
// cannot decode.
var echoingTexts = map[string]int64{
	"JSON RPC not handled": jsonrpc.CodeMethodNotFound,
	"malformed payload":    jsonrpc.CodeParseError,
	"handling '":           jsonrpc.CodeInvalidParams,
	"invalid request":      jsonrpc.CodeInvalidRequest,
}

// unechoedHTTP rewrites the errors of a Streamable HTTP handler that would
// repeat the request: a JSON-RPC error in a JSON body, by its code; a
// plain-text error that quotes the request, by plumbline's own text for a
// body it does not take. Answers that are not errors pass through as they
// are written.
func unechoedHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&unechoedWriter{ResponseWriter: w}, r)
	})
}

// unechoedWriter rewrites a response's first write, which holds the whole
// body: the go-sdk writes each answer and each error in one piece.
type unechoedWriter struct {
	http.ResponseWriter
	status  int
	written bool
}

func (u *unechoedWriter) WriteHeader(status int) {
	u.status = status
	u.ResponseWriter.WriteHeader(status)
}

func (u *unechoedWriter) Write(b []byte) (int, error) {
	in := len(b)
	switch {
	case u.written:
	case bytes.Contains(b, []byte(`,"error":{"code":-`)):
		b = unechoedBody(b)
	case u.status >= http.StatusBadRequest && strings.HasPrefix(u.Header().Get("Content-Type"), "text/plain"):
		if code, ok := echoes(b); ok {
			b = []byte(teaching(code).Message + "\n")
		}
	}
	u.written = true
	if _, err := u.ResponseWriter.Write(b); err != nil {
		return 0, err
	}
	return in, nil
}

// echoes reports whether a plain-text error quotes the request, and the
// error it means.
func echoes(b []byte) (int64, bool) {
	for prefix, code := range echoingTexts {
		if bytes.HasPrefix(b, []byte(prefix)) {
			return code, true
		}
	}
	return 0, false
}

// unechoedBody rewrites the JSON-RPC error in a response body.
func unechoedBody(b []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(b))
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.Error == nil {
		return b
	}
	resp.Error = unechoedError(resp.Error)
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return b
	}
	return append(out, '\n')
}

func (u *unechoedWriter) Flush() {
	if f, ok := u.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (u *unechoedWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }
