package reference_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"plumbline/internal/pgtest"
	"plumbline/internal/query"
	"plumbline/internal/reference"
	"plumbline/reports"
	"plumbline/reports/ask"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var (
	requests = flag.Int("reference.n", 2000, "how many random requests the differential test draws")
	seed     = flag.Uint64("reference.seed", 0, "the differential test's random seed; 0 draws one from the clock")
	shown    = flag.Int("reference.show", 10, "how many mismatches the differential test shows in full")
)

// moments are the nows the floors are generated up to: the ones on which a
// calendar rule can go wrong.
var moments = []struct{ name, at string }{
	{"Wednesday afternoon, today partial", "2026-11-18T14:30:00-05:00"},
	{"Monday 09:00", "2026-11-16T09:00:00-05:00"},
	{"Sunday 23:30", "2026-11-15T23:30:00-05:00"},
	{"the 1st of a month", "2026-12-01T10:00:00-05:00"},
	{"the Sunday the clocks go back", "2026-11-01T12:00:00-05:00"},
	{"the Sunday the clocks go forward", "2026-03-08T12:00:00-04:00"},
	{"the morning after a holiday", "2026-09-08T07:00:00-04:00"},
	{"while the nightly load runs", "2026-11-27T04:45:00-05:00"},
}

// floorAt is one moment's floor: the engine over it and the evaluator's
// reading of its raw tables.
type floorAt struct {
	name   string
	now    time.Time
	engine *reports.Engine
	raw    *reference.Floor
}

func floors(t *testing.T) []*floorAt {
	t.Helper()
	var out []*floorAt
	for _, m := range moments {
		now, err := time.Parse(time.RFC3339, m.at)
		if err != nil {
			t.Fatal(err)
		}
		db := pgtest.NewDBAt(t, now)
		raw, err := reference.Read(context.Background(), db.Conn(t))
		if err != nil {
			t.Fatal(err)
		}
		// The floor's reports read the rollups setup built, which the
		// comparison covers with the rest.
		var rolled int
		if err := db.Conn(t).QueryRow(context.Background(), "SELECT count(*) FROM "+query.RollupsRelation).Scan(&rolled); err != nil || rolled != 3 {
			t.Fatalf("the floor of %s has %d rollups built (%v); want the demo's 3", m.at, rolled, err)
		}
		st := db.Store(t)
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		engine := reports.New(st.Catalog(), st, &reports.Options{Now: func() time.Time { return now }, Logger: quiet})
		out = append(out, &floorAt{name: m.name, now: now, engine: engine, raw: raw})
	}
	return out
}

// The engine's figures, partial flags, truncation and warnings equal the
// reference evaluator's for randomly drawn requests over every report tool,
// every who form, every period form, every grouping, metric subsets,
// top_n and sort, compare_counts, compare_to (previous_period and target),
// cumulative and compact, at every moment above. A share of the draws aims
// at the rules of targets and of to-date comparisons: targets over weeks
// and months so far and whole, the weeks teams join and leave the floor, a
// league by attainment, team_weeks beside targets and the weeks before, and
// comparisons over periods run to today and over weeks an agent moved in.
func TestEngineAgreesWithTheReference(t *testing.T) {
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(s, 1))
	fs := floors(t)
	start := time.Now()
	var mismatches, refusals, candidates, near, compared, targeted, attained, running int
	kinds := map[string]int{}   // the new kinds of request answered
	classes := map[string]int{} // mismatches by class
	for i := 0; i < *requests; i++ {
		f := fs[i%len(fs)]
		req := draw(rng, f)
		got := f.engine.Call(context.Background(), ask.Caller{Person: "reference"}, req.Tool, req.JSON())
		want := f.raw.Evaluate(req, f.now, f.engine.Catalog().Version())
		switch {
		case want.Refusal != nil:
			refusals++
		case want.Candidates != nil:
			candidates++
			if want.Close {
				near++
			}
		case req.CompareTo == "target":
			targeted++
		case req.RankBy == "attainment":
			attained++
		case req.CompareTo != "":
			compared++
		case req.Cumulative:
			running++
		}
		if want.Refusal == nil && want.Candidates == nil {
			for _, k := range newKinds(req, want, f) {
				kinds[k]++
			}
		}
		if diff := compare(got, want); len(diff) > 0 {
			mismatches++
			for _, c := range diff.classes(req) {
				classes[c]++
			}
			if mismatches <= *shown {
				b, _ := json.Marshal(got.Body)
				t.Errorf("mismatch (seed %d, request %d) at %s (%s):\n  request: %s\n  %s\n  engine: %s\n  reference: %+v",
					s, i, f.now.Format(time.RFC3339), f.name, req, diff, b, *want)
			}
		}
	}
	t.Logf("%d requests (%d refused, %d with candidates (%d of them close to a name typed wrong), %d answered beside the previous period, %d beside targets, "+
		"%d leagues ranked by attainment, %d with running totals; of those answered: %s) over %d moments compared in %v with seed %d: %d mismatches",
		*requests, refusals, candidates, near, compared, targeted, attained, running,
		counted(kinds, ", "), len(fs), time.Since(start).Round(time.Millisecond), s, mismatches)
	if mismatches > 0 {
		t.Errorf("mismatches by class (a request can fall in several):\n  %s", counted(classes, "\n  "))
	}
}

