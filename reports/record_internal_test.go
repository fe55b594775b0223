package reports

import (
	"encoding/json"
	"strings"
	"testing"
)

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
}
