package reports

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// marker is a distinctive string sent as free text; the log form never
// holds it.
const marker = "zq9MARKERzq9"

// The request log keeps fixed choices as given and never free text.
func TestLoggableArguments(t *testing.T) {
	e := New(demoCatalog(t), nil, nil)
	raw := `{"who":{"agent":"zq9MARKERzq9 Lopez"},"period":{"named":"last_week","day":"2026-11-02"},
		"metrics":["close_rate","zq9MARKERzq9"],"group_by":"team","top_n":5,"compact":true,
		"sort":{"metric":"close_rate","direction":"asc"},"zq9MARKERzq9":"zq9MARKERzq9"}`
	got := string(e.loggable(&call{}, json.RawMessage(raw)))
	if strings.Contains(got, marker) {
		t.Fatalf("the log form keeps free text: %s", got)
	}
	for _, kept := range []string{`"named":"last_week"`, `"day":"2026-11-02"`, `"group_by":"team"`, `"top_n":5`,
		`"compact":true`, `"direction":"asc"`, `"close_rate"`, `{"length":18}`, `"_unknown_fields":[{"length":12}]`} {
		if !strings.Contains(got, kept) {
			t.Errorf("the log form lacks %s: %s", kept, got)
		}
	}
	if got := string(e.loggable(&call{}, json.RawMessage(`not json zq9MARKERzq9`))); strings.Contains(got, marker) {
		t.Errorf("unparseable arguments are logged as sent: %s", got)
	}
	// A number PostgreSQL's jsonb cannot hold is redacted, not kept.
	huge := "1" + strings.Repeat("0", 40)
	got = string(e.loggable(&call{}, json.RawMessage(`{"top_n":1e999999,"weeks":`+huge+`,"topn":-0.5}`)))
	if strings.Contains(got, "999999") || strings.Contains(got, huge) ||
		!strings.Contains(got, `"top_n":{"length":8}`) || !strings.Contains(got, `"weeks":{"length":41}`) {
		t.Errorf("numbers the log cannot hold are logged as %s; want them redacted", got)
	}
}

// Request ids are in the order calls start, a millisecond apart or more,
// so the request log's primary key grows at its end; within a millisecond
// they still differ.
func TestRequestIDsAreInTimeOrder(t *testing.T) {
	seen := map[string]bool{}
	var last string
	for i := range 5 {
		a, b := newRequestID(), newRequestID()
		if len(a) != 24 || a == b || seen[a] || seen[b] {
			t.Fatalf("ids %q and %q: want 24 hex digits, each new", a, b)
		}
		seen[a], seen[b] = true, true
		if i > 0 && a <= last {
			t.Errorf("id %q, made in a later millisecond than %q, sorts before it", a, last)
		}
		last = b
		// The next pair is made once the clock has passed b's millisecond.
		for start := time.Now().UnixMilli(); time.Now().UnixMilli() <= start; {
		}
	}
}
