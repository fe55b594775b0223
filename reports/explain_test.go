package reports_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
)

// An explained call without a database resolves as of the moment it is
// given, not the clock: the sources count as loaded through that moment's
// day on the floor, so "yesterday" in 2099 is planned rather than refused as
// not yet loaded, and the plan is the engine's own for that day.
func TestKeysOnlyAsOfNow(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	// 03:00 UTC is still the evening before in New York.
	now := time.Date(2099, 6, 10, 3, 0, 0, 0, time.UTC)
	day := time.Date(2099, 6, 9, 0, 0, 0, 0, time.UTC)
	if got := now.In(cat.Zone()).Day(); got != 9 {
		t.Fatalf("the demo floor's zone puts %s on day %d; the test needs a zone behind UTC", now, got)
	}
	raw := json.RawMessage(`{"who":{"team":"falcons"},"period":{"named":"yesterday"}}`)
	st, err := reports.KeysOnly(cat, "sales", raw, now)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := st.Directory(context.Background(), "")
	if err != nil || len(dir.Teams) != 1 || dir.Teams[0].Key != "falcons" || len(dir.Agents) != 0 {
		t.Fatalf("directory %+v (%v), want the one team falcons", dir, err)
	}
	sources := cat.Sources()
	cov, err := st.Coverage(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		if c := cov[s.ID]; !c.Through.Equal(day) || !c.First.Before(day) {
			t.Errorf("%s loaded %s to %s, want through %s", s.ID, c.First, c.Through, day.Format(time.DateOnly))
		}
	}

	dry := &reports.DryRun{Store: st}
	e := reports.New(cat, dry, &reports.Options{Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	a := e.Call(context.Background(), ask.Caller{Person: "explain"}, "sales", raw)
	if _, ok := a.Body.(*answer.Report); !ok {
		body, _ := json.Marshal(a.Body)
		t.Fatalf("answer %s, want a report", body)
	}
	if len(dry.Plans) == 0 {
		t.Fatal("no plan was recorded")
	}
	for _, p := range dry.Plans {
		if want := day.AddDate(0, 0, -1); !p.Period.Start.Equal(want) || !p.Period.End.Equal(want) {
			t.Errorf("plan over %s to %s, want yesterday %s", p.Period.Start, p.Period.End, want.Format(time.DateOnly))
		}
		if p.Scope.Kind != ask.ScopeTeam || p.Scope.Key != "falcons" {
			t.Errorf("plan scope %+v, want team falcons", p.Scope)
		}
	}
}

// Without a database only keys are taken, and only for catalogue reports;
// the error names the argument, never what was typed.
func TestKeysOnlyNeedsTheDirectory(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct{ tool, args, want string }{
		{"sales", `{"who":{"agent":"Maria Lopez"},"period":{"named":"yesterday"}}`, "who.agent: without a database explain takes only a key"},
		{"sales", `{"who":{"team":"ops@floor.example"},"period":{"named":"yesterday"}}`, "who.team: without a database explain takes only a key"},
		{"whoami", `{}`, "without a database, explain takes the catalogue's report tools"},
	} {
		_, err := reports.KeysOnly(cat, c.tool, json.RawMessage(c.args), now)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Maria") || strings.Contains(err.Error(), "ops@") {
			t.Errorf("%s %s: %v, want %q", c.tool, c.args, err, c.want)
		}
	}
	// A malformed who is the engine's to refuse: the store is built.
	if _, err := reports.KeysOnly(cat, "sales", json.RawMessage(`{"who":{"team":3}}`), now); err != nil {
		t.Errorf("a malformed who: %v", err)
	}
}
