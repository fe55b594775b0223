package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"plumbline/reports/ask"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// This file holds what plumbline asks of a JSON-RPC message before the
// go-sdk reads it, on both transports. The go-sdk decodes the first JSON
// value of a body (of a line, on stdio) and ignores what follows it, and
// reads a numeric id as a float64 that it converts to an int64, so that
// an id past 2^53 or with a fraction comes back changed: 10^30 as
// -9223372036854775808. plumbline takes a message only as one JSON value
// with nothing after it, and an id only as a string or a whole number that
// every JSON reader keeps exactly; anything else is refused before it is
// read, with an id of null, as JSON-RPC asks when the id cannot be read.

// maxExactID is the largest whole number every JSON reader keeps exactly
// (2^53 - 1, the largest a float64 holds with every integer below it).
const maxExactID = 1<<53 - 1

// idRefusal is plumbline's error for a request whose id would not come
// back as it was sent.
func idRefusal() *jsonrpc.Error {
	r := &ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "id", Choices: []string{},
		Rule: "must be a string, or a whole number from -" + strconv.Itoa(maxExactID) + " to " + strconv.Itoa(maxExactID) +
			" written without a fraction or an exponent, which every JSON reader keeps exactly, so that the answer's id is the request's; " +
			"the request was not run, and this answer's id is null."}
	data, _ := json.Marshal(r)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: r.Error(), Data: data}
}

// unfit returns the error a message is answered with before the go-sdk
// reads it, or nil when it may go on: a parse error for anything but one
// JSON value with nothing after it (white space aside), and idRefusal for
// a message, or a message of a batch, whose id is a number other than a
// whole number within maxExactID of zero. Anything else wrong with a
// message is the go-sdk's to refuse.
func unfit(body []byte) *jsonrpc.Error {
	if !json.Valid(body) {
		return teaching(jsonrpc.CodeParseError)
	}
	var msgs []map[string]json.RawMessage
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		json.Unmarshal(trimmed, &msgs) // a batch of anything but objects is the go-sdk's to refuse
	} else {
		var msg map[string]json.RawMessage
		json.Unmarshal(trimmed, &msg)
		msgs = append(msgs, msg)
	}
	for _, msg := range msgs {
		if !exactID(msg["id"]) {
			return idRefusal()
		}
	}
	return nil
}

// exactID reports whether a message's id, as sent, comes back as it was:
// absent, null, a string, or a whole number within maxExactID of zero
// written as one. Other kinds (objects, arrays, true) are no id at all, and
// the go-sdk refuses them.
func exactID(id json.RawMessage) bool {
	if len(id) == 0 || id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		return true
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -maxExactID <= n && n <= maxExactID
}

// wellFormed answers a POST of JSON whose body unfit refuses, with the
// error and a null id (400, as the Streamable HTTP transport has a server
// refuse a message it cannot accept); any other request goes on to next,
// its body as it came.
func wellFormed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); r.Method != http.MethodPost || r.Body == nil || err != nil || t != "application/json" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			// The go-sdk answers a body it could not read (one too large,
			// one that came too slowly) as it does for any.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		// An empty body is the go-sdk's to refuse, in its own words.
		if e := unfit(body); e != nil && len(bytes.TrimSpace(body)) > 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(append(nullIDError(e), '\n'))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// nullIDError encodes an error response whose id is null.
func nullIDError(e *jsonrpc.Error) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *int           `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, e})
	return b
}

// errReader fails every read with its error.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
