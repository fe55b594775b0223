package grammar

import (
	"encoding/json"
	"strings"
	"testing"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

func demoCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// decodeReport reads a report tool's raw arguments, its period named as
// one of plumbline's own.
func decodeReport(rep *catalog.Report, raw json.RawMessage) (*Request, *ask.Refusal) {
	a, r := Parse(raw)
	if r != nil {
		return nil, r
	}
	return a.Report(rep, catalog.NamedPeriods)
}

// marker is a distinctive string sent in every argument position; no refusal
// may repeat it.
const marker = "zq9MARKERzq9"

func TestDecodeReportRefusals(t *testing.T) {
	cat := demoCatalog(t)
	sales, _ := cat.Report("sales")
	ok := `"who":{"floor":true},"period":{"named":"last_week"}`
	for _, tc := range []struct {
		args     string
		argument string
		rule     string
	}{
		{`[1,2]`, "arguments", "JSON object"},
		{`{` + ok + `,"zq9MARKERzq9":1}`, "arguments", "does not take"},
		{`{"who":"zq9MARKERzq9",` + `"period":{"named":"last_week"}}`, "who", "must be an object"},
		{`{"who":{"floor":true,"team":"zq9MARKERzq9"},"period":{"named":"last_week"}}`, "who", "exactly one"},
		{`{"who":{"floor":false},"period":{"named":"last_week"}}`, "who.floor", "must be true"},
		{`{"who":{"zq9MARKERzq9":"x"},"period":{"named":"last_week"}}`, "who", "does not take"},
		{`{"who":{"team":""},"period":{"named":"last_week"}}`, "who.team", "must not be empty"},
		{`{"who":{"agent":"` + strings.Repeat("x", 201) + `"},"period":{"named":"last_week"}}`, "who.agent", "too long"},
		{`{"who":{"agent":7},"period":{"named":"last_week"}}`, "who.agent", "must be a string"},
		{`{"who":{"floor":true}}`, "period", "is required"},
		{`{"who":{"floor":true},"period":{"named":"zq9MARKERzq9"}}`, "period.named", "one of the choices"},
		{`{"who":{"floor":true},"period":{"day":"zq9MARKERzq9"}}`, "period.day", "YYYY-MM-DD"},
		{`{"who":{"floor":true},"period":{"start":"2026-11-01"}}`, "period", "both start and end"},
		{`{"who":{"floor":true},"period":{"named":"today","day":"2026-11-01"}}`, "period", "does not take"},
		{`{"who":{"floor":true},"period":{}}`, "period", "one of the shapes"},
		{`{` + ok + `,"metrics":["zq9MARKERzq9"]}`, "metrics", "does not offer"},
		{`{` + ok + `,"metrics":[]}`, "metrics", "non-empty"},
		{`{` + ok + `,"metrics":["close_rate","close_rate"]}`, "metrics", "twice"},
		{`{` + ok + `,"group_by":"zq9MARKERzq9"}`, "group_by", "one of the choices"},
		{`{` + ok + `,"top_n":0}`, "top_n", "from 1 to 50"},
		{`{` + ok + `,"top_n":51}`, "top_n", "from 1 to 50"},
		{`{` + ok + `,"top_n":2.5}`, "top_n", "whole number"},
		{`{` + ok + `,"sort":{"direction":"asc"}}`, "sort.metric", "is required"},
		{`{` + ok + `,"sort":{"metric":"close_rate","direction":"zq9MARKERzq9"}}`, "sort.direction", "one of the choices"},
		{`{` + ok + `,"compact":"yes"}`, "compact", "true or false"},
		{`{` + ok + `,"known_definitions":12}`, "known_definitions", "must be a string"},
	} {
		_, r := decodeReport(sales, json.RawMessage(tc.args))
		if r == nil {
			t.Errorf("%s was accepted", tc.args)
			continue
		}
		if r.Argument != tc.argument || !strings.Contains(r.Rule, tc.rule) || r.Code != ask.CodeInvalidArgument {
			t.Errorf("%s: refusal %+v, want argument %s and a rule about %q", tc.args, r, tc.argument, tc.rule)
		}
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), marker) {
			t.Errorf("%s: the refusal repeats the caller's text: %s", tc.args, b)
		}
		if r.Choices == nil {
			t.Errorf("%s: choices must be a list, even an empty one", tc.args)
		}
	}
}

func TestDecodeReportAccepts(t *testing.T) {
	cat := demoCatalog(t)
	sales, _ := cat.Report("sales")
	req, r := decodeReport(sales, json.RawMessage(`{"who":{"agent":" Maria Lopez "},"period":{"start":"2026-11-01","end":"2026-11-14"},
		"metrics":["close_rate","board_sales"],"group_by":"week","top_n":5,"sort":{"metric":"close_rate"},"compact":true,
		"compare_counts":false,"known_definitions":"abc"}`))
	if r != nil {
		t.Fatal(r)
	}
	if req.Who.Agent != "Maria Lopez" || req.Period.Start != "2026-11-01" || req.GroupBy != "week" || req.TopN != 5 ||
		req.Sort.Direction != "desc" || !req.Compact || len(req.Metrics) != 2 || req.KnownDefinitions != "abc" {
		t.Errorf("decoded %+v", req)
	}
	// compare_counts belongs to reports with several counting bases only.
	quality, _ := cat.Report("quality")
	if _, r := decodeReport(quality, json.RawMessage(`{"who":{"floor":true},"period":{"named":"today"},"compare_counts":true}`)); r == nil {
		t.Error("quality accepted compare_counts")
	}
}
