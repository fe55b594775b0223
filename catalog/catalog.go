package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Units a metric may have.
const (
	UnitCount   = "count"    // a whole number of things
	UnitHours   = "hours"    // a decimal number of hours
	UnitShare   = "share"    // a fraction between 0 and 1
	UnitPerHour = "per_hour" // things per hour
)

// Units lists every unit, in the order hints show them.
var Units = []string{UnitCount, UnitHours, UnitShare, UnitPerHour}

// Grains a source may have.
const (
	GrainAgentDay   = "agent_day"   // one row per agent per day
	GrainAgentEvent = "agent_event" // one row per event, stamped with a time
)

// Refresh kinds of a source.
const (
	RefreshNightly = "nightly"
	RefreshLive    = "live"
)

// RollupTeamDay is the rollup a nightly agent_day source may declare: its
// metrics summed by team and day over the days each team counted on the
// floor, which plumbline builds and keeps, and reads for the floor's
// reports instead of every agent-day.
const RollupTeamDay = "team_day"

// Groupings a report may offer.
const (
	GroupTeam    = "team"
	GroupAgent   = "agent"
	GroupDay     = "day"
	GroupWeek    = "week"
	GroupMonth   = "month"   // calendar months
	GroupQuarter = "quarter" // calendar quarters
)

// Groupings lists every grouping.
var Groupings = []string{GroupTeam, GroupAgent, GroupDay, GroupWeek, GroupMonth, GroupQuarter}

// Catalog is a loaded, valid catalogue.
type Catalog struct {
	version   string
	zone      *time.Location
	weekStart time.Weekday
	limits    Limits
	roster    Roster
	loads     *LoadsRelation
	targets   *TargetsRelation
	activity  *Metric
	sources   map[string]*Source
	bases     map[string]*Basis
	concepts  map[string]*Concept
	metrics   map[string]*Metric
	reports   map[string]*Report
	periods   map[string]*Period
	// periodNames are NamedPeriods, then the ids of periods.
	periodNames []string
	notes       []Note
}

// Limits bound every report call.
type Limits struct {
	MaxDays int // the longest range, and the most days of rows by day
	MaxRows int // the most rows in one answer
}

// Roster names the relations that say who is on which team, and which teams
// count as "the floor", on each day.
type Roster struct {
	Teams        TeamsRelation
	Agents       AgentsRelation
	TeamHistory  TeamHistoryRelation
	FloorHistory FloorHistoryRelation
}

// TeamsRelation is the team dimension.
type TeamsRelation struct {
	At                  Pos // where the catalogue names it
	Relation, Key, Name string
}

// AgentsRelation is the agent dimension.
type AgentsRelation struct {
	At                                      Pos // where the catalogue names it
	Relation, Key, Name, Email, Hired, Left string
}

// TeamHistoryRelation dates each agent's team: the latest row on or before a
// day says which team the agent's figures count for that day. To, when the
// catalogue names it, is the last day of each row's range (null while it
// holds), as HR systems keep it: the ranges must then follow one another
// with neither overlap nor gap, which check --db proves, so that the start
// of each range alone says the team of every day.
type TeamHistoryRelation struct {
	At                          Pos // where the catalogue names it
	Relation, Agent, Team, From string
	To                          string // empty when the rows are dated by From alone
}

// FloorHistoryRelation dates each team's place on the floor: the latest row
// on or before a day says whether the team counts as sales that day. To is
// as in TeamHistoryRelation.
type FloorHistoryRelation struct {
	At                                                     Pos // where the catalogue names it
	Relation, Team, From, CountsAsSales, DecidedBy, Reason string
	To                                                     string // empty when the rows are dated by From alone
}

// LoadsRelation is the nightly build's record of its runs: a row per run,
// naming what it loaded (Source: a nightly source's Load), the day it
// covered and when it finished (null while it runs, or when it failed). A
// nightly source's figures run to the newest day a finished run covered:
// its load watermark. A day inside the watermark with no rows is a day
// without activity, not missing data.
type LoadsRelation struct {
	At                              Pos // where the catalogue names it
	Relation, Source, Day, Finished string
}

