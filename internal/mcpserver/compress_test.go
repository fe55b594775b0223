package mcpserver_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"plumbline/internal/mcpserver"
	"plumbline/internal/servetest"
)

// anyRequestID matches a request id, wherever an answer names it.
var anyRequestID = regexp.MustCompile(`\b[0-9a-f]{24}\b`)

// An answer of 1 KiB or more goes compressed to a client on another
// machine and as it is to one on this machine's loopback, where there is
// no wire to save (the default); always and never say what they say. The
// answer is the same either way.
func TestAnswersCompressedForRemoteClients(t *testing.T) {
	db := newFloor(t).db
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"metric_definitions","arguments":{}}}`
	var plain []byte
	for _, mode := range []string{"", mcpserver.CompressRemote, mcpserver.CompressAlways, mcpserver.CompressNever} {
		served := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, _ *servetest.Floor) { o.Compress = mode }})
		h := mcpserver.StreamableHTTP(served.Server)
		for _, peer := range []string{"127.0.0.1:40001", "[::1]:40001", "198.51.100.7:40001", "[2001:db8::7]:40001"} {
			remote := !strings.HasPrefix(peer, "127.") && !strings.HasPrefix(peer, "[::1]")
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			req.RemoteAddr = peer
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Accept-Encoding", "gzip")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got := rec.Body.Bytes()
			compressed := rec.Header().Get("Content-Encoding") == "gzip"
			want := mode == mcpserver.CompressAlways || remote && mode != mcpserver.CompressNever
			if rec.Code != http.StatusOK || compressed != want {
				t.Errorf("--compress %q, a client at %s: %d, compressed %v; want compressed %v", mode, peer, rec.Code, compressed, want)
				continue
			}
			if compressed {
				zr, err := gzip.NewReader(bytes.NewReader(got))
				if err != nil {
					t.Fatal(err)
				}
				if got, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Contains(got, []byte(`"close_rate"`)) || len(got) < 1024 {
				t.Fatalf("--compress %q, a client at %s: %.200s", mode, peer, got)
			}
			// Every answer names its own request_id; the rest is the same.
			got = anyRequestID.ReplaceAll(got, []byte("ID"))
			if plain == nil {
				plain = got
			}
			if !bytes.Equal(got, plain) {
				t.Errorf("--compress %q, a client at %s: the answer differs from the first", mode, peer)
			}
		}
	}
}
