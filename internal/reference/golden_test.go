package reference_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/internal/reference"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// The golden answers of package reports (reports/testdata/golden, one
// folder per call: request, moment, the store's rows and the answer kept)
// hold the figures, partial flags, truncation and warnings the evaluator
// computes from the same rows at the same moment. The engine is held to the
// golden files there; the golden files are held to the evaluator here.
func TestGoldenAnswersAgreeWithTheReference(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "reports", "testdata", "golden", "*"))
	if len(dirs) == 0 {
		t.Fatal("no golden cases under reports/testdata/golden")
	}
	version := demoVersion(t)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var call struct {
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
			}
			var kept struct {
				Rows     int             `json:"rows"`
				Warnings []string        `json:"warnings"`
				Body     json.RawMessage `json:"body"`
			}
			var rows map[string][]map[string]any
			readJSON(t, filepath.Join(dir, "request.json"), &call)
			readJSON(t, filepath.Join(dir, "answer.json"), &kept)
			readJSON(t, filepath.Join(dir, "rows.json"), &rows)
			now := momentOf(t, filepath.Join(dir, "now.txt"))
			req := request(t, call.Tool, call.Arguments)
			want := floorOf(t, rows).Evaluate(req, now, version)
			got := &reports.Answer{Body: kept.Body, Rows: kept.Rows, Warnings: kept.Warnings}
			var refused struct{ Error *ask.Refusal }
			json.Unmarshal(kept.Body, &refused)
			got.Refusal = refused.Error
			if diff := compare(got, want); len(diff) > 0 {
				t.Errorf("%s disagrees with the reference: %s\n  reference: %+v", filepath.Join(dir, "answer.json"), diff, *want)
			}
		})
	}
}

// demoVersion is the demo catalogue's version, which known_definitions is
// compared with.
func demoVersion(t *testing.T) string {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat.Version()
}