// TargetsRelation holds each team's targets: the figure a team is asked to
// reach for a metric (by id) over a week or a calendar month (PeriodKind,
// "week" or "month", from PeriodStart), with who set it, when and why. A
// target revised has a row per version; the latest SetAt holds.
type TargetsRelation struct {
	At                                                                           Pos // where the catalogue names it
	Relation, Team, Metric, PeriodKind, PeriodStart, Value, SetBy, SetAt, Reason string
}

// Ways a target spreads over the days of its period.
const (
	// TargetAdditive: a part of the period is held to its share of the
	// days, and a floor's target is the sum of its teams'.
	TargetAdditive = "additive"
	// TargetFixed: the target holds as it is on any part of the period,
	// and no floor target follows from the teams'.
	TargetFixed = "fixed"
)

// TargetGapPoints is the rule for a ratio's target: the answer states the
// gap between figure and target in percentage points.
const TargetGapPoints = "points"

// Target periods: a target is set for a week (from its first day) or a
// calendar month.
const (
	TargetWeek  = "week"
	TargetMonth = "month"
)

// TargetPeriods are the kinds of period a target may be set for.
var TargetPeriods = []string{TargetWeek, TargetMonth}

// Target is how a metric's targets read.
type Target struct {
	OverDays string // TargetAdditive or TargetFixed
	Gap      string // TargetGapPoints for a ratio; empty for a sum
	// Periods are the kinds of target period (TargetPeriods) the metric's
	// targets are set for: over any other, it has no target.
	Periods []string
}

// SetFor reports whether the metric's targets are set for periods of kind.
func (t *Target) SetFor(kind string) bool { return slices.Contains(t.Periods, kind) }

// Settle is the rule for when a day's figures are whole: day D is whole at
// local time At on day D+DaysAfter.
type Settle struct {
	DaysAfter int
	At        time.Duration // since local midnight
}

// Source is a relation figures are summed from.
type Source struct {
	At       Pos // where the catalogue defines it
	ID       string
	Relation string // schema.name
	Grain    string // GrainAgentDay or GrainAgentEvent
	AgentKey string // column holding the agent key
	DayKey   string // column holding the day (agent_day)
	TimeKey  string // column holding the event time (agent_event)
	Columns  []string
	Nullable []string // columns that may hold NULL: a value not known yet
	Refresh  string
	Rollup   string // RollupTeamDay, or empty for none
	// Load is the value that names a nightly source's runs in the loads
	// relation's Source column: the catalogue's load:, or else Relation.
	Load        string
	Settles     Settle
	Bases       []*Basis // counting bases figures from this source may carry
	Description string
	Notes       []string // standing notes for figures from this source
}

// Basis is a counting basis for sales: the same sale counted at a different
// stage (live board, nightly submission, carrier approval).
type Basis struct {
	ID         string
	Label      string
	Definition string
	Settles    *Settle // when set, figures on this basis settle by this rule instead
}

// Concept is a definition a manager can read.
type Concept struct {
	ID   string
	Text string
}

// NamedPeriods are the periods plumbline names itself, in the order the
// schema offers them; a catalogue's own (Period) follow.
var NamedPeriods = []string{
	"today", "yesterday", "this_week", "last_week", "this_month", "last_month",
	"this_quarter", "last_quarter", "this_year", "last_year",
	"last_7_days", "last_28_days", "week_to_date", "month_to_date", "quarter_to_date", "year_to_date",
}

// Period is a named period the catalogue declares, which recurs every
// year from one day of the calendar to another (an enrollment season): a
// call that names it asks for its latest run that has begun, through today
// while it lasts.
type Period struct {
	ID         string
	From, To   MonthDay // To before From: the period runs into the next year
	Definition string
}

// MonthDay is a day of the calendar that every year has.
type MonthDay struct {
	Month time.Month
	Day   int
}

