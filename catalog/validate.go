package catalog

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file checks the merged catalogue against the rules and builds the
// Catalog from it.

var (
	identRE    = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	relationRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$`)
)

// ReservedReportIDs are tool names plumbline defines itself; no catalogue
// report may take one.
var ReservedReportIDs = []string{
	"find_people", "freshness", "health", "league", "metric_definitions",
	"roster", "team_day", "team_weeks",
}

// Defaults for settings a catalogue may leave out.
const (
	DefaultMaxDays = 120
	DefaultMaxRows = 50
)

type builder struct {
	raw  *rawFile
	errs *errorList
	cat  *Catalog
}

func build(raw *rawFile, errs *errorList) *Catalog {
	b := &builder{raw: raw, errs: errs, cat: &Catalog{
		sources:  map[string]*Source{},
		bases:    map[string]*Basis{},
		concepts: map[string]*Concept{},
		metrics:  map[string]*Metric{},
		reports:  map[string]*Report{},
		periods:  map[string]*Period{},
	}}
	b.settings()
	b.roster()
	b.loads()
	b.targets()
	b.bases()
	b.sources()
	b.concepts()
	b.metrics()
	b.activity()
	b.reports()
	b.periods()
	return b.cat
}

// activity names the metric whose zero means an agent did nothing that day.
func (b *builder) activity() {
	r := b.raw.Activity
	if r == nil {
		return
	}
	m, ok := b.cat.metrics[r.Value]
	switch {
	case !ok:
		b.errs.add(r.At, "name a metric, such as logged_hours", "activity names unknown metric %q", r.Value)
	case m.IsRatio():
		b.errs.add(r.At, "name a sum such as logged hours; zero of it means no activity", "activity metric %q is a ratio", r.Value)
	default:
		b.cat.activity = m
	}
}

func (b *builder) settings() {
	c, raw := b.cat, b.raw
	if raw.TimeZone == nil {
		b.errs.add(raw.At, "add time_zone: America/New_York (or the floor's zone) to one file", "the catalogue has no time_zone")
	} else if zone, err := time.LoadLocation(raw.TimeZone.Value); err != nil {
		b.errs.add(raw.TimeZone.At, "use an IANA zone name such as America/New_York", "unknown time zone %q", raw.TimeZone.Value)
	} else {
		c.zone = zone
	}
	c.weekStart = time.Monday
	if raw.WeekStarts != nil {
		switch raw.WeekStarts.Value {
		case "monday":
		case "sunday":
			c.weekStart = time.Sunday
		default:
			b.errs.add(raw.WeekStarts.At, "one of monday, sunday", "week_starts must be a day a week can start on")
		}
	}
	c.limits = Limits{MaxDays: DefaultMaxDays, MaxRows: DefaultMaxRows}
	if l := raw.Limits; l != nil {
		if l.MaxDays != nil {
			c.limits.MaxDays = b.bounded(*l.MaxDays, 1, 366, l.At, "limits.max_days")
		}
		if l.MaxRows != nil {
			c.limits.MaxRows = b.bounded(*l.MaxRows, 1, 500, l.At, "limits.max_rows")
		}
	}
}

func (b *builder) bounded(v, lo, hi int, at Pos, what string) int {
	if v < lo || v > hi {
		b.errs.add(at, "use a value from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi), "%s is out of range", what)
	}
	return v
}

func (b *builder) roster() {
	r := b.raw.Roster
	if r == nil {
		b.errs.add(b.raw.At, "add a roster: section naming the teams, agents, team_history and floor_history relations",
			"the catalogue has no roster")
		return
	}
	ro := &b.cat.roster
	if t := r.Teams; t != nil {
		ro.Teams = TeamsRelation{At: t.At, Relation: b.relation(t.Relation), Key: b.column(t.Key), Name: b.column(t.Name)}
	}
	if a := r.Agents; a != nil {
		ro.Agents = AgentsRelation{At: a.At, Relation: b.relation(a.Relation), Key: b.column(a.Key), Name: b.column(a.Name),
			Email: b.column(a.Email), Hired: b.column(a.Hired), Left: b.column(a.Left)}
	}
	if h := r.TeamHistory; h != nil {
		ro.TeamHistory = TeamHistoryRelation{At: h.At, Relation: b.relation(h.Relation), Agent: b.column(h.Agent), Team: b.column(h.Team),
			From: b.column(h.From), To: b.column(h.To)}
	}
	if f := r.FloorHistory; f != nil {
		ro.FloorHistory = FloorHistoryRelation{At: f.At, Relation: b.relation(f.Relation), Team: b.column(f.Team), From: b.column(f.From),
			To: b.column(f.To), CountsAsSales: b.column(f.CountsAsSales), DecidedBy: b.column(f.DecidedBy), Reason: b.column(f.Reason)}
	}
}

func (b *builder) loads() {
	l := b.raw.Loads
	if l == nil {
		return
	}
	b.cat.loads = &LoadsRelation{At: l.At, Relation: b.relation(l.Relation), Source: b.column(l.Source), Day: b.column(l.Day),
		Finished: b.column(l.Finished)}
}

func (b *builder) targets() {
	t := b.raw.Targets
	if t == nil {
		return
	}
	b.cat.targets = &TargetsRelation{At: t.At, Relation: b.relation(t.Relation), Team: b.column(t.Team), Metric: b.column(t.Metric),
		PeriodKind: b.column(t.PeriodKind), PeriodStart: b.column(t.PeriodStart), Value: b.column(t.Value), SetBy: b.column(t.SetBy),
		SetAt: b.column(t.SetAt), Reason: b.column(t.Reason)}
}

// target checks a metric's target rule: targets need the catalogue's
// targets relation; a count's may spread over days, a ratio's never does
// and must say how its gap reads, since a ratio's target is no sum.
func (b *builder) target(m *Metric, r *rawMetric) {
	t := r.Target
	if t == nil {
		return
	}
	m.Target = &Target{OverDays: t.OverDays.Value, Gap: t.Gap.Value}
	for _, p := range t.Periods {
		switch {
		case !slices.Contains(TargetPeriods, p.Value):
			b.errs.add(p.At, oneOf(TargetPeriods), "unknown target period %q", p.Value)
		case slices.Contains(m.Target.Periods, p.Value):
			b.errs.add(p.At, "list each target period once", "target period %q is listed twice", p.Value)
		default:
			m.Target.Periods = append(m.Target.Periods, p.Value)
		}
	}
	if len(t.Periods) == 0 {
		m.Target.Periods = TargetPeriods
	}
	if b.raw.Targets == nil {
		b.errs.add(t.At, "add a targets: section naming the relation of the teams' targets (relation, team, metric, period_kind, "+
			"period_start, value, set_by, set_at, reason)", "metric %q has a target but the catalogue names no targets relation", m.ID)
	}
	switch t.OverDays.Value {
	case TargetAdditive, TargetFixed:
	case "":
		// over_days is required: the decoder has said it is missing, and where.
	default:
		b.errs.add(t.OverDays.At, oneOf([]string{TargetAdditive, TargetFixed}), "unknown over_days rule %q", t.OverDays.Value)
	}
	isRatio := r.Ratio != nil
	switch {
	case isRatio && t.OverDays.Value == TargetAdditive:
		b.errs.add(t.OverDays.At, "a ratio's target holds as it is on any part of its period: write over_days: fixed",
			"the target of ratio %q cannot be spread over days", m.ID)
	case isRatio && t.Gap.Value == "":
		b.errs.add(t.At, "add gap: points (the answer states the gap between figure and target in percentage points)",
			"the target of ratio %q has no rule for its gap", m.ID)
	case isRatio && t.Gap.Value != TargetGapPoints:
		b.errs.add(t.Gap.At, "the one rule is gap: points", "unknown gap rule %q", t.Gap.Value)
	case !isRatio && t.Gap.Value != "":
		b.errs.add(t.Gap.At, "a sum's attainment is the figure over its target; leave gap: out", "gap: is for ratios, and %q is a sum", m.ID)
	}
}

// A twoWayRule is a metric's rule with one choice natural to a plain
// metric, another natural to a marked one (a share, say, or a ratio), and
// none. Left out, the rule is the natural one; each of the two, written
// for the other kind of metric, is refused.
type twoWayRule struct {
	key                 string   // the rule's key in the catalogue
	plain, marked, none string   // its choices
	choices             []string // every choice, in the order hints show them
	// The hint and the message (of the metric's id) where a plain choice
	// is written for a marked metric, and where a marked one is written
	// for a plain metric.
	plainHint, plainMsg   string
	markedHint, markedMsg string
}

// compareRule is a metric's rule beside the previous period: a share's
// change reads in points and only a share's does.
var compareRule = twoWayRule{
	key: "compare", plain: CompareDifference, marked: ComparePoints, none: CompareNone, choices: CompareRules,
	plainHint:  "write compare: points (each period's share from its own summed parts)",
	plainMsg:   "the change of share %q reads in percentage points, not as a difference",
	markedHint: "write compare: difference (this period's figure minus the previous one's)",
	markedMsg:  "compare: points is a share's change in percentage points, and %q is not a share ratio",
}

// cumulativeRule is a metric's rule for a running figure by day: a running
// ratio is the ratio of the running sums of its parts, never a running sum
// of daily ratios.
var cumulativeRule = twoWayRule{
	key: "cumulative", plain: CumulativeRunningSum, marked: CumulativeRunningParts, none: CumulativeNone, choices: CumulativeRules,
	plainHint:  "write cumulative: running_parts",
	plainMsg:   "%q is a ratio, and a running ratio is the ratio of the running sums of its parts, not a running sum",
	markedHint: "write cumulative: running_sum (a sum's running total)",
	markedMsg:  "%q is a sum, which has no parts to run: running_parts is for ratios",
}

// choose returns the choice of rule written at r for metric m, marked or
// not, or the natural one where none is written, and says what is wrong
// with what is written.
func (b *builder) choose(rule twoWayRule, r ref, m *Metric, marked bool) string {
	switch r.Value {
	case "":
		if marked {
			return rule.marked
		}
		return rule.plain
	case rule.plain:
		if marked {
			b.errs.add(r.At, rule.plainHint, rule.plainMsg, m.ID)
		}
	case rule.marked:
		if !marked {
			b.errs.add(r.At, rule.markedHint, rule.markedMsg, m.ID)
		}
	case rule.none:
	default:
		b.errs.add(r.At, oneOf(rule.choices), "unknown "+rule.key+" rule %q", r.Value)
	}
	return r.Value
}

func (b *builder) relation(r ref) string {
	if r.Value != "" && !relationRE.MatchString(r.Value) {
		b.errs.add(r.At, "write schema.relation in lower case, e.g. metrics.agent_sales_daily", "%q is not a schema-qualified relation name", r.Value)
	}
	return r.Value
}

func (b *builder) column(r ref) string {
	if r.Value != "" && !identRE.MatchString(r.Value) {
		b.errs.add(r.At, "column names are lower case letters, digits and _", "%q is not a column name", r.Value)
	}
	return r.Value
}

func (b *builder) id(kind, id string, at Pos) {
	if !identRE.MatchString(id) {
		b.errs.add(at, "ids are lower case letters, digits and _, starting with a letter", "%s id %q is not a valid id", kind, id)
	}
}

func (b *builder) settle(r *rawSettle) *Settle {
	if r == nil || r.DaysAfter == nil {
		return nil
	}
	s := &Settle{DaysAfter: b.bounded(*r.DaysAfter, 0, 60, r.At, "settles.days_after")}
	if r.Time.Value != "" {
		t, err := time.Parse("15:04", r.Time.Value)
		if err != nil {
			b.errs.add(r.Time.At, "write a 24-hour local time such as \"06:00\"", "settles.at is not a time of day")
		}
		s.At = time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
	}
	return s
}

func (b *builder) bases() {
	for _, id := range sortedKeys(b.raw.Bases) {
		r := b.raw.Bases[id]
		b.id("basis", id, r.At)
		b.cat.bases[id] = &Basis{ID: id, Label: r.Label, Definition: r.Definition, Settles: b.settle(r.Settles)}
	}
}

func (b *builder) sources() {
	for _, id := range sortedKeys(b.raw.Sources) {
		r := b.raw.Sources[id]
		b.id("source", id, r.At)
		s := &Source{At: r.At, ID: id, Relation: b.relation(r.Relation), Grain: r.Grain.Value,
			AgentKey: b.column(r.Keys.Agent), DayKey: b.column(r.Keys.Day), TimeKey: b.column(r.Keys.Time),
			Refresh: r.Refresh.Value, Load: r.Load.Value, Rollup: r.Rollup.Value, Description: r.Description, Notes: r.Notes}
		switch {
		case s.Load != "" && s.Refresh != RefreshNightly:
			b.errs.add(r.Load.At, "remove load:, or make the source nightly",
				"source %q names its runs in the loads relation, but only a nightly source is read up to its load watermark", id)
		case s.Load == "":
			s.Load = s.Relation
		}
		keysAt := r.Keys.At
		if keysAt.File == "" { // keys left empty: the source is the place
			keysAt = r.At
		}
		switch s.Grain {
		case GrainAgentDay:
			if s.DayKey == "" {
				b.errs.add(keysAt, "add day: naming the date column", "an agent_day source needs keys.day")
			}
		case GrainAgentEvent:
			if s.TimeKey == "" {
				b.errs.add(keysAt, "add time: naming the timestamp column", "an agent_event source needs keys.time")
			}
		case "":
		default:
			b.errs.add(r.Grain.At, oneOf([]string{GrainAgentDay, GrainAgentEvent}), "unknown grain %q", s.Grain)
		}
		if s.Refresh != "" && s.Refresh != RefreshNightly && s.Refresh != RefreshLive {
			b.errs.add(r.Refresh.At, oneOf([]string{RefreshNightly, RefreshLive}), "unknown refresh %q", s.Refresh)
		}
		if s.Refresh == RefreshNightly && b.raw.Loads == nil {
			b.errs.add(r.Refresh.At, "add a loads: section naming the nightly build's record of its runs (relation, source, day, finished)",
				"nightly source %q has no load watermark: how far it is loaded cannot come from its newest row, as a day without activity has no rows", id)
		}
		switch {
		case s.Rollup == "":
		case s.Rollup != RollupTeamDay:
			b.errs.add(r.Rollup.At, oneOf([]string{RollupTeamDay}), "unknown rollup %q", s.Rollup)
		case s.Grain != GrainAgentDay || s.Refresh != RefreshNightly:
			b.errs.add(r.Rollup.At, "remove rollup:, or roll up a nightly agent_day source",
				"source %q cannot be rolled up: a rollup is rebuilt when a nightly load finishes, from rows of agent-days", id)
		}
		if rule := b.settle(r.Settles); rule != nil {
			s.Settles = *rule
		}
		b.sourceColumns(s, r)
		for _, ref := range r.Bases {
			if basis, ok := b.cat.bases[ref.Value]; ok {
				s.Bases = append(s.Bases, basis)
			} else {
				b.errs.add(ref.At, oneOf(sortedKeys(b.cat.bases)), "unknown basis %q", ref.Value)
			}
		}
		b.cat.sources[id] = s
	}
}

func (b *builder) sourceColumns(s *Source, r *rawSource) {
	if len(r.Columns) == 0 {
		b.errs.add(r.At, "list the numeric columns metrics may sum under columns:", "source %q declares no columns", s.ID)
	}
	for _, c := range r.Columns {
		name := b.column(c)
		switch {
		case slices.Contains(s.Columns, name):
			b.errs.add(c.At, "list each column once", "column %q is listed twice", name)
		case name == s.AgentKey || name == s.DayKey || name == s.TimeKey:
			b.errs.add(c.At, "columns: lists the figures to sum, not the keys", "key column %q cannot be summed", name)
		default:
			s.Columns = append(s.Columns, name)
		}
	}
	for _, c := range r.Nullable {
		switch name := b.column(c); {
		case !slices.Contains(s.Columns, name):
			b.errs.add(c.At, "nullable: lists columns from columns: ("+strings.Join(s.Columns, ", ")+")", "nullable column %q is not among the source's columns", name)
		case slices.Contains(s.Nullable, name):
			b.errs.add(c.At, "list each column once", "nullable column %q is listed twice", name)
		default:
			s.Nullable = append(s.Nullable, name)
		}
	}
}

// periods reads the catalogue's named periods: each recurs every year from
// one day to another, has a definition, and is named as none of
// plumbline's own periods is.
func (b *builder) periods() {
	ids := sortedKeys(b.raw.Periods)
	b.cat.periodNames = slices.Concat(NamedPeriods, ids)
	for _, id := range ids {
		r := b.raw.Periods[id]
		b.id("period", id, r.At)
		if slices.Contains(NamedPeriods, id) {
			b.errs.add(r.At, "name it apart from plumbline's own periods ("+strings.Join(NamedPeriods, ", ")+")", "period %q is one of plumbline's own", id)
		}
		if r.Definition.At.Line != 0 && strings.TrimSpace(r.Definition.Value) == "" { // a missing one decoding has reported
			b.errs.add(r.Definition.At, "say in a sentence what the period is", "period %q has no definition", id)
		}
		b.cat.periods[id] = &Period{ID: id, From: b.monthDay(r.From, id, "from"), To: b.monthDay(r.To, id, "to"), Definition: strings.TrimSpace(r.Definition.Value)}
	}
}

// monthDay reads a day of the calendar, MM-DD, that every year has: a
// period's from or to.
func (b *builder) monthDay(r ref, period, field string) MonthDay {
	t, err := time.Parse("01-02", r.Value)
	switch {
	case r.At.Line == 0: // no such key at all, which decoding has reported
	case err != nil || len(r.Value) != 5:
		b.errs.add(r.At, "write the month and the day as MM-DD, such as \"10-15\"", "period %q: %s is not a day of the calendar", period, field)
	case t.Month() == time.February && t.Day() == 29:
		b.errs.add(r.At, "choose a day every year has, such as 02-28 or 03-01", "period %q: %s is 29 February, which most years lack", period, field)
	}
	return MonthDay{Month: t.Month(), Day: t.Day()}
}

func (b *builder) concepts() {
	for _, id := range sortedKeys(b.raw.Concepts) {
		r := b.raw.Concepts[id]
		b.id("concept", id, r.At)
		b.cat.concepts[id] = &Concept{ID: id, Text: r.Text}
	}
}

func (b *builder) metrics() {
	for _, id := range sortedKeys(b.raw.Metrics) {
		r := b.raw.Metrics[id]
		b.id("metric", id, r.At)
		m := &Metric{ID: id, Label: r.Label, Unit: r.Unit.Value}
		if r.Unit.Value != "" && !slices.Contains(Units, r.Unit.Value) {
			b.errs.add(r.Unit.At, oneOf(Units), "unknown unit %q", r.Unit.Value)
		}
		if c, ok := b.cat.concepts[r.Concept.Value]; ok {
			m.Concept = c
		} else if r.Concept.Value != "" {
			b.errs.add(r.Concept.At, "define it under concepts: or use "+oneOf(sortedKeys(b.cat.concepts)), "unknown concept %q", r.Concept.Value)
		}
		b.shape(m, r)
		if m.Sum != nil || m.Ratio != nil {
			m.sources = m.listSources()
		}
		b.basis(m, r)
		b.nulls(m, r)
		b.target(m, r)
		m.Compare = b.choose(compareRule, r.Compare, m, r.Ratio != nil && m.Unit == UnitShare)
		m.Cumulative = b.choose(cumulativeRule, r.Cumulative, m, r.Ratio != nil)
		b.cat.metrics[id] = m
	}
}

// shape checks that a metric is exactly one of a sum or a ratio, that its
// unit fits, and builds its parts.
func (b *builder) shape(m *Metric, r *rawMetric) {
	switch {
	case r.Sum != nil && r.Ratio != nil:
		b.errs.add(r.At, "keep sum: for a total or ratio: for a rate, not both", "metric %q has both sum: and ratio:", m.ID)
	case r.Sum == nil && r.Ratio == nil:
		b.errs.add(r.At, "add sum: for a total or ratio: with numerator: and denominator: for a rate", "metric %q has neither sum: nor ratio:", m.ID)
	case r.Sum != nil:
		if m.Unit == UnitShare || m.Unit == UnitPerHour {
			b.errs.add(r.Unit.At, "a share or a per-hour figure is a ratio: of two sums", "a sum cannot have unit %q", m.Unit)
		}
		m.Sum = b.part(m, r, &rawPart{At: r.Sum.At, Sum: *r.Sum})
	default:
		if m.Unit == UnitCount || m.Unit == UnitHours {
			b.errs.add(r.Unit.At, "a ratio's unit is share or per_hour", "a ratio cannot have unit %q", m.Unit)
		}
		num, den := b.part(m, r, r.Ratio.Numerator), b.part(m, r, r.Ratio.Denominator)
		if num == nil || den == nil {
			return
		}
		m.Ratio = &Ratio{Numerator: *num, Denominator: *den}
		if num.Source.Grain != den.Source.Grain {
			b.errs.add(r.Ratio.At, "a ratio across two sources needs sources of one grain",
				"numerator source %q has grain %s but denominator source %q has grain %s",
				num.Source.ID, num.Source.Grain, den.Source.ID, den.Source.Grain)
		}
	}
}

// nulls checks that a metric whose parts can be unknown says how unknown
// values are handled: unknown is never zero, and a ratio's parts must come
// from the same agent-days.
func (b *builder) nulls(m *Metric, r *rawMetric) {
	switch r.Nulls.Value {
	case NullsLeaveOut:
		m.LeaveOut = true
	case "":
	default:
		b.errs.add(r.Nulls.At, "the one rule is nulls: leave_out", "unknown nulls rule %q", r.Nulls.Value)
		return
	}
	if m.Sum == nil && m.Ratio == nil || m.LeaveOut || !m.CanBeUnknown() {
		return
	}
	why := "it reads a column listed as nullable"
	if len(m.Sources()) > 1 {
		why = "its parts come from two sources, which may be loaded to different days"
	}
	b.errs.add(r.At, "add nulls: leave_out (an agent-day with an unknown part leaves every part, and the answer counts it)",
		"metric %q can meet unknown values (%s) but does not say how they are handled", m.ID, why)
}

// part builds one summed expression. Its source is the part's own, or the
// metric's.
func (b *builder) part(m *Metric, r *rawMetric, p *rawPart) *Part {
	if p == nil {
		return nil
	}
	srcRef := p.Source
	if srcRef.Value == "" {
		srcRef = r.Source
	}
	if srcRef.Value == "" {
		b.errs.add(p.At, "add source: to the metric, or write the part as {source: …, sum: …}", "metric %q names no source for this sum", m.ID)
		return nil
	}
	src, ok := b.cat.sources[srcRef.Value]
	if !ok {
		b.errs.add(srcRef.At, oneOf(sortedKeys(b.cat.sources)), "unknown source %q", srcRef.Value)
		return nil
	}
	if p.Sum.At.Line == 0 { // no sum: at all, which decoding has reported
		return nil
	}
	expr, err := ParseExpr(p.Sum.Value)
	if err != nil {
		at := p.Sum.At
		var fe *FormulaError
		if errors.As(err, &fe) {
			at.Column += fe.Offset
		}
		b.errs.add(at, "a formula is column arithmetic such as submitted + lost", "%s", err)
		return nil
	}
	for _, col := range expr.Columns() {
		if !slices.Contains(src.Columns, col) {
			b.errs.add(p.Sum.At, "use "+oneOf(src.Columns)+", or declare the column under the source's columns:",
				"%q is not a column of source %q", col, src.ID)
		}
	}
	return &Part{Source: src, Expr: expr}
}

// basis checks a metric's counting basis: required exactly when a source it
// reads declares bases, and one that every such source allows.
func (b *builder) basis(m *Metric, r *rawMetric) {
	if r.Basis.Value != "" {
		basis, ok := b.cat.bases[r.Basis.Value]
		if !ok {
			b.errs.add(r.Basis.At, oneOf(sortedKeys(b.cat.bases)), "unknown basis %q", r.Basis.Value)
			return
		}
		m.Basis = basis
	}
	if m.Sum == nil && m.Ratio == nil {
		return
	}
	counted := false
	for _, src := range m.Sources() {
		if len(src.Bases) == 0 {
			continue
		}
		counted = true
		var allowed []string
		for _, basis := range src.Bases {
			allowed = append(allowed, basis.ID)
		}
		switch {
		case m.Basis == nil && r.Basis.Value == "":
			b.errs.add(r.At, "add basis: "+oneOf(allowed), "metric %q counts sales from %q but names no counting basis", m.ID, src.ID)
		case m.Basis != nil && !slices.Contains(allowed, m.Basis.ID):
			b.errs.add(r.Basis.At, "source "+src.ID+" allows "+oneOf(allowed), "source %q does not count on basis %q", src.ID, m.Basis.ID)
		}
	}
	if !counted && m.Basis != nil {
		b.errs.add(r.Basis.At, "remove basis:, or list the basis under the source's bases:", "metric %q reads no source that counts on a basis", m.ID)
	}
}

func (b *builder) reports() {
	if len(b.raw.Reports) == 0 {
		b.errs.add(b.raw.At, "add a reports: section offering at least one report", "the catalogue offers no reports")
	}
	for _, id := range sortedKeys(b.raw.Reports) {
		r := b.raw.Reports[id]
		b.id("report", id, r.At)
		if slices.Contains(ReservedReportIDs, id) {
			b.errs.add(r.At, "choose a name other than "+oneOf(ReservedReportIDs), "report id %q is a tool plumbline defines itself", id)
		}
		rep := &Report{ID: id, Title: r.Title, Description: r.Description}
		rep.Metrics = b.metricList(r.Metrics, nil)
		rep.Defaults = b.metricList(r.DefaultMetrics, rep)
		if len(rep.Defaults) == 0 {
			rep.Defaults = rep.Metrics
		}
		for _, g := range r.GroupBy {
			switch {
			case !slices.Contains(Groupings, g.Value):
				b.errs.add(g.At, oneOf(Groupings), "unknown group_by %q", g.Value)
			case slices.Contains(rep.GroupBy, g.Value):
				b.errs.add(g.At, "list each grouping once", "group_by %q is listed twice", g.Value)
			default:
				rep.GroupBy = append(rep.GroupBy, g.Value)
			}
		}
		b.cat.reports[id] = rep
	}
}

// metricList resolves a list of metric ids; within names the report whose
// metrics the list must be drawn from, for default_metrics.
func (b *builder) metricList(refs []ref, within *Report) []*Metric {
	var out []*Metric
	for _, ref := range refs {
		m, ok := b.cat.metrics[ref.Value]
		switch {
		case !ok:
			b.errs.add(ref.At, "define it under metrics: or use "+oneOf(sortedKeys(b.cat.metrics)), "unknown metric %q", ref.Value)
		case within != nil && !within.Offers(ref.Value):
			b.errs.add(ref.At, "default metrics come from the report's metrics: "+oneOf(within.MetricIDs()), "metric %q is not among the report's metrics", ref.Value)
		case slices.Contains(out, m):
			b.errs.add(ref.At, "list each metric once", "metric %q is listed twice", ref.Value)
		default:
			out = append(out, m)
		}
	}
	return out
}
