package reports

import (
	"encoding/json"
	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
	"testing"
	"time"
)

// FuzzDecodeReport feeds arbitrary arguments through decoding and
// resolution: nothing panics, every refusal teaches, and whatever is
// accepted resolves to a period the rules allow.
func FuzzDecodeReport(f *testing.F) {
	for _, seed := range []string{
		`{"who":{"floor":true},"period":{"named":"last_week"}}`,
		`{"who":{"agent":"Maria"},"period":{"week":"2026-11-01"},"group_by":"day"}`,
		`{"who":{"team":"falcons"},"period":{"start":"2026-07-21","end":"2026-11-17"},"metrics":["close_rate"],"sort":{"metric":"close_rate"},"top_n":3}`,
		`{"who":{"floor":true},"period":{"day":"2026-02-30"}}`,
		`{"who":{"floor":true},"period":{"named":"today"},"compare_counts":true,"compact":true,"known_definitions":"x"}`,
		`{"who":{"floor":false},"period":{}}`, `[1]`, `null`, `{"who":"x"}`, `{"top_n":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	cat := demoCatalog(f)
	sales, _ := cat.Report("sales")
	now := time.Date(2026, 11, 18, 19, 30, 0, 0, time.UTC)
	dir := directory.New(&ask.Roster{
		Teams: []ask.Team{{Key: "falcons", Name: "Falcons"}, {Key: "hawks", Name: "Hawks"}},
		Agents: []ask.Agent{
			{Key: "a001", Name: "Maria Lopez", Email: "maria.lopez@floor.example", Team: "falcons"},
			{Key: "a002", Name: "Maria Lopes", Email: "maria.lopes@floor.example", Team: "hawks"},
			{Key: "a003", Name: "Jamal Carter", Email: "jamal.carter@floor.example", Team: "falcons"},
		},
	}, calendar.Today(now, cat.Zone()), nil)
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, r := grammar.Parse(json.RawMessage(raw))
		var req *grammar.Request
		if r == nil {
			req, r = a.Report(sales, catalog.NamedPeriods)
		}
		if r != nil {
			if r.Argument == "" || r.Rule == "" || r.Choices == nil || r.Code != ask.CodeInvalidArgument {
				t.Fatalf("a refusal that does not teach: %+v", r)
			}
			return
		}
		p, r := resolvePeriod(req.Period, now, cat, true)
		if r != nil {
			if r.Argument == "" || r.Rule == "" {
				t.Fatalf("a period refusal that does not teach: %+v", r)
			}
			return
		}
		if p.End.After(calendar.Today(now, cat.Zone())) || p.Start.After(p.End) || p.Days() > 120 && p.Named == "" {
			t.Fatalf("%s resolved to %v..%v", raw, p.Start, p.End)
		}
		scope, cands, r := resolveWithin(dir, req.Who, ask.FloorReach, "")
		if (r != nil) == (scope.Kind != "" || cands != nil) || len(cands) == 1 && !cands[0].Suggestion() {
			t.Fatalf("who resolved to scope %+v, %d candidates, refusal %v", scope, len(cands), r)
		}
	})
}
