package reference

import (
	"math"
	"sort"
	"time"
)

// world is the floor as of one moment, laid out day by day once: for every
// agent and every day of the calendar the team they were on and whether they
// were on the staff, for every team and day whether it was on the floor, each
// agent-day's stored values, each source's loaded days, and each target's
// latest version. Every rule reads these tables; none walks a history.
type world struct {
	now     time.Time
	cal     *calendar
	today   int
	teams   []*teamDays
	teamNo  map[string]int
	agents  []*agentDays
	agentNo map[string]int
	loaded  map[*source]span // absent: nothing loaded
	targets map[targetKey]float64
}

type teamDays struct {
	key, name string
	floor     []bool // by day: on the floor
	decided   []bool // by day: some decision about it in force
}

type agentDays struct {
	Agent
	team  []int // by day: the team's number, -1 for none
	staff []bool
	moves []int // the days a later team row takes effect
	first int   // the first day of vals
	vals  []dayValues
}

// dayValues are an agent-day's stored rows: which sources have one, their
// values by field (hours in hundredths) and which are NULL.
type dayValues struct {
	row  [4]bool
	v    [fieldCount]int64
	null [fieldCount]bool
}

type targetKey struct {
	team, metric, kind string
	start              int
}

// world lays the floor out as of now, or gives the layout already made.
func (f *Floor) world(now time.Time) *world {
	if f.seen != nil && f.seen.now.Equal(now) {
		return f.seen
	}
	f.seen = lay(f, now)
	return f.seen
}

func lay(f *Floor, now time.Time) *world {
	local := now.In(NY)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	// The calendar runs from the earliest date the tables hold (and at
	// least four years back) to a few weeks past today, for settle rules.
	first := today.AddDate(-4, 0, 0)
	early := func(d time.Time) {
		if d.Before(first) {
			first = d
		}
	}
	for _, a := range f.Agents {
		early(a.Hired)
	}
	for _, ms := range f.Moves {
		for _, m := range ms {
			early(m.From)
		}
	}
	for _, ds := range f.Decisions {
		for _, d := range ds {
			early(d.From)
		}
	}
	for _, ls := range f.Loads {
		for _, l := range ls {
			early(l.Day)
		}
	}
	w := &world{now: now, teamNo: map[string]int{}, agentNo: map[string]int{}, loaded: map[*source]span{}, targets: map[targetKey]float64{}}
	w.cal = newCalendar(first, int(today.Sub(first).Hours()/24)+45)
	w.today = w.cal.number[today.Format(time.DateOnly)]
	n := len(w.cal.text)
	num := func(d time.Time) int { i, _ := w.cal.dayOf(d.Format(time.DateOnly)); return i }

	for _, t := range f.Teams {
		td := &teamDays{key: t.Key, name: t.Name, floor: make([]bool, n), decided: make([]bool, n)}
		on := map[int]bool{}
		for _, d := range f.Decisions[t.Key] {
			on[num(d.From)] = d.Counts
		}
		counts, decided := false, false
		for i := 0; i < n; i++ {
			if c, ok := on[i]; ok {
				counts, decided = c, true
			}
			td.floor[i], td.decided[i] = counts, decided
		}
		w.teams = append(w.teams, td)
	}
	sort.Slice(w.teams, func(i, j int) bool { return w.teams[i].key < w.teams[j].key })
	for i, t := range w.teams {
		w.teamNo[t.key] = i
	}

	for _, a := range f.Agents {
		ad := &agentDays{Agent: a, team: make([]int, n), staff: make([]bool, n)}
		joins := map[int]int{}
		var days []int
		for _, m := range f.Moves[a.Key] {
			t, ok := w.teamNo[m.Team]
			if !ok {
				t = -1
			}
			joins[num(m.From)] = t
			days = append(days, num(m.From))
		}
		sort.Ints(days)
		if len(days) > 1 {
			ad.moves = days[1:]
		}
		hired, left := num(a.Hired), n
		if a.Left != nil {
			left = num(*a.Left)
		}
		current := -1
		for i := 0; i < n; i++ {
			if t, ok := joins[i]; ok {
				current = t
			}
			ad.team[i] = current
			ad.staff[i] = i >= hired && i <= left
		}
		w.agents = append(w.agents, ad)
	}
	sort.Slice(w.agents, func(i, j int) bool { return w.agents[i].Key < w.agents[j].Key })
	for i, a := range w.agents {
		w.agentNo[a.Key] = i
		w.store(f, a, num)
	}

	for _, s := range everySource {
		if s.live {
			lo := -1
			for _, days := range f.Board {
				for d := range days {
					if i := num(d); lo < 0 || i < lo {
						lo = i
					}
				}
			}
			if lo >= 0 {
				w.loaded[s] = span{lo, w.today}
			}
			continue
		}
		lo, hi := 0, -1
		for _, l := range f.Loads[s.relation] {
			if l.Finished == nil {
				continue
			}
			i := num(l.Day)
			if hi < lo || i < lo {
				lo = i
			}
			hi = max(hi, i)
		}
		if hi >= lo {
			w.loaded[s] = span{lo, hi}
		}
	}

	latest := map[targetKey]time.Time{}
	for _, t := range f.Targets {
		k := targetKey{t.Team, t.Metric, t.Kind, num(t.Start)}
		if at, ok := latest[k]; !ok || t.SetAt.After(at) {
			latest[k] = t.SetAt
			w.targets[k] = t.Value
		}
	}
	return w
}

