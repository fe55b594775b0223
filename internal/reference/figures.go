package reference

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
)

// lens is whose agent-days a figure counts and how they are grouped.
type lens struct {
	who who
	// Team scope beside targets: only the days the team was on the floor.
	floorOnly bool
	by        string // "", team, agent, day, week, month or quarter
}

// counts says whether an agent-day's rows count for the lens: the agent's
// own for an agent, the team the agent was on that day for a team, and for
// the floor a team on the floor that day.
func (w *world) counts(l lens, a *agentDays, d int) bool {
	switch l.who.kind {
	case "agent":
		return a.Key == l.who.key
	case "team":
		t := w.teamOn(a, d)
		return t == l.who.num && (!l.floorOnly || w.floorOn(t, d))
	}
	return w.floorOn(w.teamOn(a, d), d)
}

// groupOf is the group an agent-day falls in; false for none (by team, a
// day the agent was on no team).
func (w *world) groupOf(by string, a *agentDays, d int) (string, bool) {
	switch by {
	case "team":
		t := w.teamOn(a, d)
		if t < 0 {
			return "", false
		}
		return w.teams[t].key, true
	case "agent":
		return a.Key, true
	case "day":
		return w.cal.date(d), true
	case "week":
		return w.cal.date(w.cal.monday(d)), true
	case "month":
		return w.cal.date(w.cal.monthStart(d)), true
	case "quarter":
		return w.cal.date(w.cal.quarterStart(d)), true
	}
	return "", true
}

// tally is one group's rows of one metric: those with every part known,
// their sums, and those with a part unknown (left out).
type tally struct {
	known, unknown int
	sum            [2]int64
}

// ledger is the figures of metrics over a span through a lens, by group.
type ledger struct {
	w       *world
	l       lens
	p       span
	ms      []*metric
	tallies map[string][]tally
	staffed map[string][]bool // by group, by day of the span: an agent on the staff counted for it
	groups  []string          // every group in scope, in key order
}

func (w *world) tabulate(l lens, p span, ms []*metric) *ledger {
	lg := &ledger{w: w, l: l, p: p, ms: ms, tallies: map[string][]tally{}, staffed: map[string][]bool{}}
	for _, a := range w.agents {
		for d := p.first; d <= p.last; d++ {
			if !w.counts(l, a, d) {
				continue
			}
			g, ok := w.groupOf(l.by, a, d)
			if !ok {
				continue
			}
			if w.staffOn(a, d) {
				if lg.staffed[g] == nil {
					lg.staffed[g] = make([]bool, p.days())
				}
				lg.staffed[g][d-p.first] = true
			}
			for i, m := range ms {
				row, v, known := w.agentDay(m, a, d)
				if !row {
					continue
				}
				if lg.tallies[g] == nil {
					lg.tallies[g] = make([]tally, len(ms))
				}
				t := &lg.tallies[g][i]
				if !known[0] || m.ratio() && !known[1] {
					t.unknown++
					continue
				}
				t.known++
				t.sum[0] += v[0]
				t.sum[1] += v[1]
			}
		}
	}
	listed := map[string]bool{}
	for g := range lg.tallies {
		listed[g] = true
	}
	if l.by == "team" || l.by == "agent" {
		for g := range lg.staffed {
			listed[g] = true
		}
	}
	switch l.by {
	case "":
		listed[""] = true
	case "day":
		for d := p.first; d <= p.last; d++ {
			listed[w.cal.date(d)] = true
		}
	case "week", "month", "quarter":
		for d := p.first; d <= p.last; d++ {
			g, _ := w.groupOf(l.by, nil, d)
			listed[g] = true
		}
	case "team":
		switch l.who.kind {
		case "team":
			listed[l.who.key] = true
		case "floor":
			for t, td := range w.teams {
				if w.floorDays(t, p) > 0 {
					listed[td.key] = true
				}
			}
		}
	case "agent":
		if l.who.kind == "agent" {
			listed[l.who.key] = true
		}
	}
	for g := range listed {
		lg.groups = append(lg.groups, g)
	}
	sort.Strings(lg.groups)
	return lg
}

