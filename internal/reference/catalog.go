package reference

import "time"

// The demo catalogue (catalog/demo/*.yaml), written out again by hand: its
// sources with their settle rules, each metric as the columns it sums, and
// the reports with their metrics and defaults. Nothing here is read from the
// catalogue package.

// settleRule says when a day is final: on the after-th day after it, at the
// local wall-clock time at.
type settleRule struct {
	after int
	at    time.Duration
}

// source is a relation figures come from.
type source struct {
	slot     int // its place among a day's stored rows
	relation string
	live     bool // loaded from its first entry through today
	settle   settleRule
}

var (
	timeSource    = &source{slot: 0, relation: "metrics.agent_time_daily", settle: timeRule}
	salesSource   = &source{slot: 1, relation: "metrics.agent_sales_daily", settle: nightlyRule}
	qualitySource = &source{slot: 2, relation: "metrics.agent_quality_daily", settle: nightlyRule}
	boardSource   = &source{slot: 3, relation: "live.sales_board", live: true, settle: boardRule}
	everySource   = []*source{timeSource, salesSource, qualitySource, boardSource}
)

// column is a numeric column of a source. Hours are kept in hundredths, so
// that every sum is a sum of whole numbers.
type column struct {
	src   *source
	field int   // index into a day's stored values
	scale int64 // stored units per unit stated
}

// the stored values of an agent-day, by field
const (
	fLogged = iota
	fAvailable
	fTalk
	fSubmitted
	fLost
	fApproved
	fPassed
	fFailed
	fBoard
	fieldCount
)

var (
	loggedHours    = column{timeSource, fLogged, 100}
	availableHours = column{timeSource, fAvailable, 100}
	talkHours      = column{timeSource, fTalk, 100}
	submitted      = column{salesSource, fSubmitted, 1}
	lost           = column{salesSource, fLost, 1}
	approved       = column{salesSource, fApproved, 1}
	auditsPassed   = column{qualitySource, fPassed, 1}
	auditsFailed   = column{qualitySource, fFailed, 1}
	boardEntries   = column{boardSource, fBoard, 1}
)

// term is a sum of columns of one source: one part of a metric.
type term []column

// unit kinds
const (
	unitCount   = "count"
	unitHours   = "hours"
	unitShare   = "share"
	unitPerHour = "per_hour"
)

// targetRule is how a metric's targets read: spread over days (additive)
// or holding on any day (fixed), and the kinds of period they are set for.
type targetRule struct {
	additive bool
	periods  []string
}

// metric is a catalogue metric: one term for a sum, a numerator and a
// denominator for a ratio.
type metric struct {
	id     string
	unit   string
	terms  []term
	settle settleRule
	target *targetRule
}

func (m *metric) ratio() bool { return len(m.terms) == 2 }

// sources lists the relations a metric reads, each once.
func (m *metric) sources() []*source {
	var out []*source
	for _, t := range m.terms {
		s := t[0].src
		seen := false
		for _, o := range out {
			seen = seen || o == s
		}
		if !seen {
			out = append(out, s)
		}
	}
	return out
}

// declares says whether the metric's targets are set for a kind of period.
func (m *metric) declares(kind string) bool {
	if m.target == nil {
		return false
	}
	for _, k := range m.target.periods {
		if k == kind {
			return true
		}
	}
	return false
}

// The approved basis settles by its own rule (14 days, 06:00); a metric
// over two sources is final when both are, so it takes the later rule.
var (
	timeRule     = settleRule{2, 6 * time.Hour}
	nightlyRule  = settleRule{1, 6 * time.Hour}
	approvedRule = settleRule{14, 6 * time.Hour}
	boardRule    = settleRule{1, 0}
)

var catalogue = []*metric{
	{id: "logged_hours", unit: unitHours, terms: []term{{loggedHours}}, settle: timeRule},
	{id: "available_hours", unit: unitHours, terms: []term{{availableHours}}, settle: timeRule},
	{id: "talk_hours", unit: unitHours, terms: []term{{talkHours}}, settle: timeRule},
	{id: "talk_share", unit: unitShare, terms: []term{{talkHours}, {loggedHours}}, settle: timeRule},
	{id: "availability", unit: unitShare, terms: []term{{availableHours}, {loggedHours}}, settle: timeRule},
	{id: "audits", unit: unitCount, terms: []term{{auditsPassed, auditsFailed}}, settle: nightlyRule},
	{id: "audits_passed", unit: unitCount, terms: []term{{auditsPassed}}, settle: nightlyRule},
	{id: "audit_pass_rate", unit: unitShare, terms: []term{{auditsPassed}, {auditsPassed, auditsFailed}}, settle: nightlyRule},
	{id: "board_sales", unit: unitCount, terms: []term{{boardEntries}}, settle: boardRule},
	{id: "submitted_sales", unit: unitCount, terms: []term{{submitted}}, settle: nightlyRule,
		target: &targetRule{additive: true, periods: []string{"week", "month"}}},
	{id: "approved_sales", unit: unitCount, terms: []term{{approved}}, settle: approvedRule},
	{id: "close_rate", unit: unitShare, terms: []term{{submitted}, {submitted, lost}}, settle: nightlyRule,
		target: &targetRule{additive: false, periods: []string{"month"}}},
	{id: "approval_rate", unit: unitShare, terms: []term{{approved}, {submitted}}, settle: approvedRule},
	{id: "sales_per_hour", unit: unitPerHour, terms: []term{{submitted}, {loggedHours}}, settle: timeRule},
}

func metricNamed(id string) *metric {
	for _, m := range catalogue {
		if m.id == id {
			return m
		}
	}
	panic("reference: the demo catalogue has no metric " + id)
}

func metricsNamed(ids []string) []*metric {
	out := make([]*metric, len(ids))
	for i, id := range ids {
		out[i] = metricNamed(id)
	}
	return out
}

// report is a report tool of the demo catalogue.
type report struct {
	id       string
	metrics  []string
	defaults []string
	live     []string // what the defaults become over days no nightly build has loaded
	bases    []string // compare_counts: one count per basis
}

var reportList = []report{
	{id: "hours", metrics: []string{"logged_hours", "available_hours", "talk_hours", "talk_share", "availability"},
		defaults: []string{"logged_hours", "talk_hours", "talk_share"}},
	{id: "quality", metrics: []string{"audits", "audits_passed", "audit_pass_rate"},
		defaults: []string{"audits", "audit_pass_rate"}},
	{id: "sales", metrics: []string{"submitted_sales", "close_rate", "board_sales", "approved_sales", "approval_rate", "sales_per_hour"},
		defaults: []string{"submitted_sales", "close_rate"}, live: []string{"board_sales"},
		bases: []string{"submitted_sales", "board_sales", "approved_sales"}},
}

// leagueDefaults are the league's metrics when none are named.
var leagueDefaults = []string{"submitted_sales", "close_rate"}

func reportNamed(id string) report {
	for _, r := range reportList {
		if r.id == id {
			return r
		}
	}
	return report{}
}

// Reports lists the report tools of the demo catalogue and their metrics.
func Reports() map[string][]string {
	out := map[string][]string{}
	for _, r := range reportList {
		out[r.id] = append([]string(nil), r.metrics...)
	}
	return out
}