// String writes a MonthDay as the catalogue does, MM-DD.
func (d MonthDay) String() string { return fmt.Sprintf("%02d-%02d", int(d.Month), d.Day) }

// In returns the day d in year.
func (d MonthDay) In(year int) time.Time {
	return time.Date(year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

// Latest returns the days of the period's latest run that has begun by
// day t (midnight UTC standing for a day on the floor): from its first day
// through its last, which may lie after t.
func (p *Period) Latest(t time.Time) (start, end time.Time) {
	start = p.From.In(t.Year())
	if start.After(t) {
		start = p.From.In(t.Year() - 1)
	}
	end = p.To.In(start.Year())
	if end.Before(start) {
		end = p.To.In(start.Year() + 1)
	}
	return start, end
}

// Part is one summed expression over one source.
type Part struct {
	Source *Source
	Expr   *Expr
}

// Ratio is sum(Numerator) / sum(Denominator).
type Ratio struct{ Numerator, Denominator Part }

// Metric is one figure a report can return.
type Metric struct {
	ID      string
	Label   string
	Unit    string
	Concept *Concept
	Basis   *Basis // nil for figures that are not counted sales
	Sum     *Part  // set for sums
	Ratio   *Ratio // set for ratios
	// Target, when set, says the metric has targets in the catalogue's
	// targets relation, and how they read.
	Target *Target
	// Compare is how the metric is set beside the previous period
	// (compare_to previous_period): CompareDifference, ComparePoints or
	// CompareNone. A catalogue that says nothing gets points for a share
	// and difference for anything else.
	Compare string
	// Cumulative is how the metric runs day by day (cumulative: true):
	// CumulativeRunningSum, CumulativeRunningParts or CumulativeNone. A
	// catalogue that says nothing gets running_parts for a ratio and
	// running_sum for a sum.
	Cumulative string
	// LeaveOut says how unknown values are handled: an agent-day on which
	// any part is unknown (NULL, or its source not loaded that day) leaves
	// every part of the metric, and is counted. The catalogue must say so
	// for every metric whose parts can be unknown.
	LeaveOut bool

	formula string    // Formula's text, written once when the catalogue is loaded
	sources []*Source // Sources, listed once when the metric is built
}

// Rules for setting a metric beside the previous period.
const (
	// CompareDifference: the change is this period's figure minus the
	// previous one's (a ratio's each from its period's summed parts).
	CompareDifference = "difference"
	// ComparePoints: a share's change in percentage points, each period's
	// share from its own summed parts.
	ComparePoints = "points"
	// CompareNone: the metric is not set beside another period.
	CompareNone = "none"
)

// CompareRules lists every comparison rule, in the order hints show them.
var CompareRules = []string{CompareDifference, ComparePoints, CompareNone}

// Rules for a metric's running figure by day.
const (
	// CumulativeRunningSum: a sum's running total.
	CumulativeRunningSum = "running_sum"
	// CumulativeRunningParts: a ratio's running figure is the running sum
	// of its numerator over the running sum of its denominator.
	CumulativeRunningParts = "running_parts"
	// CumulativeNone: the metric has no running figure.
	CumulativeNone = "none"
)

// CumulativeRules lists every cumulative rule, in the order hints show them.
var CumulativeRules = []string{CumulativeRunningSum, CumulativeRunningParts, CumulativeNone}

// Nulls rules a metric may name.
const NullsLeaveOut = "leave_out"

// Report is a report tool: the metrics it offers and how it may group them.
type Report struct {
	ID          string
	Title       string
	Description string
	Metrics     []*Metric
	Defaults    []*Metric
	GroupBy     []string
}

// Version is a fingerprint of the catalogue's files and of the standing
// notes answers carry: it changes whenever anything in them does.
func (c *Catalog) Version() string { return c.version }

// Zone is the floor's time zone: days and weeks are days and weeks there.
func (c *Catalog) Zone() *time.Location { return c.zone }

// WeekStart is the first day of a week.
func (c *Catalog) WeekStart() time.Weekday { return c.weekStart }

// Limits bound every report call.
func (c *Catalog) Limits() Limits { return c.limits }

// Roster names the roster relations.
func (c *Catalog) Roster() Roster { return c.roster }

// Loads is the nightly build's record of its runs, or nil when the
// catalogue has no nightly source.
func (c *Catalog) Loads() *LoadsRelation { return c.loads }

// Targets is the relation of the teams' targets, or nil when the
// catalogue has none.
func (c *Catalog) Targets() *TargetsRelation { return c.targets }

// Activity is the metric whose zero means an agent did nothing on a day
// (no_activity), or nil when the catalogue names none.
func (c *Catalog) Activity() *Metric { return c.activity }

// Source returns the source with the given id.
func (c *Catalog) Source(id string) (*Source, bool) { s, ok := c.sources[id]; return s, ok }

// Sources returns every source, by id.
func (c *Catalog) Sources() []*Source { return sortedValues(c.sources) }

// Basis returns the counting basis with the given id.
func (c *Catalog) Basis(id string) (*Basis, bool) { b, ok := c.bases[id]; return b, ok }

// Bases returns every counting basis, by id.
func (c *Catalog) Bases() []*Basis { return sortedValues(c.bases) }

// Periods returns the catalogue's own named periods, by id.
func (c *Catalog) Periods() []*Period { return sortedValues(c.periods) }

// PeriodNames lists the named periods a call may ask for: plumbline's own
// (NamedPeriods), then the catalogue's, by id. The list is shared: do not
// change it.
func (c *Catalog) PeriodNames() []string { return c.periodNames }

// Period returns the catalogue's named period with the given id.
func (c *Catalog) Period(id string) (*Period, bool) { p, ok := c.periods[id]; return p, ok }

// Concepts returns every concept, by id.
func (c *Catalog) Concepts() []*Concept { return sortedValues(c.concepts) }

// Metric returns the metric with the given id.
func (c *Catalog) Metric(id string) (*Metric, bool) { m, ok := c.metrics[id]; return m, ok }

// Metrics returns every metric, by id.
func (c *Catalog) Metrics() []*Metric { return sortedValues(c.metrics) }

// Report returns the report with the given id.
func (c *Catalog) Report(id string) (*Report, bool) { r, ok := c.reports[id]; return r, ok }

// Reports returns every report, by id.
func (c *Catalog) Reports() []*Report { return sortedValues(c.reports) }

// Relations returns every relation the catalogue reads, sorted: the roster
// relations and every source's.
func (c *Catalog) Relations() []string {
	set := map[string]bool{
		c.roster.Teams.Relation: true, c.roster.Agents.Relation: true,
		c.roster.TeamHistory.Relation: true, c.roster.FloorHistory.Relation: true,
	}
	for _, s := range c.sources {
		set[s.Relation] = true
	}
	if c.loads != nil {
		set[c.loads.Relation] = true
	}
	if c.targets != nil {
		set[c.targets.Relation] = true
	}
	return sortedKeys(set)
}

// Parts returns the metric's summed parts: one for a sum, numerator then
// denominator for a ratio.
func (m *Metric) Parts() []Part {
	if m.Ratio != nil {
		return []Part{m.Ratio.Numerator, m.Ratio.Denominator}
	}
	return []Part{*m.Sum}
}

// CanBeUnknown reports whether a part of the metric can be unknown on an
// agent-day: it reads a nullable column, or it is a ratio whose parts come
// from two sources, which may be loaded to different days.
func (m *Metric) CanBeUnknown() bool {
	if len(m.Sources()) > 1 {
		return true
	}
	for _, p := range m.Parts() {
		for _, col := range p.Expr.Columns() {
			if slices.Contains(p.Source.Nullable, col) {
				return true
			}
		}
	}
	return false
}

// IsRatio reports whether the metric is a ratio of two sums.
func (m *Metric) IsRatio() bool { return m.Ratio != nil }

// Definition is the text of the metric's concept.
func (m *Metric) Definition() string { return m.Concept.Text }

// Sources returns the distinct sources the metric reads, numerator first.
// The list is the metric's own: callers only read it.
func (m *Metric) Sources() []*Source { return m.sources }

// listSources lists the distinct sources of the metric's parts, as Sources
// returns them.
func (m *Metric) listSources() []*Source {
	var out []*Source
	for _, p := range m.Parts() {
		if len(out) == 0 || out[0] != p.Source {
			out = append(out, p.Source)
		}
	}
	return out
}

// Relation names the relation(s) the metric is summed from.
func (m *Metric) Relation() string {
	names := make([]string, len(m.sources))
	for i, s := range m.sources {
		names[i] = s.Relation
	}
	return strings.Join(names, " / ")
}

// Formula writes the metric out as sums, e.g. "sum(submitted) / sum(submitted + lost)".
// Parts of a ratio across two sources are qualified by their relation.
func (m *Metric) Formula() string { return m.formula }

// writeFormula writes the metric out as Formula returns it.
func (m *Metric) writeFormula() string {
	cross := len(m.Sources()) > 1
	sum := func(p Part) string {
		if cross {
			return "sum(" + p.Source.Relation + ": " + p.Expr.String() + ")"
		}
		return "sum(" + p.Expr.String() + ")"
	}
	if m.Ratio != nil {
		return sum(m.Ratio.Numerator) + " / " + sum(m.Ratio.Denominator)
	}
	return sum(*m.Sum)
}

// Settles returns the rule by which the metric's figures become whole: the
// basis's rule when the basis has one, else the latest of its sources' rules.
func (m *Metric) Settles() Settle {
	if m.Basis != nil && m.Basis.Settles != nil {
		return *m.Basis.Settles
	}
	var rule Settle
	for _, s := range m.Sources() {
		if s.Settles.later(rule) {
			rule = s.Settles
		}
	}
	return rule
}

func (s Settle) later(o Settle) bool {
	return s.DaysAfter*24*int(time.Hour)+int(s.At) > o.DaysAfter*24*int(time.Hour)+int(o.At)
}

// String writes the rule for a person: "whole 1 day after, at 06:00".
func (s Settle) String() string {
	at := time.Time{}.Add(s.At).Format("15:04")
	switch s.DaysAfter {
	case 0:
		return "whole the same day at " + at
	case 1:
		return "whole the next day at " + at
	default:
		return "whole " + strconv.Itoa(s.DaysAfter) + " days later at " + at
	}
}

// Offers reports whether the report may return the metric.
func (r *Report) Offers(id string) bool {
	for _, m := range r.Metrics {
		if m.ID == id {
			return true
		}
	}
	return false
}

// MetricIDs returns the ids of the report's metrics, in catalogue order.
func (r *Report) MetricIDs() []string {
	ids := make([]string, len(r.Metrics))
	for i, m := range r.Metrics {
		ids[i] = m.ID
	}
	return ids
}

func sortedValues[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// Where returns where the catalogue first names a relation it reads (the
// roster, loads and targets sections, then the sources by id), or the zero
// Pos for one it does not read.
func (c *Catalog) Where(relation string) Pos {
	type place struct {
		rel string
		at  Pos
	}
	ro := c.roster
	places := []place{{ro.Teams.Relation, ro.Teams.At}, {ro.Agents.Relation, ro.Agents.At},
		{ro.TeamHistory.Relation, ro.TeamHistory.At}, {ro.FloorHistory.Relation, ro.FloorHistory.At}}
	if c.loads != nil {
		places = append(places, place{c.loads.Relation, c.loads.At})
	}
	if c.targets != nil {
		places = append(places, place{c.targets.Relation, c.targets.At})
	}
	for _, s := range c.Sources() {
		places = append(places, place{s.Relation, s.At})
	}
	for _, p := range places {
		if p.rel == relation {
			return p.at
		}
	}
	return Pos{}
}