// floorDays counts the days of a span a team was on the floor.
func (w *world) floorDays(t int, p span) int {
	n := 0
	for d := p.first; d <= p.last; d++ {
		if w.floorOn(t, d) {
			n++
		}
	}
	return n
}

// figure is a group's figure of a metric in stored units: ok false for no
// data (null).
type figure struct {
	ok bool
	v  [2]int64
}

// figure of metric i for group g: the sums of its known rows; null when
// every row has a part unknown; zero when it has no rows but an agent on
// the staff counted for it on a day the metric's sources are loaded for;
// else null.
func (lg *ledger) figure(g string, i int) figure {
	var t tally
	if ts := lg.tallies[g]; ts != nil {
		t = ts[i]
	}
	switch {
	case t.known > 0:
		return figure{ok: true, v: t.sum}
	case t.unknown > 0:
		return figure{}
	}
	c, ok := lg.w.coverage(lg.ms[i])
	if !ok {
		return figure{}
	}
	for k, on := range lg.staffed[g] {
		if on && c.holds(lg.p.first+k) {
			return figure{ok: true}
		}
	}
	return figure{}
}

// leftOut counts the rows of metric i left out, over every group.
func (lg *ledger) leftOut(i int) int {
	n := 0
	for _, ts := range lg.tallies {
		n += ts[i].unknown
	}
	return n
}

func (m *metric) scale(j int) int64 { return m.terms[j][0].scale }

// value is a figure as one number for ranking: a sum, or a ratio divided
// from its whole-number parts; false for none.
func (m *metric) value(f figure) (float64, bool) {
	if !f.ok {
		return 0, false
	}
	if !m.ratio() {
		return float64(f.v[0]) / float64(m.scale(0)), true
	}
	if f.v[1] == 0 {
		return 0, false
	}
	return float64(f.v[0]*m.scale(1)) / float64(f.v[1]*m.scale(0)), true
}

// cells writes a figure as an answer states it: a sum alone, a ratio to six
// significant digits with its parts beside it.
func (m *metric) cells(f figure) []any {
	if !m.ratio() {
		if !f.ok {
			return []any{nil}
		}
		return []any{float64(f.v[0]) / float64(m.scale(0))}
	}
	if !f.ok {
		return []any{nil, nil, nil}
	}
	var r any
	if v, ok := m.value(f); ok {
		r = sixDigits(v)
	}
	return []any{r, float64(f.v[0]) / float64(m.scale(0)), float64(f.v[1]) / float64(m.scale(1))}
}

func sixDigits(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'e', 5, 64), 64)
	return v + 0
}

func fourDecimals(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// change is a figure's change from the previous one: a sum's as stated, in
// stored units; a ratio's from each period's own parts, in points for a
// share; null when either is.
func (m *metric) change(cur, was figure) any {
	if !m.ratio() {
		if !cur.ok || !was.ok {
			return nil
		}
		return float64(cur.v[0]-was.v[0]) / float64(m.scale(0))
	}
	a, ok1 := m.value(cur)
	b, ok2 := m.value(was)
	if !ok1 || !ok2 {
		return nil
	}
	if m.unit == unitShare {
		return sixDigits((a - b) * 100)
	}
	return sixDigits(a - b)
}

// add sums two figures part by part, a null adding nothing.
func (f figure) add(o figure) figure {
	if !o.ok {
		return f
	}
	return figure{ok: true, v: [2]int64{f.v[0] + o.v[0], f.v[1] + o.v[1]}}
}

// rankKey is a byte string that sorts as the ranking does: groups with a
// figure first, by the figure in the direction asked, then by key. Two groups
// tie when their keys agree but for the group's own key.
func rankKey(v float64, ok, desc bool, group string) string {
	var b [9]byte
	if !ok {
		b[0] = 1
	} else {
		if desc {
			v = -v
		}
		if v == 0 {
			v = 0 // one zero, not two
		}
		bits := math.Float64bits(v)
		if bits>>63 == 0 {
			bits |= 1 << 63
		} else {
			bits = ^bits
		}
		binary.BigEndian.PutUint64(b[1:], bits)
	}
	return string(b[:]) + group
}

func tied(a, b string) bool { return a[:9] == b[:9] }
