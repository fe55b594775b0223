package reference

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"
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

// String writes a request for a mismatch report.
func (r Request) String() string { return fmt.Sprintf("%s %s", r.Tool, r.JSON()) }

// Expected is what an answer must hold, in JSON's terms: numbers are
// float64, and a row is a list of cells.
type Expected struct {
	Refusal        *Refusal
	Candidates     []string // agent or team keys, in order
	Close          bool     // the candidates are close to a name that matched none
	Start, End     string
	Days           int      // the period's length in days
	AskedEnd       string   // a period cut at its last final day: the end asked for
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
	// Targets is metrics.<m>.target of every metric with target columns.
	Targets  map[string]TargetStamp
	Sections []Section
	Teams    [][]any // roster: team, on_floor, agents
}

// TargetStamp is what an answer states of the targets beside a metric: the
// target period (a week, a month, or team_weeks' weeks) and the days the
// figure counts.
type TargetStamp struct {
	Period, Start, End string
	Days               int
	// CountedFrom and CountedThrough are dates, or nil when no day counts.
	CountedFrom, CountedThrough any
	CountedDays                 int
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

func refuse(code, argument string) *Expected {
	return &Expected{Refusal: &Refusal{code, argument}}
}

// call is one request evaluated over the floor at a moment.
type call struct {
	w       *world
	r       Request
	version string
	kinds   map[string]bool // the kinds of warning the answer carries
}

func (c *call) warn(kind string) { c.kinds[kind] = true }

// Evaluate answers a request over the floor as of now. version is the
// catalogue's version, which known_definitions is compared with.
func (f *Floor) Evaluate(r Request, now time.Time, version string) *Expected {
	c := &call{w: f.world(now), r: r, version: version, kinds: map[string]bool{}}
	var out *Expected
	switch r.Tool {
	case "team_day":
		out = c.teamDay()
	case "team_weeks":
		out = c.teamWeeks()
	case "league":
		out = c.league()
	case "freshness":
		out = c.freshness()
	case "roster":
		out = c.roster()
	default:
		out = c.report()
	}
	if out.Refusal != nil || out.Candidates != nil {
		return out
	}
	if r.KnownDefinitions != "" && r.KnownDefinitions != version {
		c.warn("catalog_changed")
	}
	for k := range c.kinds {
		out.Warnings = append(out.Warnings, k)
	}
	sort.Strings(out.Warnings)
	return out
}

// asked is a period resolved to days: a week clipped at today says so.
type asked struct {
	span
	clipped bool
	ongoing bool // the catalogue's season, run to today as it has not ended
}

// resolve turns a period into days by walking the calendar, or refuses it.
// A range holds at most 120 days when the answer has rows by day (byDay),
// else it ends before the same date 24 months on.
func (c *call) resolve(p Period, byDay bool) (asked, *Expected) {
	cal, t := c.w.cal, c.w.today
	switch {
	case p.Named != "":
		switch p.Named {
		case "today":
			return asked{span: span{t, t}}, nil
		case "yesterday":
			return asked{span: span{t - 1, t - 1}}, nil
		case "this_week", "week_to_date":
			return asked{span: span{cal.monday(t), t}}, nil
		case "last_week":
			end := cal.monday(t) - 1
			return asked{span: span{cal.monday(end), end}}, nil
		case "this_month", "month_to_date":
			return asked{span: span{cal.monthStart(t), t}}, nil
		case "last_month":
			end := cal.monthStart(t) - 1
			return asked{span: span{cal.monthStart(end), end}}, nil
		case "quarter_to_date", "this_quarter":
			return asked{span: span{cal.quarterStart(t), t}}, nil
		case "last_quarter":
			end := cal.quarterStart(t) - 1
			return asked{span: span{cal.quarterStart(end), end}}, nil
		case "year_to_date", "this_year":
			return asked{span: span{cal.yearStart(t), t}}, nil
		case "last_year":
			end := cal.yearStart(t) - 1
			return asked{span: span{cal.yearStart(end), end}}, nil
		case "last_7_days":
			return asked{span: span{t - 7, t - 1}}, nil
		case "last_28_days":
			return asked{span: span{t - 28, t - 1}}, nil
		case "aep":
			// The demo catalogue's enrollment season, 15 October to 7
			// December: its latest run that has begun, through today.
			first := cal.backTo(t, 10, 15)
			last := cal.onTo(first, 12, 7)
			return asked{span: span{first, min(t, last)}, ongoing: last > t}, nil
		}
		return asked{}, refuse("invalid_argument", "period.named")
	case p.Day != "":
		d, valid := cal.dayOf(p.Day)
		if !valid || d > t {
			return asked{}, refuse("invalid_argument", "period.day")
		}
		return asked{span: span{d, d}}, nil
	case p.Week != "":
		d, valid := cal.dayOf(p.Week)
		if !valid || cal.monday(d) > t {
			return asked{}, refuse("invalid_argument", "period.week")
		}
		first := cal.monday(d)
		last := first
		for last < t && cal.weekday[last] != 6 {
			last++
		}
		return asked{span: span{first, last}, clipped: cal.weekday[last] != 6}, nil
	}
	a, validA := cal.dayOf(p.Start)
	b, validB := cal.dayOf(p.End)
	switch {
	case !validA:
		return asked{}, refuse("invalid_argument", "period.start")
	case !validB:
		return asked{}, refuse("invalid_argument", "period.end")
	case b < a:
		return asked{}, refuse("invalid_argument", "period")
	case b > t:
		return asked{}, refuse("invalid_argument", "period.end")
	case !withinMonths(p.Start, p.End, 24):
		return asked{}, refuse("invalid_argument", "period")
	case byDay && b-a+1 > 120:
		return asked{}, refuse("invalid_argument", "period")
	}
	return asked{span: span{a, b}}, nil
}

// withinMonths says whether a range of written dates ends before the date
// n months after its start, counted on the calendar's fields: a later month,
// or the same month and an earlier day of it (so from 29 February every day
// of the later February is within).
func withinMonths(start, end string, n int) bool {
	var y1, m1, d1, y2, m2, d2 int
	fmt.Sscanf(start, "%d-%d-%d", &y1, &m1, &d1)
	fmt.Sscanf(end, "%d-%d-%d", &y2, &m2, &d2)
	months := (y2-y1)*12 + m2 - m1
	return months < n || months == n && d2 < d1
}

// answer starts an answer over a span.
func (c *call) answer(p span) *Expected {
	return &Expected{Start: c.w.cal.date(p.first), End: c.w.cal.date(p.last), Days: p.days(),
		LeftOut: map[string]float64{}, Through: map[string][2]any{}}
}

// firstData is the first day any of the metrics has data for; false when
// none has any.
func (c *call) firstData(ms []*metric) (int, bool) {
	first, found := 0, false
	for _, m := range ms {
		if cov, ok := c.w.coverage(m); ok && (!found || cov.first < first) {
			first, found = cov.first, true
		}
	}
	return first, found
}

// beforeData says whether a span ends before the first day of data.
func (c *call) beforeData(ms []*metric, p span) bool {
	first, ok := c.firstData(ms)
	return ok && p.last < first
}

// lastFinal is the earliest day through which every metric is final; false
// when one has no data.
func (c *call) lastFinal(ms []*metric) (int, bool) {
	out := c.w.today
	for _, m := range ms {
		f, ok := c.w.final(m)
		if !ok {
			return 0, false
		}
		out = min(out, f)
	}
	return out, true
}

// unfinished says whether a span holds a day some metric is not final for.
func (c *call) unfinished(ms []*metric, p span) bool {
	l, ok := c.lastFinal(ms)
	return !ok || l < p.last
}

// liveSwap gives a report's live metrics for its defaults when the period
// lies wholly after every day a default's sources are loaded for.
func (c *call) liveSwap(rep report, ids []string, p span) []string {
	if len(rep.live) == 0 {
		return ids
	}
	for _, m := range metricsNamed(ids) {
		for _, s := range m.sources() {
			if l, ok := c.w.loaded[s]; ok && l.last >= p.first {
				return ids
			}
		}
	}
	c.warn("live_instead")
	return rep.live
}

// stamp records what the figures of metrics carry beside them: freshness,
// left-out rows, partial flags and the warnings about the span's days.
func (c *call) stamp(out *Expected, lg *ledger, p span, ms []*metric) {
	w := c.w
	for i, m := range ms {
		if _, done := out.Through[m.id]; done {
			continue
		}
		cov, loaded := w.coverage(m)
		final, _ := w.final(m)
		if loaded {
			out.Through[m.id] = [2]any{w.cal.date(cov.last), w.cal.date(final)}
		} else {
			out.Through[m.id] = [2]any{nil, nil}
		}
		left := lg.leftOut(i)
		if left > 0 {
			out.LeftOut[m.id] = float64(left)
			c.warn("left_out")
		}
		switch {
		case !loaded:
			c.warn("no_data")
		case cov.last < p.first:
			c.warn("not_loaded")
		case cov.last < p.last:
			c.warn("partly_loaded")
		}
		if p.last == w.today {
			c.warn("today")
		}
		if loaded && final < p.last && cov.last >= p.first {
			c.warn("not_final")
		}
		if loaded && p.first < cov.first && p.last >= cov.first {
			c.warn("before_data")
		}
		if !loaded || final < p.last || left > 0 {
			c.partial(out, m.id)
		}
	}
}

func (c *call) partial(out *Expected, id string) {
	if !slices.Contains(out.PartialMetrics, id) {
		out.PartialMetrics = append(out.PartialMetrics, id)
		sort.Strings(out.PartialMetrics)
	}
}

// addLeftOut adds a previous period's left-out rows to the answer's.
func (c *call) addLeftOut(out *Expected, lg *ledger) {
	for i, m := range lg.ms {
		if n := lg.leftOut(i); n > 0 {
			out.LeftOut[m.id] += float64(n)
			c.warn("left_out")
			c.partial(out, m.id)
		}
	}
}

// presence notes agents who counted on only some days of a span, and an
// agent asked for who moved teams inside it.
func (c *call) presence(l lens, p span, keys []string) {
	w := c.w
	for _, key := range keys {
		n, ok := w.agentNo[key]
		if !ok {
			continue
		}
		a := w.agents[n]
		days := 0
		for d := p.first; d <= p.last; d++ {
			if w.staffOn(a, d) && (l.who.kind == "agent" || w.counts(l, a, d)) {
				days++
			}
		}
		moved := false
		for _, m := range a.moves {
			moved = moved || l.who.kind == "agent" && m > p.first && m <= p.last
		}
		if days < p.days() || moved {
			c.warn("presence")
		}
	}
}

// presenceOf lists the agents presence looks at: the agent asked for, or
// the agents shown by agent.
func presenceOf(l lens, shown []string) []string {
	switch {
	case l.who.kind == "agent":
		return []string{l.who.key}
	case l.by == "agent":
		return shown
	}
	return nil
}

// keep orders a ledger's groups for the answer: by key, or ranked by a
// metric with the rows tied with the last kept, up to the 50-row cap. It
// returns the groups kept and whether the answer is truncated.
func (c *call) keep(groups []string, rank func(string) (float64, bool), s *Sort, topN int) ([]string, bool) {
	if s == nil {
		if len(groups) > 50 {
			c.warn("truncated")
			return groups[:50], true
		}
		return groups, false
	}
	keyed := make([]string, len(groups))
	byKey := map[string]string{}
	for i, g := range groups {
		v, ok := rank(g)
		keyed[i] = rankKey(v, ok, s.Direction != "asc", g)
		byKey[keyed[i]] = g
	}
	sort.Strings(keyed)
	n := 50
	if topN > 0 {
		n = topN
	}
	end := len(keyed)
	truncated := false
	if end > n {
		end = n
		for end < len(keyed) && end < 50 && tied(keyed[end], keyed[n-1]) {
			end++
		}
		if end > n {
			c.warn("ties")
		}
		split := end < len(keyed) && tied(keyed[end], keyed[end-1])
		truncated = topN == 0 || split
		switch {
		case split:
			c.warn("tie_cut")
		case truncated:
			c.warn("truncated")
		}
	}
	out := make([]string, end)
	for i := range out {
		out[i] = byKey[keyed[i]]
	}
	return out, truncated
}

// rankBy ranks a ledger's groups by metric i.
func rankBy(lg *ledger, i int) func(string) (float64, bool) {
	return func(g string) (float64, bool) { return lg.ms[i].value(lg.figure(g, i)) }
}

// groupCells are a row's cells before its figures: a team's or agent's key
// and name, a day, or the first day of a week, month or quarter and how
// many of the span's days it holds.
func (c *call) groupCells(by, g string, p span) []any {
	w := c.w
	switch by {
	case "team":
		if t, ok := w.teamNo[g]; ok {
			return []any{g, w.teams[t].name}
		}
		return []any{g, nil}
	case "agent":
		if a, ok := w.agentNo[g]; ok {
			return []any{g, w.agents[a].Name}
		}
		return []any{g, nil}
	case "day":
		return []any{g}
	case "week":
		monday := w.cal.number[g]
		held, _ := span{monday, monday + 6}.overlap(p)
		if held.days() < 7 {
			c.warn("cut_weeks")
		}
		return []any{g, float64(held.days())}
	case "month", "quarter":
		first := w.cal.number[g]
		whole := span{first, w.cal.monthEnd(first)}
		if by == "quarter" {
			whole.last = w.cal.monthEnd(w.cal.monthEnd(whole.last+1) + 1)
		}
		held, _ := whole.overlap(p)
		if held.days() < whole.days() {
			c.warn("cut_months")
		}
		return []any{g, float64(held.days())}
	}
	return nil
}

// groupColumns names the cells groupCells writes.
func groupColumns(by string) []string {
	switch by {
	case "team":
		return []string{"team", "team_name"}
	case "agent":
		return []string{"agent", "agent_name"}
	case "day":
		return []string{"day"}
	case "week", "month", "quarter":
		return []string{by, "days"}
	}
	return nil
}

// figureColumns names a metric's cells: the figure, and a ratio's parts.
func figureColumns(m *metric) []string {
	if m.ratio() {
		return []string{m.id, m.id + "_numerator", m.id + "_denominator"}
	}
	return []string{m.id}
}

func ids(ms []*metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.id
	}
	return out
}

