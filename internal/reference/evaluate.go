package reference

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Request is a tool call, as a test draws it.
type Request struct {
	Tool             string
	Who              *Who
	Period           *Period
	Metrics          []string
	GroupBy          string
	TopN             int
	Sort             *Sort
	Compact          bool
	CompareCounts    bool
	CompareTo        string
	Cumulative       bool
	KnownDefinitions string
	Weeks            int    // team_weeks
	Day              string // roster
	RankBy           string // league
}

// Who is whose figures: one field set.
type Who struct {
	Floor       bool
	Team, Agent string
}

// Period is which days: Named, Day, Week, or Start with End.
type Period struct{ Named, Day, Week, Start, End string }

// Sort orders rows by a metric.
type Sort struct{ Metric, Direction string }

// JSON writes the request's arguments as a client sends them.
func (r Request) JSON() json.RawMessage {
	args := map[string]any{}
	if w := r.Who; w != nil {
		switch {
		case w.Floor:
			args["who"] = map[string]any{"floor": true}
		case w.Team != "":
			args["who"] = map[string]any{"team": w.Team}
		default:
			args["who"] = map[string]any{"agent": w.Agent}
		}
	}
	if p := r.Period; p != nil {
		switch {
		case p.Named != "":
			args["period"] = map[string]any{"named": p.Named}
		case p.Day != "":
			args["period"] = map[string]any{"day": p.Day}
		case p.Week != "":
			args["period"] = map[string]any{"week": p.Week}
		default:
			args["period"] = map[string]any{"start": p.Start, "end": p.End}
		}
	}
	if r.Metrics != nil {
		args["metrics"] = r.Metrics
	}
	if r.GroupBy != "" {
		args["group_by"] = r.GroupBy
	}
	if r.TopN > 0 {
		args["top_n"] = r.TopN
	}
	if r.Sort != nil {
		args["sort"] = map[string]any{"metric": r.Sort.Metric, "direction": r.Sort.Direction}
	}
	if r.Compact {
		args["compact"] = true
	}
	if r.CompareCounts {
		args["compare_counts"] = true
	}
	if r.KnownDefinitions != "" {
		args["known_definitions"] = r.KnownDefinitions
	}
	if r.CompareTo != "" {
		args["compare_to"] = r.CompareTo
	}
	if r.Cumulative {
		args["cumulative"] = true
	}
	if r.Weeks > 0 {
		args["weeks"] = r.Weeks
	}
	if r.Day != "" {
		args["day"] = r.Day
	}
	if r.RankBy != "" {
		args["rank_by"] = r.RankBy
	}
	b, _ := json.Marshal(args)
	return b
}

// Expected is what an answer must hold, in JSON's terms: numbers are
// float64, and a row is a list of cells.
type Expected struct {
	Refusal        *Refusal
	Candidates     []string // agent or team keys, in order
	Start, End     string
	Previous       []string // compare_to: the previous period's start and end
	Sort           *Sort
	Metrics        []string
	Columns        []string
	Rows           [][]any
	Truncated      bool
	PartialMetrics []string // sorted
	Warnings       []string // sorted kinds
	LeftOut        map[string]float64
	Through        map[string][2]any // metric or relation: runs_to, complete_through
	Sections       []Section
	Teams          [][]any // roster: team, on_floor, agents
}

// Refusal is a refused call's code and argument.
type Refusal struct{ Code, Argument string }

// Section is one canned section.
type Section struct {
	ID        string
	Columns   []string
	Rows      [][]any
	Total     []any
	Truncated bool
}

// eval is one evaluation: a floor at a moment.
type eval struct {
	f       *Floor
	now     time.Time
	today   time.Time
	cov     map[string][2]time.Time // by source: first and last day loaded
	version string
	warn    map[string]bool
}

// Evaluate answers a request over the floor as of now. version is the
// catalogue's version, which known_definitions is compared with.
func (f *Floor) Evaluate(r Request, now time.Time, version string) *Expected {
	e := &eval{f: f, now: now, today: civil(now.In(NY)), cov: map[string][2]time.Time{}, version: version, warn: map[string]bool{}}
	for id, s := range sources {
		e.cov[id] = e.coverage(id, s)
	}
	var out *Expected
	switch r.Tool {
	case "team_day":
		out = e.teamDay(r)
	case "team_weeks":
		out = e.teamWeeks(r)
	case "league":
		out = e.league(r)
	case "freshness":
		out = e.freshness()
	case "roster":
		out = e.roster(r)
	default:
		out = e.report(r)
	}
	if out.Refusal == nil && out.Candidates == nil {
		for k := range e.warn {
			out.Warnings = append(out.Warnings, k)
		}
		sort.Strings(out.Warnings)
	}
	return out
}

func refused(code, argument string) *Expected {
	return &Expected{Refusal: &Refusal{code, argument}}
}

// coverage is a source's first and last day loaded: for a nightly source,
// from its finished load runs; the board from its first entry to today.
func (e *eval) coverage(id string, s source) [2]time.Time {
	var first, last time.Time
	if s.live {
		for _, days := range e.f.Board {
			for d := range days {
				if first.IsZero() || d.Before(first) {
					first = d
				}
			}
		}
		if first.IsZero() {
			return [2]time.Time{}
		}
		return [2]time.Time{first, e.today}
	}
	for _, l := range e.f.Loads[s.relation] {
		if l.Finished == nil {
			continue
		}
		if first.IsZero() || l.Day.Before(first) {
			first = l.Day
		}
		if l.Day.After(last) {
			last = l.Day
		}
	}
	return [2]time.Time{first, last}
}

// loadedDay says whether a source is loaded for a day.
func (e *eval) loadedDay(src string, d time.Time) bool {
	c := e.cov[src]
	return !c[0].IsZero() && !d.Before(c[0]) && !d.After(c[1])
}

func (e *eval) timeRow(a string, d time.Time) (TimeRow, bool) {
	r, ok := e.f.Time[a][d]
	return r, ok && e.loadedDay("time", d)
}

func (e *eval) salesRow(a string, d time.Time) (SalesRow, bool) {
	r, ok := e.f.Sales[a][d]
	return r, ok && e.loadedDay("sales", d)
}

func (e *eval) qualityRow(a string, d time.Time) (QualityRow, bool) {
	r, ok := e.f.Quality[a][d]
	return r, ok && e.loadedDay("quality", d)
}

// metricCoverage is a metric's first and last day: where every source is
// loaded.
func (e *eval) metricCoverage(m metric) (first, last time.Time) {
	for i, s := range m.sources {
		c := e.cov[s]
		if c[0].IsZero() {
			return time.Time{}, time.Time{}
		}
		if i == 0 || c[0].After(first) {
			first = c[0]
		}
		if i == 0 || c[1].Before(last) {
			last = c[1]
		}
	}
	if last.Before(first) {
		return time.Time{}, time.Time{}
	}
	return first, last
}