// momentOf reads the moment a golden answer was kept at.
func momentOf(t *testing.T, path string) time.Time {
	t.Helper()
	text, err := os.ReadFile(path)
	var now time.Time
	if err == nil {
		now, err = time.Parse(time.RFC3339, strings.TrimSpace(string(text)))
	}
	if err != nil {
		t.Fatal(err)
	}
	return now
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// request reads a call's arguments as the evaluator's request, and checks
// that it writes them back the same: no argument is lost in the reading.
func request(t *testing.T, tool string, raw json.RawMessage) reference.Request {
	t.Helper()
	var a struct {
		Who *struct {
			Floor       bool
			Team, Agent string
		}
		Period           *struct{ Named, Day, Week, Start, End string }
		Metrics          []string
		GroupBy          string `json:"group_by"`
		TopN             int    `json:"top_n"`
		Sort             *struct{ Metric, Direction string }
		Compact          bool
		CompareCounts    bool   `json:"compare_counts"`
		CompareTo        string `json:"compare_to"`
		Cumulative       bool
		KnownDefinitions string `json:"known_definitions"`
		Weeks            int
		Day              string
		RankBy           string `json:"rank_by"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	r := reference.Request{Tool: tool, Metrics: a.Metrics, GroupBy: a.GroupBy, TopN: a.TopN, Compact: a.Compact,
		CompareCounts: a.CompareCounts, CompareTo: a.CompareTo, Cumulative: a.Cumulative, KnownDefinitions: a.KnownDefinitions,
		Weeks: a.Weeks, Day: a.Day, RankBy: a.RankBy}
	if a.Who != nil {
		r.Who = &reference.Who{Floor: a.Who.Floor, Team: a.Who.Team, Agent: a.Who.Agent}
	}
	if a.Period != nil {
		p := reference.Period(*a.Period)
		r.Period = &p
	}
	if a.Sort != nil {
		s := reference.Sort(*a.Sort)
		r.Sort = &s
	}
	var sent, written any
	json.Unmarshal(raw, &sent)
	json.Unmarshal(r.JSON(), &written)
	if !reflect.DeepEqual(sent, written) {
		t.Fatalf("the evaluator reads the arguments %s as %s", raw, r.JSON())
	}
	return r
}

// floorOf reads a store's rows, by relation, as the evaluator's floor.
func floorOf(t *testing.T, rows map[string][]map[string]any) *reference.Floor {
	t.Helper()
	f := &reference.Floor{Moves: map[string][]reference.Move{}, Decisions: map[string][]reference.Decision{},
		Time: map[string]map[time.Time]reference.TimeRow{}, Sales: map[string]map[time.Time]reference.SalesRow{},
		Quality: map[string]map[time.Time]reference.QualityRow{}, Board: map[string]map[time.Time]int{}, Loads: map[string][]reference.Load{}}
	day := func(v any) time.Time {
		d, err := time.Parse(time.DateOnly, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	moment := func(v any) time.Time {
		m, err := time.Parse(time.RFC3339, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	num := func(v any) *float64 {
		if v == nil {
			return nil
		}
		f := v.(float64)
		return &f
	}
	for _, r := range rows["analytics.dim_team"] {
		f.Teams = append(f.Teams, reference.Team{Key: r["team_key"].(string), Name: r["team_name"].(string)})
	}
	for _, r := range rows["analytics.dim_agent"] {
		a := reference.Agent{Key: r["agent_key"].(string), Name: r["full_name"].(string), Email: r["email"].(string), Hired: day(r["hired_on"])}
		if r["left_on"] != nil {
			left := day(r["left_on"])
			a.Left = &left
		}
		f.Agents = append(f.Agents, a)
	}
	for _, r := range rows["analytics.agent_team_history"] {
		k := r["agent_key"].(string)
		f.Moves[k] = append(f.Moves[k], reference.Move{Team: r["team_key"].(string), From: day(r["effective_from"])})
	}
	for _, r := range rows["analytics.team_floor_history"] {
		k := r["team_key"].(string)
		f.Decisions[k] = append(f.Decisions[k], reference.Decision{From: day(r["effective_from"]), Counts: r["counts_as_sales"].(bool)})
	}
	for _, r := range rows["metrics.agent_time_daily"] {
		putDay(f.Time, r["agent_key"].(string), day(r["day"]), reference.TimeRow{Logged: num(r["logged_hours"]), Available: num(r["available_hours"]), Talk: num(r["talk_hours"])})
	}
	for _, r := range rows["metrics.agent_sales_daily"] {
		s := reference.SalesRow{Submitted: int(r["submitted"].(float64)), Lost: int(r["lost"].(float64))}
		if r["approved"] != nil {
			n := int(r["approved"].(float64))
			s.Approved = &n
		}
		putDay(f.Sales, r["agent_key"].(string), day(r["day"]), s)
	}
	for _, r := range rows["metrics.agent_quality_daily"] {
		putDay(f.Quality, r["agent_key"].(string), day(r["day"]), reference.QualityRow{Passed: int(r["audits_passed"].(float64)), Failed: int(r["audits_failed"].(float64))})
	}
	for _, r := range rows["live.sales_board"] {
		k, at := r["agent_key"].(string), moment(r["entered_at"]).In(reference.NY)
		if f.Board[k] == nil {
			f.Board[k] = map[time.Time]int{}
		}
		f.Board[k][time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)] += int(r["sales"].(float64))
	}
	for _, r := range rows["metrics.load_runs"] {
		l := reference.Load{Day: day(r["covers_day"])}
		if r["finished_at"] != nil {
			fin := moment(r["finished_at"])
			l.Finished = &fin
		}
		rel := r["relation"].(string)
		f.Loads[rel] = append(f.Loads[rel], l)
	}
	for _, r := range rows["analytics.targets"] {
		f.AddTarget(r["team_key"].(string), r["metric"].(string), r["period_kind"].(string), day(r["period_start"]),
			reference.TargetRow{Value: r["value"].(float64), SetAt: moment(r["set_at"])})
	}
	// In the order Read leaves them: by key, histories by date.
	sort.Slice(f.Teams, func(i, j int) bool { return f.Teams[i].Key < f.Teams[j].Key })
	sort.Slice(f.Agents, func(i, j int) bool { return f.Agents[i].Key < f.Agents[j].Key })
	for _, ms := range f.Moves {
		sort.Slice(ms, func(i, j int) bool { return ms[i].From.Before(ms[j].From) })
	}
	for _, ds := range f.Decisions {
		sort.Slice(ds, func(i, j int) bool { return ds[i].From.Before(ds[j].From) })
	}
	return f
}

func putDay[T any](m map[string]map[time.Time]T, key string, day time.Time, v T) {
	if m[key] == nil {
		m[key] = map[time.Time]T{}
	}
	m[key][day] = v
}