// newKinds names the kinds of request the rules of targets and to-date
// comparisons bring that an answered request is one of.
func newKinds(req reference.Request, want *reference.Expected, f *floorAt) []string {
	var out []string
	add := func(k string, ok bool) {
		if ok {
			out = append(out, k)
		}
	}
	toDate := req.Period != nil && (slices.Contains([]string{"this_week", "week_to_date", "this_month", "month_to_date", "this_quarter", "quarter_to_date",
		"this_year", "year_to_date"}, req.Period.Named) ||
		req.Period.End == today(f).Format(time.DateOnly) || req.Period.Week != "" && want.End == today(f).Format(time.DateOnly))
	add("targets over a period so far", req.CompareTo == "target" && req.Tool != "team_weeks" && want.End == today(f).Format(time.DateOnly))
	add("targets over a whole week or month", req.CompareTo == "target" && req.Tool != "team_weeks" && want.End != today(f).Format(time.DateOnly))
	add("targets by team", req.CompareTo == "target" && req.GroupBy == "team")
	add("league by attainment", req.RankBy == "attainment")
	add("team_weeks beside targets", req.Tool == "team_weeks" && req.CompareTo == "target")
	add("team_weeks beside the weeks before", req.Tool == "team_weeks" && req.CompareTo == "previous_period")
	add("comparisons cut at the last final day", want.AskedEnd != "")
	add("over a calendar quarter or year", req.Period != nil && slices.Contains(calendarPeriods, req.Period.Named))
	add("by month or quarter", req.GroupBy == "month" || req.GroupBy == "quarter")
	add("beside the same days a year earlier", req.CompareTo == "previous_year")
	add("beside the same ISO week a year earlier", req.CompareTo == "previous_year" && (req.Period.Week != "" ||
		slices.Contains([]string{"this_week", "week_to_date", "last_week"}, req.Period.Named)))
	add("running totals by week, month or quarter", req.Cumulative && req.GroupBy != "day")
	add("a range of more than 120 days", req.Period != nil && req.Period.Start != "" && want.Days > 120)
	add("over the catalogue's enrollment season", req.Period != nil && req.Period.Named == "aep")
	add("the enrollment season beside the one before", req.Period != nil && req.Period.Named == "aep" && req.CompareTo == "previous_year")
	add("beside the calendar quarter before", req.CompareTo == "previous_period" && want.Days >= 90 && want.Days <= 92 && len(want.Previous) == 2 &&
		strings.HasSuffix(want.Previous[0], "-01") && want.Start[5:] == quarterAfter(want.Previous[0]))
	add("comparisons over a week an agent moved in", req.CompareTo == "previous_period" && req.Period != nil && req.Period.Week != "" && !toDate && movedIn(f, want))
	for _, w := range []string{"members", "floor_days", "prorated", "no_target", "to_date", "cut_months"} {
		add("with "+w, slices.Contains(want.Warnings, w))
	}
	return out
}

// movedIn says whether some agent's team changed inside an answer's period.
func movedIn(f *floorAt, want *reference.Expected) bool {
	for _, ms := range f.raw.Moves {
		for i, m := range ms {
			if d := m.From.Format(time.DateOnly); i > 0 && d > want.Start && d <= want.End {
				return true
			}
		}
	}
	return false
}

// counted writes counts by name, most first, joined by sep.
func counted(n map[string]int, sep string) string {
	var names []string
	for k := range n {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return n[names[i]] > n[names[j]] || n[names[i]] == n[names[j]] && names[i] < names[j]
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, sep)
}

// calendarPeriods are the named calendar quarters and years.
var calendarPeriods = []string{"this_quarter", "last_quarter", "quarter_to_date", "this_year", "last_year", "year_to_date"}

// quarterAfter is the month and day ("MM-DD") of the first day of the
// quarter after the one a date ("YYYY-MM-DD") starts.
func quarterAfter(first string) string {
	d, _ := time.Parse(time.DateOnly, first)
	return d.AddDate(0, 3, 0).Format("01-02")
}

func mondayOf(d time.Time) time.Time { return d.AddDate(0, 0, -(int(d.Weekday())+6)%7) }

func today(f *floorAt) time.Time {
	local := f.now.In(reference.NY)
	return time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
}