// lastWhole is the newest day whole at now, by a rule: day D is whole at
// local time at on day D+days.
func (e *eval) lastWhole(days int, at time.Duration) time.Time {
	local := e.now.In(NY)
	d := civil(local).AddDate(0, 0, -days)
	if time.Duration(local.Hour())*time.Hour+time.Duration(local.Minute())*time.Minute+time.Duration(local.Second())*time.Second < at {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// complete is how far a metric is final: the earlier of its last loaded day
// and the last day its rule calls whole.
func (e *eval) complete(m metric) time.Time {
	_, last := e.metricCoverage(m)
	if last.IsZero() {
		return last
	}
	if w := e.lastWhole(m.days, m.at); w.Before(last) {
		return w
	}
	return last
}

// span is a resolved period.
type span struct {
	start, end time.Time
	clipped    bool
}

func (s span) days() int { return int(s.end.Sub(s.start).Hours()/24) + 1 }

func (s span) each(fn func(time.Time)) {
	for d := s.start; !d.After(s.end); d = d.AddDate(0, 0, 1) {
		fn(d)
	}
}

func monday(d time.Time) time.Time { return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)) }

// resolve turns a period into dates, or refuses it.
func (e *eval) resolve(p Period) (span, *Refusal) {
	t := e.today
	month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	parse := func(s string) (time.Time, bool) { d, err := time.Parse(time.DateOnly, s); return d, err == nil }
	switch {
	case p.Named != "":
		switch p.Named {
		case "today":
			return span{t, t, false}, nil
		case "yesterday":
			return span{t.AddDate(0, 0, -1), t.AddDate(0, 0, -1), false}, nil
		case "this_week", "week_to_date":
			return span{monday(t), t, false}, nil
		case "quarter_to_date":
			return span{time.Date(t.Year(), time.Month((int(t.Month())-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC), t, false}, nil
		case "last_week":
			return span{monday(t).AddDate(0, 0, -7), monday(t).AddDate(0, 0, -1), false}, nil
		case "this_month", "month_to_date":
			return span{month, t, false}, nil
		case "last_month":
			return span{month.AddDate(0, -1, 0), month.AddDate(0, 0, -1), false}, nil
		case "last_7_days":
			return span{t.AddDate(0, 0, -7), t.AddDate(0, 0, -1), false}, nil
		case "last_28_days":
			return span{t.AddDate(0, 0, -28), t.AddDate(0, 0, -1), false}, nil
		}
		return span{}, &Refusal{"invalid_argument", "period.named"}
	case p.Day != "":
		d, ok := parse(p.Day)
		if !ok || d.After(t) {
			return span{}, &Refusal{"invalid_argument", "period.day"}
		}
		return span{d, d, false}, nil
	case p.Week != "":
		d, ok := parse(p.Week)
		if !ok || monday(d).After(t) {
			return span{}, &Refusal{"invalid_argument", "period.week"}
		}
		s := span{monday(d), monday(d).AddDate(0, 0, 6), false}
		if s.end.After(t) {
			s.end, s.clipped = t, true
		}
		return s, nil
	default:
		a, ok1 := parse(p.Start)
		b, ok2 := parse(p.End)
		switch {
		case !ok1:
			return span{}, &Refusal{"invalid_argument", "period.start"}
		case !ok2:
			return span{}, &Refusal{"invalid_argument", "period.end"}
		case b.Before(a):
			return span{}, &Refusal{"invalid_argument", "period"}
		case b.After(t):
			return span{}, &Refusal{"invalid_argument", "period.end"}
		case int(b.Sub(a).Hours()/24)+1 > 120:
			return span{}, &Refusal{"invalid_argument", "period"}
		}
		return span{a, b, false}, nil
	}
}

// scope is a resolved who.
type scope struct {
	kind, key, name string
}

// words folds a name to lower-case words without accents.
func words(s string) []string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	plain, _, _ := transform.String(t, s)
	return strings.FieldsFunc(strings.ToLower(plain), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// starts says whether every typed word starts a different word of a name.
func starts(typed, name []string) bool {
	if len(typed) == 0 || len(typed) > len(name) {
		return false
	}
	used := make([]bool, len(name))
	for _, w := range typed {
		found := false
		for i, n := range name {
			if !used[i] && strings.HasPrefix(n, w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// scopeOf resolves w, or gives the answer that ends the call before any
// figure: its refusal, or the candidates to choose from.
func (e *eval) scopeOf(w Who) (scope, *Expected) {
	s, cands, refusal := e.who(w)
	switch {
	case refusal != nil:
		return s, &Expected{Refusal: refusal}
	case cands != nil:
		return s, &Expected{Candidates: cands}
	}
	return s, nil
}

// who resolves whose figures: a scope, candidates, or a refusal.
func (e *eval) who(w Who) (scope, []string, *Refusal) {
	switch {
	case w.Floor:
		return scope{kind: "floor", name: "the floor"}, nil, nil
	case w.Team != "":
		var exact, loose []Team
		for _, t := range e.f.Teams {
			switch {
			case strings.EqualFold(t.Key, w.Team) || slices.Equal(words(t.Name), words(w.Team)):
				exact = append(exact, t)
			case starts(words(w.Team), words(t.Name)):
				loose = append(loose, t)
			}
		}
		if len(exact) == 0 {
			exact = loose
		}
		return resolved(exact, "team", func(t Team) (string, string) { return t.Key, t.Name })
	}
	var found []Agent
	for _, a := range e.f.Agents {
		if strings.EqualFold(a.Key, w.Agent) {
			found = []Agent{a}
			break
		}
	}
	if found == nil && strings.Contains(w.Agent, "@") {
		for _, a := range e.f.Agents {
			if strings.EqualFold(a.Email, w.Agent) {
				found = append(found, a)
			}
		}
	} else if found == nil {
		var exact, loose []Agent
		for _, a := range e.f.Agents {
			switch {
			case slices.Equal(words(a.Name), words(w.Agent)):
				exact = append(exact, a)
			case starts(words(w.Agent), words(a.Name)):
				loose = append(loose, a)
			}
		}
		found = exact
		if len(found) == 0 {
			found = loose
		}
	}
	return resolved(found, "agent", func(a Agent) (string, string) { return a.Key, a.Name })
}

// resolved is what the matches of a name mean: none is a refusal, one the
// scope, several the candidates' keys.
func resolved[T any](found []T, kind string, keyName func(T) (string, string)) (scope, []string, *Refusal) {
	switch len(found) {
	case 0:
		return scope{}, nil, &Refusal{"invalid_argument", "who." + kind}
	case 1:
		key, name := keyName(found[0])
		return scope{kind: kind, key: key, name: name}, nil, nil
	}
	var keys []string
	for _, x := range found {
		key, _ := keyName(x)
		keys = append(keys, key)
	}
	return scope{}, keys, nil
}

// inScope says whether a fact row of an agent-day counts for the scope:
// the team the agent was on that day, and for the floor, that team on the
// floor that day.
func (e *eval) inScope(s scope, agent string, d time.Time) bool {
	switch s.kind {
	case "agent":
		return agent == s.key
	case "team":
		return e.f.teamOn(agent, d) == s.key
	default:
		t := e.f.teamOn(agent, d)
		return t != "" && e.f.onFloor(t, d)
	}
}

// counts says whether an agent counts for the scope on a day: on the staff,
// and in scope.
func (e *eval) counts(s scope, a Agent, d time.Time) bool {
	return a.employed(d) && e.inScope(s, a.Key, d)
}

// groupOf is the group an agent-day falls in.
func (e *eval) groupOf(groupBy, agent string, d time.Time) string {
	switch groupBy {
	case "team":
		return e.f.teamOn(agent, d)
	case "agent":
		return agent
	case "day":
		return d.Format(time.DateOnly)
	case "week":
		return monday(d).Format(time.DateOnly)
	}
	return ""
}

// figures is one group's sums of one metric.
type figures struct {
	parts      []float64 // exact: hours in hundredths, counts as they are
	kept, left int
}

// table computes every group's figures of each metric over the period.
type table struct {
	e       *eval
	s       scope
	p       span
	groupBy string
	metrics []metric
	groups  map[string][]*figures // by key, one per metric
	keys    []string              // every group shown, in key order
	counted map[string][]bool     // by agent: the days of the period they count for the scope
	values  map[string][]*float64 // value's answers, by key and metric
}

func (e *eval) compute(s scope, p span, groupBy string, metrics []metric) *table {
	t := &table{e: e, s: s, p: p, groupBy: groupBy, metrics: metrics, groups: map[string][]*figures{},
		counted: map[string][]bool{}, values: map[string][]*float64{}}
	for _, a := range e.f.Agents {
		days := make([]bool, p.days())
		for i := range days {
			days[i] = e.counts(s, a, p.start.AddDate(0, 0, i))
		}
		t.counted[a.Key] = days
	}
	get := func(key string) []*figures {
		if t.groups[key] == nil {
			fs := make([]*figures, len(metrics))
			for i, m := range metrics {
				fs[i] = &figures{parts: make([]float64, len(partsOf(m)))}
			}
			t.groups[key] = fs
		}
		return t.groups[key]
	}
	agents := map[string]bool{}
	for _, a := range e.f.Agents {
		agents[a.Key] = true
	}
	for _, m := range [][]string{keysOf(e.f.Time), keysOf(e.f.Sales), keysOf(e.f.Quality), keysOf(e.f.Board)} {
		for _, k := range m {
			agents[k] = true
		}
	}
	for agent := range agents {
		p.each(func(d time.Time) {
			if !e.inScope(s, agent, d) {
				return
			}
			key := e.groupOf(groupBy, agent, d)
			if groupBy == "team" && key == "" {
				return
			}
			for i, m := range metrics {
				present, parts := m.parts(e, agent, d)
				if !present {
					continue
				}
				fs := get(key)[i]
				known := true
				for _, v := range parts {
					known = known && v != nil
				}
				if !known {
					fs.left++
					continue
				}
				fs.kept++
				for j, v := range parts {
					if hundredths(m, j) {
						fs.parts[j] += math.Round(*v * 100)
					} else {
						fs.parts[j] += *v
					}
				}
			}
		})
	}
	// Every group in scope, with rows or not.
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			t.keys = append(t.keys, k)
		}
	}
	for k := range t.groups {
		add(k)
	}
	switch groupBy {
	case "day":
		p.each(func(d time.Time) { add(d.Format(time.DateOnly)) })
	case "week":
		for w := monday(p.start); !w.After(p.end); w = w.AddDate(0, 0, 7) {
			add(w.Format(time.DateOnly))
		}
	case "team":
		switch s.kind {
		case "floor":
			for _, tm := range e.f.Teams {
				onSome := false
				p.each(func(d time.Time) { onSome = onSome || e.f.onFloor(tm.Key, d) })
				if onSome {
					add(tm.Key)
				}
			}
		case "team":
			add(s.key)
		}
		for _, a := range e.f.Agents {
			for i, on := range t.counted[a.Key] {
				if tm := e.f.teamOn(a.Key, p.start.AddDate(0, 0, i)); on && tm != "" {
					add(tm)
				}
			}
		}
	case "agent":
		if s.kind == "agent" {
			add(s.key)
		}
		for _, a := range e.f.Agents {
			if slices.Contains(t.counted[a.Key], true) {
				add(a.Key)
			}
		}
	case "":
		add("")
	}
	sort.Strings(t.keys)
	return t
}

func keysOf[T any](m map[string]map[time.Time]T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func partsOf(m metric) []int {
	if m.ratio() {
		return []int{0, 1}
	}
	return []int{0}
}

// hundredths says whether part j of a metric is summed in hundredths.
func hundredths(m metric, j int) bool {
	return m.unit == hours || m.unit == share && m.sources[0] == "time" || m.unit == perHour && j == 1
}

// value is a group's figure of metric i: its parts as the answer states
// them (nil for no data), zero for a group whose loaded days had no rows.
func (t *table) value(key string, i int) []*float64 {
	memo := fmt.Sprint(key, "/", i)
	if v, ok := t.values[memo]; ok {
		return v
	}
	v := t.figure(key, i)
	t.values[memo] = v
	return v
}

func (t *table) figure(key string, i int) []*float64 {
	m := t.metrics[i]
	fs := t.groups[key]
	n := len(partsOf(m))
	out := make([]*float64, n)
	switch {
	case fs != nil && fs[i].kept > 0:
		for j := range out {
			v := fs[i].parts[j]
			if hundredths(m, j) {
				v /= 100
			}
			out[j] = &v
		}
	case fs != nil && fs[i].left > 0:
	case t.covered(key, m):
		for j := range out {
			out[j] = new(float64)
		}
	}
	return out
}

// covered says whether an agent of the group counted for the scope on a
// day of the period the metric's sources are all loaded for.
func (t *table) covered(key string, m metric) bool {
	first, last := t.e.metricCoverage(m)
	if last.IsZero() {
		return false
	}
	for _, a := range t.e.f.Agents {
		for i, on := range t.counted[a.Key] {
			d := t.p.start.AddDate(0, 0, i)
			if on && !d.Before(first) && !d.After(last) && (t.groupBy == "" || t.e.groupOf(t.groupBy, a.Key, d) == key) {
				return true
			}
		}
	}
	return false
}

// left is the agent-days left out of metric i over every group.
func (t *table) left(i int) int {
	n := 0
	for _, fs := range t.groups {
		n += fs[i].left
	}
	return n
}

// rank is a group's figure of metric i for ordering, nil for none.
func (t *table) rank(key string, i int) *float64 {
	v := t.value(key, i)
	if len(v) == 1 {
		return v[0]
	}
	if v[0] == nil || v[1] == nil || *v[1] == 0 {
		return nil
	}
	r := *v[0] / *v[1]
	return &r
}

func order(a, b *float64, dir string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case *a == *b:
		return 0
	case (*a > *b) == (dir == "asc"):
		return 1
	default:
		return -1
	}
}

// shown orders and cuts the groups: by key, or ranked with ties kept up to
// the 50-row cap. It returns the keys shown, whether rows were left out,
// and the kinds of the notes on the cut.
func (t *table) shown(sort *Sort, topN int) ([]string, bool) {
	keys := slices.Clone(t.keys)
	if sort == nil {
		if len(keys) > 50 {
			t.e.warn["truncated"] = true
			return keys[:50], true
		}
		return keys, false
	}
	i := slices.IndexFunc(t.metrics, func(m metric) bool { return m.id == sort.Metric })
	slices.SortStableFunc(keys, func(a, b string) int {
		if c := order(t.rank(a, i), t.rank(b, i), sort.Direction); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	n := 50
	if topN > 0 {
		n = topN
	}
	if len(keys) <= n {
		return keys, false
	}
	end := n
	tie := func(a, b string) bool { return order(t.rank(a, i), t.rank(b, i), sort.Direction) == 0 }
	for end < len(keys) && end < 50 && tie(keys[end], keys[n-1]) {
		end++
	}
	split := end < len(keys) && tie(keys[end], keys[end-1])
	if end > n {
		t.e.warn["ties"] = true
	}
	truncated := topN == 0 || split
	switch {
	case split:
		t.e.warn["tie_cut"] = true
	case truncated:
		t.e.warn["truncated"] = true
	}
	return keys[:end], truncated
}

// render writes a figure as an answer does.
func render(m metric, v []*float64) []any {
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	if !m.ratio() {
		if v[0] == nil {
			return []any{nil}
		}
		if m.unit == count {
			return []any{math.Round(*v[0])}
		}
		return []any{round(*v[0])}
	}
	out := []any{nil, nil, nil}
	if v[0] != nil && v[1] != nil && *v[1] != 0 {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(*v[0] / *v[1], 'g', 6, 64), 64)
		out[0] = r
	}
	for j := 0; j < 2; j++ {
		if v[j] != nil {
			out[j+1] = round(*v[j])
		}
	}
	return out
}

// columns names an answer's columns.
func columns(groupBy string, metrics []metric) []string {
	var cols []string
	switch groupBy {
	case "team":
		cols = []string{"team", "team_name"}
	case "agent":
		cols = []string{"agent", "agent_name"}
	case "day":
		cols = []string{"day"}
	case "week":
		cols = []string{"week", "days"}
	}
	for _, m := range metrics {
		cols = append(cols, m.id)
		if m.ratio() {
			cols = append(cols, m.id+"_numerator", m.id+"_denominator")
		}
	}
	return cols
}

// row renders one group.
func (t *table) row(key string) []any {
	var out []any
	switch t.groupBy {
	case "team":
		var name any
		if n := t.e.f.teamName(key); n != "" {
			name = n
		}
		out = append(out, key, name)
	case "agent":
		var name any
		if a, ok := t.e.f.agent(key); ok {
			name = a.Name
		}
		out = append(out, key, name)
	case "day":
		out = append(out, key)
	case "week":
		w, _ := time.Parse(time.DateOnly, key)
		from, to := maxDay(w, t.p.start), minDay(w.AddDate(0, 0, 6), t.p.end)
		days := float64(int(to.Sub(from).Hours()/24) + 1)
		if days < 7 {
			t.e.warn["cut_weeks"] = true
		}
		out = append(out, key, days)
	}
	for i, m := range t.metrics {
		out = append(out, render(m, t.value(key, i))...)
	}
	return out
}

func maxDay(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minDay(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// stamp adds what the figures of metrics need beside them: partial flags,
// left-out counts, freshness and the warnings about them.
func (e *eval) stamp(out *Expected, t *table, p span) {
	if out.LeftOut == nil {
		out.LeftOut, out.Through = map[string]float64{}, map[string][2]any{}
	}
	for i, m := range t.metrics {
		if _, done := out.Through[m.id]; done {
			continue
		}
		first, last := e.metricCoverage(m)
		complete := e.complete(m)
		out.Through[m.id] = [2]any{dateOrNil(last), dateOrNil(complete)}
		left := t.left(i)
		if left > 0 {
			out.LeftOut[m.id] = float64(left)
			e.warn["left_out"] = true
		}
		switch {
		case last.IsZero():
			e.warn["no_data"] = true
		case last.Before(p.start):
			e.warn["not_loaded"] = true
		case last.Before(p.end):
			e.warn["partly_loaded"] = true
		}
		if p.end.Equal(e.today) {
			e.warn["today"] = true
		}
		if !complete.IsZero() && complete.Before(p.end) && !last.Before(p.start) {
			e.warn["not_final"] = true
		}
		if !first.IsZero() && p.start.Before(first) && !p.end.Before(first) {
			e.warn["before_data"] = true
		}
		if complete.IsZero() || complete.Before(p.end) || left > 0 {
			out.PartialMetrics = append(out.PartialMetrics, m.id)
		}
	}
	sort.Strings(out.PartialMetrics)
}

func dateOrNil(d time.Time) any {
	if d.IsZero() {
		return nil
	}
	return d.Format(time.DateOnly)
}

// presence notes agents who counted only on some days of the period: for
// an agent's own figures also one who moved teams in it.
func (e *eval) presence(s scope, p span, agents []string) {
	for _, key := range agents {
		a, ok := e.f.agent(key)
		if !ok {
			continue
		}
		days := 0
		p.each(func(d time.Time) {
			if e.counts(s, a, d) || s.kind == "agent" && a.employed(d) {
				days++
			}
		})
		moved := false
		for i, m := range e.f.Moves[key] {
			moved = moved || i > 0 && m.From.After(p.start) && !m.From.After(p.end)
		}
		if days < p.days() || s.kind == "agent" && moved {
			e.warn["presence"] = true
		}
	}
}

// metricsOf resolves metric ids.
func metricsOf(ids []string) []metric {
	out := make([]metric, len(ids))
	for i, id := range ids {
		out[i] = metricByID(id)
	}
	return out
}

// liveInstead swaps a report's defaults for its live metrics when the
// period lies wholly past every default source's last loaded day.
func (e *eval) liveInstead(rep report, ids []string, p span) []string {
	for _, id := range ids {
		for _, s := range metricByID(id).sources {
			if c := e.cov[s]; !c[1].IsZero() && !c[1].Before(p.start) {
				return ids
			}
		}
	}
	if len(rep.live) == 0 {
		return ids
	}
	e.warn["live_instead"] = true
	return rep.live
}

// beforeData refuses a period that ends before the first day of data.
func (e *eval) beforeData(ms []metric, p span) bool {
	var first time.Time
	for _, m := range ms {
		if f, _ := e.metricCoverage(m); !f.IsZero() && (first.IsZero() || f.Before(first)) {
			first = f
		}
	}
	return !first.IsZero() && p.end.Before(first)
}

// unfinished says whether any metric is not final through the period's end.
func (e *eval) unfinished(ms []metric, p span) bool {
	for _, m := range ms {
		if e.complete(m).Before(p.end) {
			return true
		}
	}
	return false
}

func (e *eval) common(out *Expected, r Request) {
	if r.KnownDefinitions != "" && r.KnownDefinitions != e.version {
		e.warn["catalog_changed"] = true
	}
}

func (e *eval) report(r Request) *Expected {
	rep, _ := reportByID(r.Tool)
	if r.Sort != nil && !slices.Contains(rep.metrics, r.Sort.Metric) {
		return refused("invalid_argument", "sort.metric")
	}
	if r.GroupBy == "" && r.TopN > 0 {
		return refused("invalid_argument", "top_n")
	}
	if r.GroupBy == "" && r.Sort != nil {
		return refused("invalid_argument", "sort")
	}
	if r.CompareTo == "previous_period" && (r.GroupBy == "day" || r.GroupBy == "week") {
		return refused("invalid_argument", "compare_to")
	}
	if r.Cumulative && (r.GroupBy != "day" || r.Sort != nil || r.TopN > 0) {
		return refused("invalid_argument", "cumulative")
	}
	s, early := e.scopeOf(*r.Who)
	if early != nil {
		return early
	}
	p, refusal := e.resolve(*r.Period)
	if refusal != nil {
		return &Expected{Refusal: refusal}
	}
	ids := rep.defaults
	switch {
	case r.CompareCounts && r.Metrics != nil:
		return refused("invalid_argument", "compare_counts")
	case r.CompareCounts:
		ids = rep.counts
	case r.Metrics != nil:
		ids = r.Metrics
	}
	if r.Metrics == nil && !r.CompareCounts {
		ids = e.liveInstead(rep, ids, p)
	}
	if r.Sort != nil && !slices.Contains(ids, r.Sort.Metric) {
		return refused("invalid_argument", "sort.metric")
	}
	sorting := r.Sort
	if r.TopN > 0 && sorting == nil {
		sorting = &Sort{ids[0], "desc"}
	}
	ms := metricsOf(ids)
	if e.beforeData(ms, p) {
		return refused("invalid_argument", "period")
	}
	if sorting != nil && e.unfinished(ms, p) {
		return refused("not_comparable", "period")
	}
	if r.CompareTo == "target" {
		hasTarget := slices.ContainsFunc(ms, func(m metric) bool { return m.target != "" })
		switch {
		case s.kind == "agent", r.GroupBy != "" && r.GroupBy != "team", !hasTarget:
			return refused("invalid_argument", "compare_to")
		}
		kind, start, days, ok := e.targetPeriod(p)
		if !ok {
			return refused("invalid_argument", "period")
		}
		out := &Expected{Start: p.start.Format(time.DateOnly), End: p.end.Format(time.DateOnly), Sort: sorting, Metrics: ids}
		return e.againstTarget(out, r, s, p, ms, sorting, kind, start, days)
	}
	var prev span
	if r.CompareTo != "" {
		if e.unfinished(ms, p) {
			return refused("not_comparable", "period")
		}
		prev = previous(p, r.Period.Named)
		for _, m := range ms {
			if first, _ := e.metricCoverage(m); first.After(prev.start) {
				return refused("invalid_argument", "compare_to")
			}
		}
	}
	out := &Expected{Start: p.start.Format(time.DateOnly), End: p.end.Format(time.DateOnly), Sort: sorting, Metrics: ids}
	if r.CompareTo != "" {
		return e.compared(out, r, s, p, prev, ms, sorting)
	}
	e.common(out, r)
	if p.clipped {
		e.warn["clipped"] = true
	}
	activity := s.kind == "agent" && r.GroupBy == "day"
	all := ms
	if activity {
		all = append(slices.Clone(ms), metricByID("logged_hours"))
	}
	t := e.compute(s, p, r.GroupBy, all)
	t.metrics = all
	keys, truncated := t.shown(sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = columns(r.GroupBy, ms)
	if activity {
		out.Columns = append(out.Columns, "no_activity")
	}
	if r.Cumulative {
		t.runningTotals(keys, len(ms))
	}
	for _, k := range keys {
		row := t.row(k)
		if activity {
			v := t.value(k, len(all)-1)[0]
			row = row[:len(row)-1] // the activity metric's own cell
			switch {
			case v == nil:
				row = append(row, nil)
			default:
				row = append(row, *v == 0)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	t.metrics = ms
	e.stamp(out, t, p)
	var agents []string
	switch {
	case s.kind == "agent":
		agents = []string{s.key}
	case r.GroupBy == "agent":
		agents = keys
	}
	e.presence(s, p, agents)
	return out
}

// previous is the period a comparison sets p beside: the same days of the
// month before for a month so far, the month before a whole month, the
// same weekdays of the week before for a week so far, else as many days
// just before.
func previous(p span, named string) span {
	first := time.Date(p.start.Year(), p.start.Month(), 1, 0, 0, 0, 0, time.UTC)
	before := first.AddDate(0, -1, 0)
	switch {
	case named == "this_month" || named == "month_to_date":
		end := before.AddDate(0, 0, p.end.Day()-1)
		if end.Month() != before.Month() {
			end = first.AddDate(0, 0, -1)
		}
		return span{before, end, false}
	case named == "last_month" || p.start.Equal(first) && p.end.Equal(first.AddDate(0, 1, -1)):
		return span{before, first.AddDate(0, 0, -1), false}
	case named == "quarter_to_date":
		start := p.start.AddDate(0, -3, 0)
		end := start.AddDate(0, int(p.end.Month()-p.start.Month()), p.end.Day()-1)
		if last := start.AddDate(0, int(p.end.Month()-p.start.Month())+1, -1); end.After(last) {
			end = last
		}
		return span{start, end, false}
	}
	n := p.days()
	if named == "this_week" || named == "week_to_date" || p.clipped {
		n = 7
	}
	return span{p.start.AddDate(0, 0, -n), p.end.AddDate(0, 0, -n), false}
}

// activeDays counts the days of a period on which an agent counted for the
// scope logged some time.
func (e *eval) activeDays(s scope, p span) int {
	n := 0
	p.each(func(d time.Time) {
		for agent, days := range e.f.Time {
			if r, ok := days[d]; ok && e.loadedDay("time", d) && r.Logged != nil && *r.Logged > 0 && e.inScope(s, agent, d) {
				n++
				return
			}
		}
	})
	return n
}

// compared answers a report with compare_to: each group's figures beside
// the previous period's, and the change.
func (e *eval) compared(out *Expected, r Request, s scope, p, prev span, ms []metric, sorting *Sort) *Expected {
	out.Previous = []string{prev.start.Format(time.DateOnly), prev.end.Format(time.DateOnly)}
	e.common(out, r)
	if p.clipped {
		e.warn["clipped"] = true
	}
	t, tp := e.compute(s, p, r.GroupBy, ms), e.compute(s, prev, r.GroupBy, ms)
	keys := append(slices.Clone(t.keys), tp.keys...)
	sort.Strings(keys)
	t.keys = slices.Compact(keys)
	shown, truncated := t.shown(sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = besideColumns(columns(r.GroupBy, nil), ms)
	for _, k := range shown {
		row := t.row(k)[:len(columns(r.GroupBy, nil))]
		for i, m := range ms {
			cur, was := t.value(k, i), tp.value(k, i)
			row = append(row, render(m, cur)...)
			row = append(row, render(m, was)...)
			row = append(row, difference(m, cur, was))
		}
		out.Rows = append(out.Rows, row)
	}
	e.stamp(out, t, p)
	for i, m := range ms {
		if left := tp.left(i); left > 0 {
			out.LeftOut[m.id] += float64(left)
			e.warn["left_out"] = true
			if !slices.Contains(out.PartialMetrics, m.id) {
				out.PartialMetrics = append(out.PartialMetrics, m.id)
				sort.Strings(out.PartialMetrics)
			}
		}
	}
	if p.days() != prev.days() || e.activeDays(s, p) != e.activeDays(s, prev) {
		e.warn["unlike_periods"] = true
	}
	var agents []string
	switch {
	case s.kind == "agent":
		agents = []string{s.key}
	case r.GroupBy == "agent":
		agents = shown
	}
	e.presence(s, p, agents)
	e.presence(s, prev, agents)
	return out
}

// difference is a figure's change: of counts and hours as stated, of
// ratios as divided, in points for a share; nil when either is nil.
func difference(m metric, cur, was []*float64) any {
	if !m.ratio() {
		a, b := render(m, cur)[0], render(m, was)[0]
		if a == nil || b == nil {
			return nil
		}
		return math.Round((a.(float64)-b.(float64))*100)/100 + 0
	}
	if cur[0] == nil || cur[1] == nil || *cur[1] == 0 || was[0] == nil || was[1] == nil || *was[1] == 0 {
		return nil
	}
	d := *cur[0] / *cur[1] - *was[0] / *was[1]
	if m.unit == share {
		d *= 100
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(d, 'g', 6, 64), 64)
	return v
}

// runningTotals replaces the first n metrics' figures of the days, in
// order, with their sums from the first day: each part summed on its own, a
// day without a figure left without one.
func (t *table) runningTotals(days []string, n int) {
	run := make([][]*float64, n)
	for _, k := range days {
		for i := 0; i < n; i++ {
			v := t.value(k, i)
			if run[i] == nil {
				run[i] = make([]*float64, len(v))
			}
			out := make([]*float64, len(v))
			for j, x := range v {
				if x == nil {
					continue
				}
				if run[i][j] == nil {
					run[i][j] = new(float64)
				}
				*run[i][j] += *x
				sum := *run[i][j]
				out[j] = &sum
			}
			t.values[fmt.Sprint(k, "/", i)] = out
		}
	}
}

// targetPeriod is the week or month a period is, whole or from its first
// day through today, with its start and its length in days.
func (e *eval) targetPeriod(p span) (string, time.Time, int, bool) {
	if w := monday(p.start); p.start.Equal(w) && !p.end.After(w.AddDate(0, 0, 6)) && (p.end.Equal(w.AddDate(0, 0, 6)) || p.end.Equal(e.today)) {
		return "week", w, 7, true
	}
	first := time.Date(p.start.Year(), p.start.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	if p.start.Equal(first) && !p.end.After(last) && (p.end.Equal(last) || p.end.Equal(e.today)) {
		return "month", first, last.Day(), true
	}
	return "", time.Time{}, 0, false
}

// againstTarget answers compare_to: target: each group's figures beside
// its teams' targets (the last version set), a count's pro-rated to the
// period's share of its days and summed over the floor's teams, a rate's
// as set and none for several teams.
func (e *eval) againstTarget(out *Expected, r Request, s scope, p span, ms []metric, sorting *Sort, kind string, start time.Time, days int) *Expected {
	e.common(out, r)
	if p.clipped {
		e.warn["clipped"] = true
	}
	t := e.compute(s, p, r.GroupBy, ms)
	keys, truncated := t.shown(sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = columns(r.GroupBy, nil)
	for _, m := range ms {
		out.Columns = append(out.Columns, columns("", []metric{m})...)
		switch m.target {
		case "additive":
			out.Columns = append(out.Columns, m.id+"_target", m.id+"_attainment")
		case "fixed":
			out.Columns = append(out.Columns, m.id+"_target", m.id+"_target_gap_points")
		}
	}
	floorTeams := e.floorTeams(p)
	for _, k := range keys {
		teams := []string{k}
		switch {
		case r.GroupBy != "":
		case s.kind == "team":
			teams = []string{s.key}
		default:
			teams = floorTeams
		}
		row := t.row(k)[:len(columns(r.GroupBy, nil))]
		out.Rows = append(out.Rows, append(row, e.besideTargets(func(i int) []*float64 { return t.value(k, i) }, teams, ms, p, kind, start, days)...))
	}
	if p.days() < days && slices.ContainsFunc(ms, func(m metric) bool { return m.target == "additive" }) {
		e.warn["prorated"] = true
	}
	e.stamp(out, t, p)
	var agents []string
	if r.GroupBy == "agent" {
		agents = keys
	}
	e.presence(s, p, agents)
	return out
}

// floorTeams are the teams on the floor on any day of p.
func (e *eval) floorTeams(p span) []string {
	var out []string
	for _, tm := range e.f.Teams {
		on := false
		p.each(func(d time.Time) { on = on || e.f.onFloor(tm.Key, d) })
		if on {
			out = append(out, tm.Key)
		}
	}
	return out
}

// targetColumns are the columns of metrics beside their targets.
func targetColumns(ms []metric) []string {
	var out []string
	for _, m := range ms {
		out = append(out, columns("", []metric{m})...)
		switch m.target {
		case "additive":
			out = append(out, m.id+"_target", m.id+"_attainment")
		case "fixed":
			out = append(out, m.id+"_target", m.id+"_target_gap_points")
		}
	}
	return out
}

// besideTargets renders the figures v(i) of metrics beside the targets of
// teams: the last version set of each, summed, a count's pro-rated to the
// period's share of its days, a rate's none for several teams.
func (e *eval) besideTargets(v func(i int) []*float64, teams []string, ms []metric, p span, kind string, start time.Time, days int) []any {
	var row []any
	for i, m := range ms {
		row = append(row, render(m, v(i))...)
		if m.target == "" {
			continue
		}
		var target *float64
		switch {
		case len(teams) > 1 && m.target == "fixed":
			e.warn["no_target"] = true
		default:
			sum, missing := 0.0, false
			for _, team := range teams {
				vs := e.f.Targets[targetKey(team, m.id, kind, start)]
				if len(vs) == 0 {
					missing = true
					continue
				}
				sum += vs[len(vs)-1].Value
				e.warn["targets"] = true
			}
			if missing {
				e.warn["no_target"] = true
				break
			}
			if m.target == "additive" && p.days() < days {
				sum = sum * float64(p.days()) / float64(days)
			}
			sum = math.Round(sum*1e4) / 1e4
			target = &sum
		}
		var goal, got any
		if target != nil {
			goal = *target
			got = attainment(m, v(i), *target)
		}
		row = append(row, goal, got)
	}
	return row
}

// attainment is a figure over its target, or a rate's gap to it in points.
func attainment(m metric, v []*float64, target float64) any {
	if v[0] == nil {
		return nil
	}
	var x float64
	if m.ratio() {
		if v[1] == nil || *v[1] == 0 {
			return nil
		}
		x = (*v[0] / *v[1] - target) * 100
	} else {
		if target == 0 {
			return nil
		}
		x = *v[0] / target
	}
	out, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return out
}

// section computes one canned section.
func (e *eval) section(out *Expected, id string, s scope, p span, groupBy string, ms []metric, sorting *Sort) {
	t := e.compute(s, p, groupBy, ms)
	keys, truncated := t.shown(sorting, 0)
	sec := Section{ID: id, Columns: columns(groupBy, ms), Truncated: truncated}
	for _, k := range keys {
		sec.Rows = append(sec.Rows, t.row(k))
	}
	if sorting != nil {
		sec.Columns = append([]string{"rank"}, sec.Columns...)
		i := slices.IndexFunc(ms, func(m metric) bool { return m.id == sorting.Metric })
		for n, k := range keys {
			var rank any
			switch v := t.rank(k, i); {
			case v == nil:
			case n > 0 && order(v, t.rank(keys[n-1], i), sorting.Direction) == 0:
				rank = sec.Rows[n-1][0]
			default:
				rank = float64(n + 1)
			}
			sec.Rows[n] = append([]any{rank}, sec.Rows[n]...)
		}
	}
	if !truncated {
		var total []any
		switch groupBy {
		case "team", "agent":
			total = []any{"total", s.name}
		case "week":
			total = []any{"total", float64(p.days())}
		}
		if sorting != nil {
			total = append([]any{nil}, total...)
		}
		for i, m := range ms {
			sum := make([]*float64, len(partsOf(m)))
			for _, k := range keys {
				for j, v := range t.value(k, i) {
					if v == nil {
						continue
					}
					if sum[j] == nil {
						sum[j] = new(float64)
					}
					*sum[j] += *v
				}
			}
			total = append(total, render(m, sum)...)
		}
		sec.Total = total
	} else {
		e.warn["truncated"] = true
	}
	out.Sections = append(out.Sections, sec)
	e.stamp(out, t, p)
	if s.kind == "agent" {
		e.presence(s, p, []string{s.key})
	} else if groupBy == "agent" {
		e.presence(s, p, keys)
	}
}

func allMetricIDs() []string {
	var out []string
	for _, r := range reportList {
		out = append(out, r.metrics...)
	}
	return out
}

func (e *eval) teamDay(r Request) *Expected {
	if r.Who.Agent != "" {
		return refused("invalid_argument", "who")
	}
	p := span{e.today.AddDate(0, 0, -1), e.today.AddDate(0, 0, -1), false}
	if r.Period != nil {
		var refusal *Refusal
		if p, refusal = e.resolve(*r.Period); refusal != nil {
			return &Expected{Refusal: refusal}
		}
	}
	s, early := e.scopeOf(*r.Who)
	if early != nil {
		return early
	}
	if e.beforeData(metricsOf(allMetricIDs()), p) {
		return refused("invalid_argument", "period")
	}
	out := &Expected{Start: p.start.Format(time.DateOnly), End: p.end.Format(time.DateOnly)}
	e.common(out, r)
	group := "agent"
	if s.kind == "floor" {
		group = "team"
	}
	for _, rep := range reportList {
		e.section(out, rep.id, s, p, group, metricsOf(e.liveInstead(rep, rep.defaults, p)), nil)
	}
	return out
}

func (e *eval) teamWeeks(r Request) *Expected {
	weeks := 4
	if r.Weeks > 0 {
		weeks = r.Weeks
	}
	end := monday(e.today).AddDate(0, 0, -1)
	final := end
	for _, rep := range reportList {
		for _, m := range metricsOf(rep.defaults) {
			if c := e.complete(m); c.Before(final) {
				final = c
			}
		}
	}
	shifted := false
	for end.After(final) && !final.IsZero() {
		end, shifted = end.AddDate(0, 0, -7), true
	}
	p := span{end.AddDate(0, 0, 1-7*weeks), end, false}
	s, early := e.scopeOf(*r.Who)
	if early != nil {
		return early
	}
	if e.beforeData(metricsOf(allMetricIDs()), p) {
		return refused("invalid_argument", "period")
	}
	out := &Expected{Start: p.start.Format(time.DateOnly), End: p.end.Format(time.DateOnly)}
	if r.CompareTo == "target" {
		if s.kind == "agent" {
			return refused("invalid_argument", "compare_to")
		}
		e.common(out, r)
		if shifted {
			e.warn["weeks_shifted"] = true
		}
		for _, rep := range reportList {
			e.weekTargets(out, rep.id, s, p, metricsOf(rep.defaults))
		}
		return out
	}
	if r.CompareTo != "" {
		prev := span{p.start.AddDate(0, 0, -7*weeks), p.start.AddDate(0, 0, -1), false}
		for _, rep := range reportList {
			for _, m := range metricsOf(rep.defaults) {
				if first, _ := e.metricCoverage(m); first.After(prev.start) {
					return refused("invalid_argument", "compare_to")
				}
			}
		}
		out.Previous = []string{prev.start.Format(time.DateOnly), prev.end.Format(time.DateOnly)}
		e.common(out, r)
		if shifted {
			e.warn["weeks_shifted"] = true
		}
		for _, rep := range reportList {
			e.weekBeside(out, rep.id, s, p, prev, metricsOf(rep.defaults))
		}
		return out
	}
	e.common(out, r)
	if shifted {
		e.warn["weeks_shifted"] = true
	}
	for _, rep := range reportList {
		e.section(out, rep.id, s, p, "week", metricsOf(rep.defaults), nil)
	}
	return out
}

// weekTargets computes a team_weeks section with each week beside its own
// week's targets: the scope's team's, or the sum of the teams on the floor
// that week. A metric whose targets no team set for any of these weeks is
// shown without, with a note; the total is beside the sum of the weeks'
// targets for a count, and no target for a rate.
func (e *eval) weekTargets(out *Expected, id string, s scope, p span, ms []metric) {
	weekly := slices.Clone(ms)
	shown := false
	for i, m := range weekly {
		if m.target == "" {
			continue
		}
		set := false
		for w := p.start; !w.After(p.end); w = w.AddDate(0, 0, 7) {
			for _, tm := range e.f.Teams {
				set = set || len(e.f.Targets[targetKey(tm.Key, m.id, "week", w)]) > 0
			}
		}
		if !set {
			weekly[i].target = ""
			e.warn["no_target"] = true
			continue
		}
		shown = true
	}
	e.section(out, id, s, p, "week", ms, nil)
	if !shown {
		return
	}
	sec := &out.Sections[len(out.Sections)-1]
	t := e.compute(s, p, "week", ms)
	teamsOf := func(w time.Time) []string {
		if s.kind == "team" {
			return []string{s.key}
		}
		return e.floorTeams(span{w, w.AddDate(0, 0, 6), false})
	}
	sec.Columns = append([]string{"week", "days"}, targetColumns(weekly)...)
	for n, row := range sec.Rows {
		k := row[0].(string)
		w, _ := time.Parse(time.DateOnly, k)
		sec.Rows[n] = append(row[:2:2], e.besideTargets(func(i int) []*float64 { return t.value(k, i) }, teamsOf(w), weekly,
			span{w, w.AddDate(0, 0, 6), false}, "week", w, 7)...)
	}
	if sec.Total == nil {
		return
	}
	total := sec.Total[:2:2]
	for i, m := range weekly {
		sum := make([]*float64, len(partsOf(m)))
		for _, row := range sec.Rows {
			for j, v := range t.value(row[0].(string), i) {
				if v == nil {
					continue
				}
				if sum[j] == nil {
					sum[j] = new(float64)
				}
				*sum[j] += *v
			}
		}
		total = append(total, render(m, sum)...)
		if m.target == "" {
			continue
		}
		var goal, got any
		if target, ok := e.weeksTarget(m, sec.Rows, teamsOf); ok && m.target == "additive" {
			goal, got = target, attainment(m, sum, target)
		}
		total = append(total, goal, got)
	}
	sec.Total = total
}

// weeksTarget is the sum of metric m's targets over the weeks of rows, each
// week's teams' latest; false when one is not set.
func (e *eval) weeksTarget(m metric, rows [][]any, teamsOf func(time.Time) []string) (float64, bool) {
	sum := 0.0
	for _, row := range rows {
		w, _ := time.Parse(time.DateOnly, row[0].(string))
		for _, team := range teamsOf(w) {
			vs := e.f.Targets[targetKey(team, m.id, "week", w)]
			if len(vs) == 0 {
				return 0, false
			}
			sum += vs[len(vs)-1].Value
		}
	}
	return math.Round(sum*1e4) / 1e4, true
}

// weekBeside computes a team_weeks section with each week beside the week
// before it (the first beside the last of the weeks before), and the total
// beside the weeks before's total.
func (e *eval) weekBeside(out *Expected, id string, s scope, p, prev span, ms []metric) {
	t, tp := e.compute(s, p, "week", ms), e.compute(s, prev, "week", ms)
	sec := Section{ID: id, Columns: besideColumns([]string{"week", "days"}, ms)}
	sum := func(tb *table, keys []string, i int) []*float64 {
		total := make([]*float64, len(partsOf(ms[i])))
		for _, k := range keys {
			for j, v := range tb.value(k, i) {
				if v == nil {
					continue
				}
				if total[j] == nil {
					total[j] = new(float64)
				}
				*total[j] += *v
			}
		}
		return total
	}
	for _, k := range t.keys {
		w, _ := time.Parse(time.DateOnly, k)
		before := w.AddDate(0, 0, -7).Format(time.DateOnly)
		row := t.row(k)[:2]
		for i, m := range ms {
			was := tp.value(before, i)
			if slices.Contains(t.keys, before) {
				was = t.value(before, i)
			}
			cur := t.value(k, i)
			row = append(row, render(m, cur)...)
			row = append(row, render(m, was)...)
			row = append(row, difference(m, cur, was))
		}
		sec.Rows = append(sec.Rows, row)
	}
	sec.Total = []any{"total", float64(p.days())}
	for i, m := range ms {
		cur, was := sum(t, t.keys, i), sum(tp, tp.keys, i)
		sec.Total = append(sec.Total, render(m, cur)...)
		sec.Total = append(sec.Total, render(m, was)...)
		sec.Total = append(sec.Total, difference(m, cur, was))
	}
	out.Sections = append(out.Sections, sec)
	e.stamp(out, t, p)
	for i, m := range ms {
		if left := tp.left(i); left > 0 {
			out.LeftOut[m.id] += float64(left)
			e.warn["left_out"] = true
			if !slices.Contains(out.PartialMetrics, m.id) {
				out.PartialMetrics = append(out.PartialMetrics, m.id)
				sort.Strings(out.PartialMetrics)
			}
		}
	}
	if s.kind == "agent" {
		e.presence(s, p, []string{s.key})
		e.presence(s, prev, []string{s.key})
	}
}

func (e *eval) league(r Request) *Expected {
	ids := []string{"submitted_sales", "close_rate"}
	if r.Metrics != nil {
		ids = r.Metrics
	}
	if r.Sort != nil && !slices.Contains(ids, r.Sort.Metric) {
		return refused("invalid_argument", "sort.metric")
	}
	p, refusal := e.resolve(*r.Period)
	if refusal != nil {
		return &Expected{Refusal: refusal}
	}
	sorting := &Sort{ids[0], "desc"}
	if r.Sort != nil {
		sorting = r.Sort
	}
	ms := metricsOf(ids)
	var kind string
	var start time.Time
	var days int
	if r.RankBy == "attainment" {
		if metricsOf([]string{sorting.Metric})[0].target == "" {
			return refused("invalid_argument", "sort.metric")
		}
		var ok bool
		if kind, start, days, ok = e.targetPeriod(p); !ok {
			return refused("invalid_argument", "period")
		}
	}
	if e.beforeData(ms, p) {
		return refused("invalid_argument", "period")
	}
	if e.unfinished(ms, p) {
		return refused("not_comparable", "period")
	}
	out := &Expected{Start: p.start.Format(time.DateOnly), End: p.end.Format(time.DateOnly), Sort: sorting, Metrics: ids}
	e.common(out, r)
	floor := scope{kind: "floor", name: "the floor"}
	if r.RankBy != "attainment" {
		e.section(out, "league", floor, p, "team", ms, sorting)
		return out
	}
	// Ranked by attainment: each team beside its own targets, ordered by
	// the sort metric's attainment, teams without one last and unranked.
	t := e.compute(floor, p, "team", ms)
	keys, truncated := t.shown(nil, 0)
	sec := Section{ID: "league", Columns: append([]string{"rank", "team", "team_name"}, targetColumns(ms)...), Truncated: truncated}
	col := slices.IndexFunc(sec.Columns, func(c string) bool {
		return c == sorting.Metric+"_attainment" || c == sorting.Metric+"_target_gap_points"
	})
	for _, k := range keys {
		row := append([]any{nil}, t.row(k)[:2]...)
		sec.Rows = append(sec.Rows, append(row, e.besideTargets(func(i int) []*float64 { return t.value(k, i) }, []string{k}, ms, p, kind, start, days)...))
	}
	at := func(row []any) *float64 {
		if v, ok := row[col].(float64); ok {
			return &v
		}
		return nil
	}
	slices.SortStableFunc(sec.Rows, func(a, b []any) int {
		if c := order(at(a), at(b), sorting.Direction); c != 0 {
			return c
		}
		return strings.Compare(a[1].(string), b[1].(string))
	})
	for n, row := range sec.Rows {
		switch {
		case at(row) == nil:
		case n > 0 && order(at(row), at(sec.Rows[n-1]), sorting.Direction) == 0:
			row[0] = sec.Rows[n-1][0]
		default:
			row[0] = float64(n + 1)
		}
	}
	if truncated {
		e.warn["truncated"] = true
	} else {
		sum := func(i int) []*float64 {
			out := make([]*float64, len(partsOf(ms[i])))
			for _, k := range keys {
				for j, v := range t.value(k, i) {
					if v != nil {
						if out[j] == nil {
							out[j] = new(float64)
						}
						*out[j] += *v
					}
				}
			}
			return out
		}
		sec.Total = append([]any{nil, "total", floor.name}, e.besideTargets(sum, e.floorTeams(p), ms, p, kind, start, days)...)
	}
	out.Sections = append(out.Sections, sec)
	e.stamp(out, t, p)
	return out
}

func (e *eval) freshness() *Expected {
	out := &Expected{Through: map[string][2]any{}}
	for id, s := range sources {
		c := e.cov[id]
		complete := e.lastWhole(s.days, s.at)
		if c[1].Before(complete) {
			complete = c[1]
		}
		if c[1].IsZero() {
			complete = time.Time{}
		}
		out.Through[s.relation] = [2]any{dateOrNil(c[1]), dateOrNil(complete)}
		out.Through[s.relation+" first_day"] = [2]any{dateOrNil(c[0]), nil}
	}
	return out
}

func (e *eval) roster(r Request) *Expected {
	day := e.today
	if r.Day != "" {
		d, err := time.Parse(time.DateOnly, r.Day)
		if err != nil || d.After(e.today) {
			return refused("invalid_argument", "day")
		}
		day = d
	}
	s, early := e.scopeOf(*r.Who)
	if early != nil {
		return early
	}
	out := &Expected{Teams: [][]any{}}
	if s.kind == "agent" {
		for _, m := range e.f.Moves[s.key] {
			out.Teams = append(out.Teams, []any{m.Team, m.From.Format(time.DateOnly)})
		}
		return out
	}
	for _, t := range e.f.Teams {
		if s.kind == "team" && t.Key != s.key {
			continue
		}
		decided := len(e.f.Decisions[t.Key]) > 0 && !e.f.Decisions[t.Key][0].From.After(day)
		on := e.f.onFloor(t.Key, day)
		if s.kind == "floor" && !on {
			continue
		}
		n := 0
		for _, a := range e.f.Agents {
			if a.employed(day) && e.f.teamOn(a.Key, day) == t.Key && len(e.f.Moves[a.Key]) > 0 {
				n++
			}
		}
		var onFloor any
		if decided {
			onFloor = on
		}
		out.Teams = append(out.Teams, []any{t.Key, onFloor, float64(n)})
	}
	return out
}

// String writes a request for a mismatch report.
func (r Request) String() string { return fmt.Sprintf("%s %s", r.Tool, r.JSON()) }

// besideColumns appends to cols each metric's columns beside the previous
// period: the figure and the previous one (a ratio's with their parts),
// then the change, in points for a share.
func besideColumns(cols []string, ms []metric) []string {
	for _, m := range ms {
		for _, c := range []string{m.id, m.id + "_previous"} {
			cols = append(cols, c)
			if m.ratio() {
				cols = append(cols, c+"_numerator", c+"_denominator")
			}
		}
		if m.unit == share {
			cols = append(cols, m.id+"_change_points")
		} else {
			cols = append(cols, m.id+"_change")
		}
	}
	return cols
}