// timeGrains are the groupings whose rows are runs of days.
var timeGrains = []string{"day", "week", "month", "quarter"}

// report answers hours, sales and quality.
func (c *call) report() *Expected {
	r := c.r
	rep := reportNamed(r.Tool)
	switch {
	case r.Sort != nil && !slices.Contains(rep.metrics, r.Sort.Metric):
		return refuse("invalid_argument", "sort.metric")
	case r.GroupBy == "" && r.TopN > 0:
		return refuse("invalid_argument", "top_n")
	case r.GroupBy == "" && r.Sort != nil:
		return refuse("invalid_argument", "sort")
	case (r.CompareTo == "previous_period" || r.CompareTo == "previous_year") && slices.Contains(timeGrains, r.GroupBy):
		return refuse("invalid_argument", "compare_to")
	case r.Cumulative && (!slices.Contains(timeGrains, r.GroupBy) || r.Sort != nil || r.TopN > 0):
		return refuse("invalid_argument", "cumulative")
	}
	wh, end := c.w.resolveWho(*r.Who)
	if end != nil {
		return end
	}
	p, end := c.resolve(*r.Period, r.GroupBy == "day")
	if end != nil {
		return end
	}
	// Rows by day hold at most 120 days; only a named year is longer.
	if r.GroupBy == "day" && p.days() > 120 {
		if r.Cumulative {
			return refuse("invalid_argument", "cumulative")
		}
		return refuse("invalid_argument", "group_by")
	}
	var chosen []string
	switch {
	case r.CompareCounts && r.Metrics != nil:
		return refuse("invalid_argument", "compare_counts")
	case r.CompareCounts:
		chosen = rep.bases
	case r.Metrics != nil:
		chosen = r.Metrics
	case r.CompareTo == "target":
		// Beside targets the defaults stay: the live board has none, and
		// a figure with no day loaded yet has a null target, not none.
		chosen = rep.defaults
	default:
		chosen = c.liveSwap(rep, rep.defaults, p.span)
	}
	if r.Sort != nil && !slices.Contains(chosen, r.Sort.Metric) {
		return refuse("invalid_argument", "sort.metric")
	}
	sorting := r.Sort
	if r.TopN > 0 && sorting == nil {
		sorting = &Sort{chosen[0], "desc"}
	}
	ms := metricsNamed(chosen)
	if c.beforeData(ms, p.span) {
		return refuse("invalid_argument", "period")
	}
	switch r.CompareTo {
	case "target":
		if sorting != nil && c.unfinished(ms, p.span) {
			return refuse("not_comparable", "period")
		}
		return c.besideTargets(wh, p, ms, sorting)
	case "previous_period", "previous_year":
		return c.besidePrevious(wh, p, ms, sorting)
	}
	if sorting != nil && c.unfinished(ms, p.span) {
		return refuse("not_comparable", "period")
	}
	out := c.answer(p.span)
	out.Sort, out.Metrics = sorting, chosen
	if p.clipped {
		c.warn("clipped")
	}
	l := lens{who: wh, by: r.GroupBy}
	// An agent's days carry whether they had any activity: logged hours.
	activity := wh.kind == "agent" && r.GroupBy == "day"
	counted := ms
	if activity {
		counted = append(slices.Clone(ms), metricNamed("logged_hours"))
	}
	lg := c.w.tabulate(l, p.span, counted)
	var rank func(string) (float64, bool)
	if sorting != nil {
		rank = rankBy(lg, slices.Index(chosen, sorting.Metric))
	}
	shown, truncated := c.keep(lg.groups, rank, sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = groupColumns(r.GroupBy)
	for _, m := range ms {
		out.Columns = append(out.Columns, figureColumns(m)...)
	}
	if activity {
		out.Columns = append(out.Columns, "no_activity")
	}
	running := make([]figure, len(ms))
	for _, g := range shown {
		row := c.groupCells(r.GroupBy, g, p.span)
		for i, m := range ms {
			f := lg.figure(g, i)
			if r.Cumulative && f.ok {
				running[i] = running[i].add(f)
				f = running[i]
			}
			row = append(row, m.cells(f)...)
		}
		if activity {
			switch f := lg.figure(g, len(ms)); {
			case !f.ok:
				row = append(row, nil)
			default:
				row = append(row, f.v[0] == 0)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	c.stamp(out, lg, p.span, ms)
	c.presence(l, p.span, presenceOf(l, shown))
	return out
}