// store lays out an agent's stored rows by day.
func (w *world) store(f *Floor, a *agentDays, num func(time.Time) int) {
	lo, hi := math.MaxInt, math.MinInt
	for _, days := range []map[time.Time]bool{keys(f.Time[a.Key]), keys(f.Sales[a.Key]), keys(f.Quality[a.Key]), keys(f.Board[a.Key])} {
		for d := range days {
			lo, hi = min(lo, num(d)), max(hi, num(d))
		}
	}
	if hi < lo {
		return
	}
	a.first, a.vals = lo, make([]dayValues, hi-lo+1)
	hundredths := func(dv *dayValues, field int, v *float64) {
		if v == nil {
			dv.null[field] = true
			return
		}
		dv.v[field] = int64(math.Round(*v * 100))
	}
	for d, r := range f.Time[a.Key] {
		dv := &a.vals[num(d)-lo]
		dv.row[timeSource.slot] = true
		hundredths(dv, fLogged, r.Logged)
		hundredths(dv, fAvailable, r.Available)
		hundredths(dv, fTalk, r.Talk)
	}
	for d, r := range f.Sales[a.Key] {
		dv := &a.vals[num(d)-lo]
		dv.row[salesSource.slot] = true
		dv.v[fSubmitted], dv.v[fLost] = int64(r.Submitted), int64(r.Lost)
		if r.Approved == nil {
			dv.null[fApproved] = true
		} else {
			dv.v[fApproved] = int64(*r.Approved)
		}
	}
	for d, r := range f.Quality[a.Key] {
		dv := &a.vals[num(d)-lo]
		dv.row[qualitySource.slot] = true
		dv.v[fPassed], dv.v[fFailed] = int64(r.Passed), int64(r.Failed)
	}
	for d, n := range f.Board[a.Key] {
		dv := &a.vals[num(d)-lo]
		dv.row[boardSource.slot] = true
		dv.v[fBoard] = int64(n)
	}
}

func keys[T any](m map[time.Time]T) map[time.Time]bool {
	out := map[time.Time]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// teamOn is the number of the team an agent was on on day d, or -1.
func (w *world) teamOn(a *agentDays, d int) int {
	if !w.cal.has(d) {
		return -1
	}
	return a.team[d]
}

func (w *world) staffOn(a *agentDays, d int) bool { return w.cal.has(d) && a.staff[d] }

func (w *world) floorOn(t, d int) bool { return t >= 0 && w.cal.has(d) && w.teams[t].floor[d] }

func (w *world) isLoaded(s *source, d int) bool {
	l, ok := w.loaded[s]
	return ok && l.holds(d)
}

// coverage is the days every source of a metric is loaded for.
func (w *world) coverage(m *metric) (span, bool) {
	out := span{math.MinInt, math.MaxInt}
	for _, s := range m.sources() {
		l, ok := w.loaded[s]
		if !ok {
			return span{}, false
		}
		out.first, out.last = max(out.first, l.first), min(out.last, l.last)
	}
	return out, out.first <= out.last
}

// agentDay is what one agent-day gives a metric: whether it is one of the
// metric's rows (a loaded row in some source of it), and each term's value
// with whether it is known. A term whose source has no row that day counts
// zero on a day the source is loaded and is unknown on one it is not.
func (w *world) agentDay(m *metric, a *agentDays, d int) (row bool, v [2]int64, known [2]bool) {
	var dv *dayValues
	if i := d - a.first; a.vals != nil && i >= 0 && i < len(a.vals) {
		dv = &a.vals[i]
	}
	for j, t := range m.terms {
		s := t[0].src
		loaded := w.isLoaded(s, d)
		switch {
		case dv != nil && dv.row[s.slot] && loaded:
			row, known[j] = true, true
			for _, c := range t {
				v[j] += dv.v[c.field]
				known[j] = known[j] && !dv.null[c.field]
			}
		case loaded:
			known[j] = true
		}
	}
	return row, v, known
}

// lastWhole is the newest day a settle rule calls final at the world's
// moment: walking back from today to the first day whose settling time has
// passed.
func (w *world) lastWhole(r settleRule) int {
	local := w.now.In(NY)
	for d := w.today; ; d-- {
		s := d + r.after
		at := time.Date(w.cal.year[s], time.Month(w.cal.month[s]), w.cal.dom[s], int(r.at.Hours()), int(r.at.Minutes())%60, 0, 0, NY)
		if !at.After(local) {
			return d
		}
	}
}

// final is how far a metric is final: the earlier of its last loaded day
// and the last day its settle rule calls whole; ok false when nothing is
// loaded.
func (w *world) final(m *metric) (int, bool) {
	c, ok := w.coverage(m)
	if !ok {
		return 0, false
	}
	return min(c.last, w.lastWhole(m.settle)), true
}

// targetOf is a team's latest target for a metric over the target period
// from start.
func (w *world) targetOf(team, metric, kind string, start int) (float64, bool) {
	v, ok := w.targets[targetKey{team, metric, kind, start}]
	return v, ok
}
