package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the direct calls remember of which _meta fit their revision is what
// judging each afresh says, and stays within its bound however many
// clients send however many kinds of _meta; one too large is judged each
// time, never kept.
func TestRememberedMetaFitsAsJudged(t *testing.T) {
	d := newDirect(&mcp.Implementation{Name: "plumbline", Version: "test"}, nil, nil)
	capabilities := []string{`{}`, `{"roots":{"listChanged":true}}`, `{"roots":5}`, `{"sampling":{}}`, `{"nope":{}}`}
	infos := []string{``, `,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}`, `,"io.modelcontextprotocol/clientInfo":{"name":5}`}
	var fit, unfit int
	for round := range 2 {
		for i := range 3 * maxFits {
			revision := revisionPerRequest
			if i%7 == 3 {
				revision = "2099-01-01"
			}
			raw := json.RawMessage(fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":%s%s,"n":%d}`,
				revisionPerRequest, capabilities[i%len(capabilities)], infos[i%len(infos)], i%(2*maxFits)))
			var meta mcp.Meta
			if err := json.Unmarshal(raw, &meta); err != nil {
				t.Fatal(err)
			}
			want := metaFits(meta, revision)
			if got := d.metaFits(meta, raw, revision); got != want {
				t.Fatalf("round %d, _meta %s on %s: remembered %v, judged %v", round, raw, revision, got, want)
			}
			if want {
				fit++
			} else {
				unfit++
			}
			if len(d.fits) > maxFits {
				t.Fatalf("%d kinds of _meta remembered, more than %d", len(d.fits), maxFits)
			}
		}
	}
	if fit == 0 || unfit == 0 {
		t.Fatalf("%d _meta fit and %d did not: the test must try both", fit, unfit)
	}
	d.fits = nil
	large := json.RawMessage(fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{},"pad":%q}`,
		revisionPerRequest, strings.Repeat("x", maxFitsKey)))
	var meta mcp.Meta
	if err := json.Unmarshal(large, &meta); err != nil {
		t.Fatal(err)
	}
	if !d.metaFits(meta, large, revisionPerRequest) || len(d.fits) != 0 {
		t.Fatalf("a _meta of %d bytes: fits %v, %d kept; want it to fit, unkept", len(large), d.metaFits(meta, large, revisionPerRequest), len(d.fits))
	}
}