// draw draws a request over the floor's directory.
func draw(rng *rand.Rand, f *floorAt) reference.Request {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	chance := func(p float64) bool { return rng.Float64() < p }
	var r reference.Request
	switch x := rng.Float64(); {
	case x < 0.12:
		return drawTargets(rng, f)
	case x < 0.17:
		return drawLeagueByAttainment(rng, f)
	case x < 0.25:
		return drawToDate(rng, f)
	case x < 0.39:
		r.Tool = "sales"
	case x < 0.51:
		r.Tool = "hours"
	case x < 0.61:
		r.Tool = "quality"
	case x < 0.69:
		r.Tool = "team_day"
	case x < 0.79:
		r.Tool = "team_weeks"
	case x < 0.89:
		r.Tool = "league"
	case x < 0.96:
		r.Tool = "roster"
	default:
		r.Tool = "freshness"
		return r
	}
	r.Who = drawWho(rng, f)
	today := today(f)
	day := func() string { return today.AddDate(0, 0, -rng.IntN(420)).Format(time.DateOnly) }
	switch r.Tool {
	case "roster":
		if chance(0.6) {
			r.Day = day()
		}
		return r
	case "team_day":
		if r.Who.Agent != "" && chance(0.8) {
			r.Who = &reference.Who{Floor: true}
		}
		switch x := rng.Float64(); {
		case x < 0.3:
		case x < 0.5:
			r.Period = &reference.Period{Named: pick("today", "yesterday")}
		default:
			r.Period = &reference.Period{Day: today.AddDate(0, 0, -rng.IntN(60)).Format(time.DateOnly)}
		}
		drawModes(rng, &r, f.engine.Catalog().Version())
		return r
	case "team_weeks":
		if chance(0.7) {
			r.Weeks = 1 + rng.IntN(8)
		}
		switch x := rng.Float64(); {
		case x < 0.35:
			r.CompareTo = "previous_period"
		case x < 0.7:
			r.CompareTo = "target"
			if r.Who.Agent != "" && chance(0.8) {
				r.Who = drawTeamOrFloor(rng, f)
			}
		}
		drawModes(rng, &r, f.engine.Catalog().Version())
		return r
	}
	r.Period = drawPeriod(rng, today)
	var offered []string
	if r.Tool == "league" {
		r.Who = nil
		for _, ms := range reference.Reports() {
			offered = append(offered, ms...)
		}
		sort.Strings(offered)
		if chance(0.6) {
			r.Metrics = subset(rng, offered, 3)
		}
		if chance(0.4) {
			r.Sort = drawSort(rng, r.Metrics, offered)
		}
		if chance(0.1) {
			r.RankBy = pick("attainment", "figure")
		}
		drawModes(rng, &r, f.engine.Catalog().Version())
		return r
	}
	offered = reference.Reports()[r.Tool]
	if chance(0.55) {
		r.Metrics = subset(rng, offered, len(offered))
	}
	if chance(0.75) {
		r.GroupBy = pick("team", "agent", "day", "week", "month", "quarter")
	}
	if chance(0.22) {
		r.TopN = 1 + rng.IntN(8)
	}
	if chance(0.22) {
		r.Sort = drawSort(rng, r.Metrics, offered)
	}
	if r.Tool == "sales" && chance(0.12) {
		r.CompareCounts = true
		if chance(0.7) {
			r.Metrics = nil
		}
	}
	if chance(0.1) {
		r.Cumulative = true
		if chance(0.9) {
			r.GroupBy, r.TopN, r.Sort = pick("day", "day", "week", "month", "quarter"), 0, nil
		}
	}
	if r.Tool == "sales" && chance(0.2) || chance(0.03) {
		r.CompareTo = "target"
		if chance(0.8) {
			r.GroupBy, r.Cumulative, r.CompareCounts = pick("", "team"), false, false
			if !slices.Contains(r.Metrics, "submitted_sales") && !slices.Contains(r.Metrics, "close_rate") {
				r.Metrics = nil
			}
		}
		if chance(0.7) {
			r.Period = &reference.Period{Named: pick("last_week", "this_week", "week_to_date", "last_month", "this_month", "month_to_date")}
		}
	} else if chance(0.25) {
		r.CompareTo = pick("previous_period", "previous_period", "previous_year")
		if chance(0.85) {
			r.GroupBy = pick("", "", "team", "agent")
		}
		if chance(0.5) {
			// Mostly periods whose days are final, so that most comparisons
			// are answered rather than refused.
			if chance(0.5) {
				r.Period = &reference.Period{Named: pick("last_week", "last_month", "last_quarter", "last_year", "last_7_days", "last_28_days")}
			} else if chance(0.2) {
				// A whole calendar quarter written as a range: set beside
				// the quarter before, not the 90-odd days before it.
				q := time.Date(today.Year(), (today.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, -3*(1+rng.IntN(3)), 0)
				r.Period = &reference.Period{Start: q.Format(time.DateOnly), End: q.AddDate(0, 3, -1).Format(time.DateOnly)}
			} else {
				end := 3 + rng.IntN(300)
				r.Period = &reference.Period{Start: today.AddDate(0, 0, -end-rng.IntN(35)).Format(time.DateOnly), End: today.AddDate(0, 0, -end).Format(time.DateOnly)}
			}
		}
	}
	drawModes(rng, &r, f.engine.Catalog().Version())
	return r
}

// floorChanges are the days in the last sixteen weeks on which a team
// joined or left the floor.
func floorChanges(f *floorAt) []time.Time {
	var out []time.Time
	from := today(f).AddDate(0, 0, -7*16)
	for _, ds := range f.raw.Decisions {
		for i, d := range ds {
			if i > 0 && !d.From.Before(from) && !d.From.After(today(f)) {
				out = append(out, d.From)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// drawTargetPeriod draws a week or calendar month in the last sixteen
// weeks, whole or so far: named, a week (often one a team joins or leaves
// the floor in), or a month from its first day to its last or to today.
func drawTargetPeriod(rng *rand.Rand, f *floorAt) *reference.Period {
	today := today(f)
	switch x := rng.Float64(); {
	case x < 0.45:
		names := []string{"week_to_date", "this_week", "month_to_date", "this_month", "last_week", "last_month"}
		return &reference.Period{Named: names[rng.IntN(len(names))]}
	case x < 0.75:
		if changes := floorChanges(f); len(changes) > 0 && rng.Float64() < 0.4 {
			d := changes[rng.IntN(len(changes))]
			return &reference.Period{Week: d.AddDate(0, 0, rng.IntN(3)-1).Format(time.DateOnly)}
		}
		return &reference.Period{Week: today.AddDate(0, 0, -rng.IntN(7*16)).Format(time.DateOnly)}
	}
	first := time.Date(today.Year(), today.Month()-time.Month(rng.IntN(4)), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	if last.After(today) {
		last = today
	}
	return &reference.Period{Start: first.Format(time.DateOnly), End: last.Format(time.DateOnly)}
}

func drawTeamOrFloor(rng *rand.Rand, f *floorAt) *reference.Who {
	if rng.Float64() < 0.4 {
		return &reference.Who{Floor: true}
	}
	t := f.raw.Teams[rng.IntN(len(f.raw.Teams))]
	if rng.Float64() < 0.3 {
		return &reference.Who{Team: t.Name}
	}
	return &reference.Who{Team: t.Key}
}

// drawTargets draws sales beside targets: the floor, a team, or the floor
// by team, over a week or month of the last sixteen weeks.
func drawTargets(rng *rand.Rand, f *floorAt) reference.Request {
	r := reference.Request{Tool: "sales", CompareTo: "target", Period: drawTargetPeriod(rng, f), Who: drawTeamOrFloor(rng, f)}
	if r.Who.Floor && rng.Float64() < 0.5 {
		r.GroupBy = "team"
	}
	switch x := rng.Float64(); {
	case x < 0.5:
	case x < 0.65:
		r.Metrics = []string{"submitted_sales"}
	case x < 0.75:
		r.Metrics = []string{"close_rate"}
	default:
		r.Metrics = subset(rng, reference.Reports()["sales"], 3)
		if !slices.Contains(r.Metrics, "submitted_sales") && !slices.Contains(r.Metrics, "close_rate") {
			r.Metrics = append(r.Metrics, "submitted_sales")
		}
	}
	if r.GroupBy == "team" && rng.Float64() < 0.15 {
		r.Sort = &reference.Sort{Metric: "submitted_sales", Direction: "desc"}
		if r.Metrics != nil && !slices.Contains(r.Metrics, "submitted_sales") {
			r.Metrics = append(r.Metrics, "submitted_sales")
		}
	}
	drawModes(rng, &r, f.engine.Catalog().Version())
	return r
}

// drawLeagueByAttainment draws a league ranked by attainment over a week or
// month of the last sixteen weeks.
func drawLeagueByAttainment(rng *rand.Rand, f *floorAt) reference.Request {
	r := reference.Request{Tool: "league", RankBy: "attainment", Period: drawTargetPeriod(rng, f)}
	by := []string{"submitted_sales", "close_rate"}[rng.IntN(2)]
	if rng.Float64() < 0.5 {
		r.Sort = &reference.Sort{Metric: by, Direction: []string{"desc", "asc"}[rng.IntN(2)]}
	}
	if rng.Float64() < 0.4 {
		var offered []string
		for _, ms := range reference.Reports() {
			offered = append(offered, ms...)
		}
		sort.Strings(offered)
		r.Metrics = subset(rng, offered, 2)
		if !slices.Contains(r.Metrics, by) {
			r.Metrics = append([]string{by}, r.Metrics...)
		}
	}
	drawModes(rng, &r, f.engine.Catalog().Version())
	return r
}

// drawToDate draws a comparison with the previous period over a period run
// to today, or over a week in which an agent moved teams or a team joined
// or left the floor: for a team, the floor or an agent, by team or agent.
func drawToDate(rng *rand.Rand, f *floorAt) reference.Request {
	reps := []string{"sales", "hours", "quality"}
	r := reference.Request{Tool: reps[rng.IntN(len(reps))], CompareTo: []string{"previous_period", "previous_period", "previous_year"}[rng.IntN(3)]}
	r.GroupBy = []string{"", "", "team", "agent"}[rng.IntN(4)]
	if rng.Float64() < 0.3 {
		r.Metrics = subset(rng, reference.Reports()[r.Tool], 3)
	}
	today := today(f)
	if rng.Float64() < 0.55 {
		r.Who = drawWho(rng, f)
		names := []string{"this_week", "week_to_date", "this_month", "month_to_date", "this_quarter", "quarter_to_date", "this_year", "year_to_date"}
		if rng.Float64() < 0.8 {
			r.Period = &reference.Period{Named: names[rng.IntN(len(names))]}
		} else {
			r.Period = &reference.Period{Week: today.Format(time.DateOnly)}
		}
		drawModes(rng, &r, f.engine.Catalog().Version())
		return r
	}
	if changes := floorChanges(f); len(changes) > 0 && rng.Float64() < 0.25 {
		r.Who = &reference.Who{Floor: true}
		r.Period = &reference.Period{Week: changes[rng.IntN(len(changes))].Format(time.DateOnly)}
		drawModes(rng, &r, f.engine.Catalog().Version())
		return r
	}
	// A week, not this one, in which an agent moved: the team they left,
	// the team they joined, or the floor.
	type move struct {
		from, to string
		at       time.Time
	}
	var moves []move
	for _, ms := range f.raw.Moves {
		for i := 1; i < len(ms); i++ {
			if ms[i].From.Before(today.AddDate(0, 0, -7*50)) || !ms[i].From.Before(mondayOf(today)) {
				continue
			}
			moves = append(moves, move{ms[i-1].Team, ms[i].Team, ms[i].From})
		}
	}
	sort.Slice(moves, func(i, j int) bool {
		return moves[i].at.Before(moves[j].at) || moves[i].at.Equal(moves[j].at) && moves[i].to < moves[j].to
	})
	m := moves[rng.IntN(len(moves))]
	r.Period = &reference.Period{Week: m.at.Format(time.DateOnly)}
	switch x := rng.Float64(); {
	case x < 0.4:
		r.Who = &reference.Who{Team: m.from}
	case x < 0.8:
		r.Who = &reference.Who{Team: m.to}
	default:
		r.Who = &reference.Who{Floor: true}
	}
	drawModes(rng, &r, f.engine.Catalog().Version())
	return r
}

func drawModes(rng *rand.Rand, r *reference.Request, version string) {
	if rng.Float64() < 0.15 {
		r.Compact = true
	}
	switch x := rng.Float64(); {
	case x < 0.06:
		r.KnownDefinitions = "0123456789abcdef"
	case x < 0.12:
		r.KnownDefinitions = version
	}
}

func drawWho(rng *rand.Rand, f *floorAt) *reference.Who {
	agents, teams := f.raw.Agents, f.raw.Teams
	switch x := rng.Float64(); {
	case x < 0.32:
		return &reference.Who{Floor: true}
	case x < 0.62:
		t := teams[rng.IntN(len(teams))]
		switch y := rng.Float64(); {
		case y < 0.5:
			return &reference.Who{Team: t.Key}
		case y < 0.85:
			return &reference.Who{Team: strings.ToLower(t.Name)}
		case y < 0.9:
			return &reference.Who{Team: t.Name[:1]}
		case y < 0.97:
			return &reference.Who{Team: misspell(rng, t.Name)}
		default:
			return &reference.Who{Team: "Nobody's team"}
		}
	default:
		a := agents[rng.IntN(len(agents))]
		switch y := rng.Float64(); {
		case y < 0.45:
			return &reference.Who{Agent: a.Key}
		case y < 0.6:
			return &reference.Who{Agent: strings.ToUpper(a.Email)}
		case y < 0.78:
			return &reference.Who{Agent: a.Name}
		case y < 0.85:
			first, last, _ := strings.Cut(a.Name, " ")
			return &reference.Who{Agent: first + " " + last[:min(3, len(last))]}
		case y < 0.93:
			return &reference.Who{Agent: misspell(rng, a.Name)}
		case y < 0.97:
			return &reference.Who{Agent: misspell(rng, a.Email)}
		default:
			return &reference.Who{Agent: "Zebediah Quux"}
		}
	}
}

// misspell types a name or an email wrong, as people do: one to three
// letters dropped, doubled, swapped with the next or replaced, accents
// left off, or all of it in capitals, so that some of it lands close to
// the name, some close to others, and some close to none.
func misspell(rng *rand.Rand, s string) string {
	r := []rune(s)
	for range 1 + rng.IntN(3) {
		if len(r) < 2 {
			break
		}
		i := rng.IntN(len(r) - 1)
		switch rng.IntN(6) {
		case 0:
			r = append(r[:i:i], r[i+1:]...)
		case 1:
			r = append(r[:i+1:i+1], r[i:]...)
		case 2:
			r[i], r[i+1] = r[i+1], r[i]
		case 3:
			r[i] = rune('a' + rng.IntN(26))
		case 4:
			r = []rune(strings.NewReplacer("é", "e", "ñ", "n", "í", "i", "á", "a", "ó", "o", "ü", "u").Replace(string(r)))
		default:
			r = []rune(strings.ToUpper(string(r)))
		}
	}
	return string(r)
}

func drawPeriod(rng *rand.Rand, today time.Time) *reference.Period {
	day := func(back int) string { return today.AddDate(0, 0, -back).Format(time.DateOnly) }
	switch x := rng.Float64(); {
	case x < 0.4:
		names := []string{"today", "yesterday", "this_week", "last_week", "this_month", "last_month", "this_quarter", "last_quarter",
			"this_year", "last_year", "last_7_days", "last_28_days", "week_to_date", "month_to_date", "quarter_to_date", "year_to_date", "aep"}
		return &reference.Period{Named: names[rng.IntN(len(names))]}
	case x < 0.58:
		switch y := rng.Float64(); {
		case y < 0.03:
			return &reference.Period{Day: "1900-01-01"}
		case y < 0.05:
			return &reference.Period{Day: day(-3)}
		}
		return &reference.Period{Day: day(rng.IntN(420))}
	case x < 0.73:
		return &reference.Period{Week: day(rng.IntN(420))}
	default:
		end := rng.IntN(410) - 2
		length := 1 + rng.IntN(130)
		switch y := rng.Float64(); {
		case y < 0.5:
			length = 1 + rng.IntN(35)
		case y < 0.65:
			// Past 120 days, up to and past 24 months: answered only
			// without rows by day.
			length = 100 + rng.IntN(660)
		}
		return &reference.Period{Start: day(end + length - 1), End: day(end)}
	}
}

func subset(rng *rand.Rand, xs []string, most int) []string {
	n := 1 + rng.IntN(min(most, len(xs)))
	perm := rng.Perm(len(xs))
	out := make([]string, n)
	for i := range out {
		out[i] = xs[perm[i]]
	}
	return out
}

func drawSort(rng *rand.Rand, chosen, offered []string) *reference.Sort {
	from := chosen
	if from == nil || rng.Float64() < 0.1 {
		from = offered
	}
	dir := "desc"
	if rng.Float64() < 0.35 {
		dir = "asc"
	}
	return &reference.Sort{Metric: from[rng.IntN(len(from))], Direction: dir}
}

// difference is one way an engine answer differs from the reference's:
// its class (what differs, in words that do not vary from one request to
// the next) and the details.
type difference struct{ class, detail string }

type differences []difference

func (d differences) String() string {
	var parts []string
	for _, x := range d {
		parts = append(parts, x.detail)
	}
	return strings.Join(parts, "; ")
}

// classes names the mismatch's classes, each prefixed with the request's
// kind: its tool and what it compares with.
func (d differences) classes(req reference.Request) []string {
	kind := req.Tool
	if req.CompareTo != "" {
		kind += " beside " + req.CompareTo
	}
	if req.RankBy == "attainment" {
		kind += " by attainment"
	}
	var out []string
	for _, x := range d {
		c := kind + ": " + x.class
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// compare says how an engine answer differs from the reference's.
func compare(got *reports.Answer, want *reference.Expected) differences {
	var diffs differences
	add := func(class, format string, args ...any) {
		diffs = append(diffs, difference{class, fmt.Sprintf(format, args...)})
	}
	b, err := json.Marshal(got.Body)
	if err != nil {
		add("unmarshalable", "the answer does not marshal: %v", err)
		return diffs
	}
	var body map[string]any
	json.Unmarshal(b, &body)
	switch {
	case want.Refusal != nil:
		if got.Refusal == nil {
			add("answered, want refusal "+want.Refusal.Code+" "+want.Refusal.Argument, "want refusal %+v", *want.Refusal)
		} else if got.Refusal.Code != want.Refusal.Code || got.Refusal.Argument != want.Refusal.Argument {
			add("refused "+got.Refusal.Code+" "+got.Refusal.Argument+", want refusal "+want.Refusal.Code+" "+want.Refusal.Argument,
				"refused (%s %s: %s), want refusal %+v", got.Refusal.Code, got.Refusal.Argument, got.Refusal.Rule, *want.Refusal)
		}
		return diffs
	case got.Refusal != nil:
		add("refused "+got.Refusal.Code+" "+got.Refusal.Argument+", want an answer",
			"refused (%s %s: %s), want an answer", got.Refusal.Code, got.Refusal.Argument, got.Refusal.Rule)
		return diffs
	case want.Candidates != nil:
		var keys []string
		cands, _ := body["candidates"].([]any)
		for _, c := range cands {
			m := c.(map[string]any)
			keys = append(keys, fmt.Sprint(m["agent_key"])+fmt.Sprint(m["team_key"]))
		}
		for i, k := range keys {
			keys[i] = strings.ReplaceAll(k, "<nil>", "")
		}
		if !slices.Equal(keys, want.Candidates) {
			add("candidates", "candidates %v, want %v", keys, want.Candidates)
		}
		// Candidates close to a name typed wrong say so; matches do not.
		notes, _ := body["notes"].([]any)
		if said := len(notes) > 0 && strings.Contains(fmt.Sprint(notes[0]), "close to it"); said != want.Close {
			add("candidates said close", "the note says close: %v, want %v", said, want.Close)
		}
		return diffs
	case body["candidates"] != nil:
		add("candidates, want figures", "candidates, want figures")
		return diffs
	}
	if want.Teams != nil {
		if d := compareRoster(body, want); d != "" {
			add("roster", "%s", d)
		}
		return diffs
	}
	if _, ok := body["sources"]; ok {
		if d := compareFreshness(body, want); d != "" {
			add("freshness", "%s", d)
		}
		return diffs
	}
	p, _ := body["period"].(map[string]any)
	if p["start"] != want.Start || p["end"] != want.End || p["days"] != float64(want.Days) {
		add("period", "period %v..%v (%v days), want %s..%s (%d days)", p["start"], p["end"], p["days"], want.Start, want.End, want.Days)
	}
	if asked, _ := p["asked_end"].(string); asked != want.AskedEnd {
		add("period.asked_end", "period.asked_end %v, want %q", p["asked_end"], want.AskedEnd)
	}
	prev, _ := body["previous_period"].(map[string]any)
	switch {
	case want.Previous == nil && prev != nil:
		add("previous_period", "previous_period %v, want none", prev)
	case want.Previous != nil && (prev["start"] != want.Previous[0] || prev["end"] != want.Previous[1] || prev["days"] != float64(days(want.Previous))):
		add("previous_period", "previous_period %v, want %v (%d days)", prev, want.Previous, days(want.Previous))
	}
	req, _ := body["request"].(map[string]any)
	if want.Sort != nil {
		s, _ := req["sort"].(map[string]any)
		if s["metric"] != want.Sort.Metric || s["direction"] != want.Sort.Direction {
			add("sort", "sort %v, want %+v", req["sort"], *want.Sort)
		}
	}
	if want.Metrics != nil && !reflect.DeepEqual(req["metrics"], anyOf(want.Metrics)) {
		add("metrics", "metrics %v, want %v", req["metrics"], want.Metrics)
	}
	if want.Sections == nil {
		if !reflect.DeepEqual(body["columns"], anyOf(want.Columns)) {
			add("columns"+columnsDiffer(toStrings(body["columns"]), want.Columns), "columns %v, want %v", body["columns"], want.Columns)
		} else if class, d := compareRows(want.Columns, body["rows"], want.Rows); d != "" {
			add("rows: "+class, "%s", d)
		}
		if body["truncated"] != want.Truncated {
			add("truncated", "truncated %v, want %v", body["truncated"], want.Truncated)
		}
	}
	secs, _ := body["sections"].([]any)
	for i, s := range want.Sections {
		if i >= len(secs) {
			add("sections", "no section %s", s.ID)
			continue
		}
		sec := secs[i].(map[string]any)
		if sec["id"] != s.ID || !reflect.DeepEqual(sec["columns"], anyOf(s.Columns)) || sec["truncated"] != s.Truncated {
			add("section "+s.ID+" columns"+columnsDiffer(toStrings(sec["columns"]), s.Columns),
				"section %v: columns %v truncated %v, want %s %v %v", sec["id"], sec["columns"], sec["truncated"], s.ID, s.Columns, s.Truncated)
			continue
		}
		if class, d := compareRows(s.Columns, sec["rows"], s.Rows); d != "" {
			add("section "+s.ID+" rows: "+class, "section %s: %s", s.ID, d)
		}
		var total [][]any
		if s.Total != nil {
			total = [][]any{s.Total}
		}
		gotTotal, _ := sec["total"].([]any)
		if class, d := compareRows(s.Columns, wrap(gotTotal), total); d != "" {
			add("section "+s.ID+" total: "+class, "section %s total: %s", s.ID, d)
		}
	}
	partial := toStrings(body["partial_metrics"])
	sort.Strings(partial)
	if !slices.Equal(partial, orEmpty(want.PartialMetrics)) {
		add("partial_metrics", "partial_metrics %v, want %v", partial, want.PartialMetrics)
	}
	warnings := slices.Clone(got.Warnings)
	sort.Strings(warnings)
	if !slices.Equal(warnings, orEmpty(want.Warnings)) {
		for _, w := range warnings {
			if !slices.Contains(want.Warnings, w) {
				add("warning "+w+" not wanted", "warning %s not wanted", w)
			}
		}
		for _, w := range want.Warnings {
			if !slices.Contains(warnings, w) {
				add("no warning "+w, "no warning %s", w)
			}
		}
		diffs[len(diffs)-1].detail += fmt.Sprintf(" (warnings %v, want %v)", warnings, want.Warnings)
	}
	metrics, _ := body["metrics"].(map[string]any)
	for id, th := range want.Through {
		m, _ := metrics[id].(map[string]any)
		dt, _ := m["data_through"].(map[string]any)
		if dt["runs_to"] != th[0] || dt["complete_through"] != th[1] {
			add("data_through", "%s data_through %v, want %v", id, dt, th)
		}
		left, _ := m["left_out"].(float64)
		if left != want.LeftOut[id] {
			add("left_out", "%s left_out %v, want %v", id, m["left_out"], want.LeftOut[id])
		}
	}
	stamped := map[string]bool{}
	for id := range metrics {
		stamped[id] = true
	}
	for id := range want.Targets {
		stamped[id] = true
	}
	for id := range stamped {
		m, _ := metrics[id].(map[string]any)
		stamp, has := want.Targets[id]
		switch got, ok := m["target"].(map[string]any); {
		case !has && ok:
			add("metrics.<m>.target not wanted", "metrics.%s.target %v, want none", id, got)
		case has && !ok:
			add("no metrics.<m>.target", "no metrics.%s.target, want %+v", id, stamp)
		case has:
			w := map[string]any{"period": stamp.Period, "start": stamp.Start, "end": stamp.End, "days": float64(stamp.Days),
				"counted_from": stamp.CountedFrom, "counted_through": stamp.CountedThrough, "counted_days": float64(stamp.CountedDays)}
			for _, k := range []string{"period", "start", "end", "days", "counted_from", "counted_through", "counted_days"} {
				if !reflect.DeepEqual(got[k], w[k]) {
					add("metrics.<m>.target."+k, "metrics.%s.target %v, want %v", id, got, w)
					break
				}
			}
		}
	}
	return diffs
}

// days counts the days of a start and end.
func days(startEnd []string) int {
	a, _ := time.Parse(time.DateOnly, startEnd[0])
	b, _ := time.Parse(time.DateOnly, startEnd[1])
	return int(b.Sub(a).Hours()/24) + 1
}

// columnsDiffer names the columns one list has and the other lacks.
func columnsDiffer(got, want []string) string {
	var extra, missing []string
	for _, c := range got {
		if !slices.Contains(want, c) {
			extra = append(extra, c)
		}
	}
	for _, c := range want {
		if !slices.Contains(got, c) {
			missing = append(missing, c)
		}
	}
	if extra == nil && missing == nil {
		return " in another order"
	}
	return fmt.Sprintf(" %v not wanted, %v missing", extra, missing)
}

func wrap(row []any) any {
	if row == nil {
		return []any{}
	}
	return []any{row}
}

func anyOf(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func toStrings(v any) []string {
	var out []string
	xs, _ := v.([]any)
	for _, x := range xs {
		out = append(out, fmt.Sprint(x))
	}
	return orEmpty(out)
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// compareRows compares rows cell by cell: exactly, but for ratios, their
// changes and attainments (columns the engine divides from summed doubles
// and states to six significant digits), to the sixth significant digit,
// and for targets (four decimals, summed), to a billionth. It returns the
// class of the first difference (the column's name, less the metric's) and
// its details.
func compareRows(columns []string, got any, want [][]any) (string, string) {
	rows, _ := got.([]any)
	if want == nil {
		want = [][]any{}
	}
	if len(rows) != len(want) {
		return "count", fmt.Sprintf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		row, _ := r.([]any)
		if len(row) != len(want[i]) {
			return "cells", fmt.Sprintf("row %d has %d cells, want %d: %v", i, len(row), len(want[i]), want[i])
		}
		for j, cell := range row {
			w := want[i][j]
			gf, gok := cell.(float64)
			wf, wok := w.(float64)
			tolerance := -1.0
			if gok && wok {
				tolerance = within(columns, j, len(row))
			}
			if tolerance >= 0 && math.Abs(gf-wf) <= tolerance*math.Abs(wf)+1e-12 || tolerance < 0 && reflect.DeepEqual(cell, w) {
				continue
			}
			return columnClass(columns, j, len(row)), fmt.Sprintf("row %d cell %d: %v, want %v (row %v, want %v)", i, j, cell, w, row, want[i])
		}
	}
	return "", ""
}

// within is how far apart cell j of a row may be from the reference's, as a
// share of it; -1 for exactly.
func within(columns []string, j, cells int) float64 {
	off := cells - len(columns) // a rank column before the columns named
	k := j - off
	switch {
	case k < 0 || k >= len(columns):
		return -1
	case k+1 < len(columns) && columns[k+1] == columns[k]+"_numerator",
		k > 0 && strings.HasSuffix(columns[k-1], "_previous_denominator"),
		strings.HasSuffix(columns[k], "_attainment"), strings.HasSuffix(columns[k], "_target_gap_points"):
		return 2e-6
	case strings.HasSuffix(columns[k], "_target"):
		return 1e-9
	}
	return -1
}

// columnClass names cell j's column, or the rank column before them.
func columnClass(columns []string, j, cells int) string {
	if k := j - (cells - len(columns)); k >= 0 && k < len(columns) {
		return columns[k]
	}
	return "rank"
}

func compareRoster(body map[string]any, want *reference.Expected) string {
	if rows, ok := body["rows"].([]any); ok && body["columns"] != nil && slices.Contains(toStrings(body["columns"]), "current_on_day") {
		var got [][]any
		for _, r := range rows {
			row := r.([]any)
			got = append(got, []any{row[0], row[2]})
		}
		if !reflect.DeepEqual(orNone(got), orNone(want.Teams)) {
			return fmt.Sprintf("agent's teams %v, want %v", got, want.Teams)
		}
		return ""
	}
	var got [][]any
	teams, _ := body["teams"].([]any)
	for _, t := range teams {
		m := t.(map[string]any)
		got = append(got, []any{m["team"], m["on_floor"], m["agents"]})
	}
	if !reflect.DeepEqual(orNone(got), orNone(want.Teams)) {
		return fmt.Sprintf("teams %v, want %v", got, want.Teams)
	}
	return ""
}

func orNone(xs [][]any) [][]any {
	if xs == nil {
		return [][]any{}
	}
	return xs
}

func compareFreshness(body map[string]any, want *reference.Expected) string {
	srcs, _ := body["sources"].(map[string]any)
	var diffs []string
	for rel, th := range want.Through {
		if strings.HasSuffix(rel, " first_day") {
			s, _ := srcs[strings.TrimSuffix(rel, " first_day")].(map[string]any)
			if s["first_day"] != th[0] {
				diffs = append(diffs, fmt.Sprintf("%s first_day %v, want %v", rel, s["first_day"], th[0]))
			}
			continue
		}
		s, _ := srcs[rel].(map[string]any)
		dt, _ := s["data_through"].(map[string]any)
		if dt["runs_to"] != th[0] || dt["complete_through"] != th[1] {
			diffs = append(diffs, fmt.Sprintf("%s data_through %v, want %v", rel, dt, th))
		}
	}
	return strings.Join(diffs, "; ")
}

// Regressions: each mistake found, by hand or by the differential test,
// stays a named case compared with the reference.
func TestRegressions(t *testing.T) {
	fs := map[string]*floorAt{}
	for _, f := range floors(t) {
		fs[f.name] = f
	}
	floor, hawks := &reference.Who{Floor: true}, &reference.Who{Team: "hawks"}
	for _, c := range []struct {
		name, at string
		req      reference.Request
	}{
		{"top_n without sort read as a ranking, in key order", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_week"}, GroupBy: "agent", TopN: 3}},
		{"approval rate counting unsettled approvals as declined", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_28_days"}, Metrics: []string{"approval_rate", "sales_per_hour"}}},
		{"weeks cut by last_28_days unmarked", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Named: "last_28_days"}, GroupBy: "week"}},
		{"last week partial on a Monday for want of Sunday rows", "Monday 09:00",
			reference.Request{Tool: "league", Period: &reference.Period{Named: "last_week"}}},
		{"nothing by team on the 1st of a month", "the 1st of a month",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "this_month"}, GroupBy: "team"}},
		{"close rate by team today, empty", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "today"}, GroupBy: "team", Metrics: []string{"close_rate"}}},
		{"a day before the data answered with a null row", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: floor, Period: &reference.Period{Day: "1900-01-01"}}},
		{"a loaded holiday read as missing data", "the morning after a holiday",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "yesterday"}, GroupBy: "team"}},
		// Before the load has run, yesterday's default figures come from the
		// live board; a sort by a nightly metric then named a metric the
		// answer no longer held, and ranking by it failed.
		{"a sort by a metric the live swap took out", "while the nightly load runs",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "yesterday"}, GroupBy: "team",
				Sort: &reference.Sort{Metric: "close_rate", Direction: "desc"}}},
		{"a month against the month before, by team, a team leaving the floor between them", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: floor, Period: &reference.Period{Start: "2026-10-01", End: "2026-10-31"}, GroupBy: "team",
				CompareTo: "previous_period"}},
		{"a week against the week before, by agent, an agent moving mid-week", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Week: "2026-11-02"}, GroupBy: "agent", CompareTo: "previous_period"}},
		{"a target raised mid-month, and a team without one, by team", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_month"}, GroupBy: "team", CompareTo: "target"}},
		{"a month so far against its pro-rated target", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Named: "month_to_date"}, CompareTo: "target"}},
		{"a running total by day over a quarter so far", "the 1st of a month",
			reference.Request{Tool: "quality", Who: hawks, Period: &reference.Period{Named: "quarter_to_date"}, GroupBy: "day", Cumulative: true}},
		// Issue 40's rules.
		{"a team that joins the floor on a Thursday, beside its week's target by team", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Week: "2026-09-24"}, GroupBy: "team", CompareTo: "target"}},
		{"a week so far against the same weekdays of the week before", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: &reference.Who{Team: "falcons"}, Period: &reference.Period{Named: "this_week"}, CompareTo: "previous_period"}},
		// Over days no nightly build has loaded, the defaults became the
		// live board's count, which has no targets, and the call was refused.
		{"a month so far beside targets on its 1st, nothing counted yet", "the 1st of a month",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Named: "month_to_date"}, CompareTo: "target"}},
		// A team without a target row had no no_target note when it had no
		// day on the floor among the counted days.
		{"a team gone from the floor, with no target for last week", "Monday 09:00",
			reference.Request{Tool: "sales", Who: &reference.Who{Team: "harriers"}, Period: &reference.Period{Named: "last_week"}, Metrics: []string{"submitted_sales"},
				CompareTo: "target"}},
		{"a team without a monthly target, by team, nothing counted yet", "the Sunday the clocks go back",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "this_month"}, GroupBy: "team", CompareTo: "target"}},
		// The floor has no close rate target, with a note, counted days or not.
		{"the floor's close rate beside targets on the 1st of a month", "the 1st of a month",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "month_to_date"}, CompareTo: "target"}},
		// A month so far compared through its last final day is ranked over
		// final days only, and was refused as a ranking over days not final.
		{"agents ranked over a month so far against the same days of the month before", "the Sunday the clocks go forward",
			reference.Request{Tool: "hours", Who: floor, Period: &reference.Period{Named: "this_month"}, GroupBy: "agent", TopN: 8, CompareTo: "previous_period"}},
		// Calendar quarters and years.
		{"last quarter against the quarter before, by team", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_quarter"}, GroupBy: "team", CompareTo: "previous_period"}},
		{"a whole quarter written as a range, against the quarter before", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: hawks, Period: &reference.Period{Start: "2026-07-01", End: "2026-09-30"}, CompareTo: "previous_period"}},
		{"this quarter on its 1st against the quarter before", "the 1st of a month",
			reference.Request{Tool: "quality", Who: floor, Period: &reference.Period{Named: "this_quarter"}, CompareTo: "previous_period"}},
		{"last year by week, starting before the data, more weeks than rows", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Named: "last_year"}, GroupBy: "week"}},
		{"a year so far by day, longer than rows by day hold", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: floor, Period: &reference.Period{Named: "year_to_date"}, GroupBy: "day"}},
		{"a running total over a year so far", "Monday 09:00",
			reference.Request{Tool: "sales", Who: hawks, Period: &reference.Period{Named: "this_year"}, GroupBy: "day", Cumulative: true}},
		{"a year so far against last year's same days, before the data", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "year_to_date"}, CompareTo: "previous_period"}},
		{"the league over last quarter", "the Sunday the clocks go back",
			reference.Request{Tool: "league", Period: &reference.Period{Named: "last_quarter"}}},
		// The same days a year earlier.
		{"last week beside the same ISO week a year earlier, by team", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_week"}, GroupBy: "team", CompareTo: "previous_year"}},
		{"a month so far beside the same days a year earlier", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: hawks, Period: &reference.Period{Named: "this_month"}, CompareTo: "previous_year"}},
		{"a week so far beside the same weekdays a year earlier, by agent", "Wednesday afternoon, today partial",
			reference.Request{Tool: "quality", Who: hawks, Period: &reference.Period{Named: "this_week"}, GroupBy: "agent", CompareTo: "previous_year"}},
		{"last month beside the same month a year earlier, before the data", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_month"}, CompareTo: "previous_year"}},
		{"a year earlier by month, refused", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_week"}, GroupBy: "month", CompareTo: "previous_year"}},
		{"agents over last year, ranked", "the morning after a holiday",
			reference.Request{Tool: "hours", Who: floor, Period: &reference.Period{Named: "last_year"}, GroupBy: "agent", TopN: 5}},
		// Months and quarters.
		{"last year by month, its first months before the data", "Wednesday afternoon, today partial",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Named: "last_year"}, GroupBy: "month"}},
		{"two years less a day by quarter, cut at both ends", "Wednesday afternoon, today partial",
			reference.Request{Tool: "hours", Who: hawks, Period: &reference.Period{Start: "2024-11-19", End: "2026-11-17"}, GroupBy: "quarter"}},
		{"a running total by month over a year so far", "the 1st of a month",
			reference.Request{Tool: "quality", Who: floor, Period: &reference.Period{Named: "year_to_date"}, GroupBy: "month", Cumulative: true}},
		{"a range past 120 days by team", "Monday 09:00",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Start: "2026-03-01", End: "2026-11-15"}, GroupBy: "team"}},
		{"a range past 120 days by day", "Monday 09:00",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Start: "2026-03-01", End: "2026-11-15"}, GroupBy: "day"}},
		{"a range longer than 24 months", "Monday 09:00",
			reference.Request{Tool: "sales", Who: floor, Period: &reference.Period{Start: "2024-11-15", End: "2026-11-15"}, GroupBy: "month"}},
		{"the league over eight months", "Monday 09:00",
			reference.Request{Tool: "league", Period: &reference.Period{Start: "2026-03-01", End: "2026-11-08"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fs[c.at]
			got := f.engine.Call(context.Background(), ask.Caller{Person: "reference"}, c.req.Tool, c.req.JSON())
			want := f.raw.Evaluate(c.req, f.now, f.engine.Catalog().Version())
			if diff := compare(got, want); len(diff) > 0 {
				b, _ := json.Marshal(got.Body)
				t.Errorf("%s at %s: %s\n  engine: %s\n  reference: %+v", c.req, f.now.Format(time.RFC3339), diff, b, *want)
			}
		})
	}
}
