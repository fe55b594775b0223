package answer

import (
	"time"

	"plumbline/reports/ask"
)

// Report is the answer of a report tool.
type Report struct {
	RequestID string   `json:"request_id"`
	Request   Echo     `json:"request"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated"`
	Governed
}

// Canned is the answer of a canned report: labelled sections of figures,
// with each definition stated once.
type Canned struct {
	RequestID string     `json:"request_id"`
	Request   Echo       `json:"request"`
	Sections  []*Section `json:"sections"`
	Governed
}

// Section is one labelled table of a canned report. Total, when present,
// is the section's total over its rows, summed from the same parts.
type Section struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Total     []any    `json:"total,omitempty"`
	Truncated bool     `json:"truncated"`
}

// Governed is what every answer with figures carries beside them: what
// each figure means, how far its data runs, whether it is partial, and the
// notes to pass on.
type Governed struct {
	Metrics map[string]*MetricInfo `json:"metrics"`
	Period  PeriodInfo             `json:"period"`
	// PreviousPeriod is the period compare_to set the figures beside.
	PreviousPeriod *PeriodInfo            `json:"previous_period,omitempty"`
	DataThrough    map[string]DataThrough `json:"data_through"`
	Notes          []string               `json:"notes"`
	// NoteRefs name the standing notes a caller holding this catalogue's
	// texts (known_definitions) already has, as ID@catalog_version, in
	// place of their text (metric_definitions has every one).
	NoteRefs       []string `json:"note_refs,omitempty"`
	Partial        bool     `json:"partial"`
	PartialMetrics []string `json:"partial_metrics"`
	CatalogVersion string   `json:"catalog_version"`
}

// MetricInfo is what a figure means and how fresh it is.
type MetricInfo struct {
	Label         string      `json:"label"`
	Unit          string      `json:"unit"`
	Definition    string      `json:"definition,omitempty"`
	DefinitionRef string      `json:"definition_ref,omitempty"`
	Formula       string      `json:"formula,omitempty"`
	Source        string      `json:"source,omitempty"`
	SalesBasis    string      `json:"sales_basis,omitempty"`
	DataThrough   DataThrough `json:"data_through"`
	// LeftOut counts the agent-days left out of the figures because a part
	// was not known (hours not in, approval not settled).
	LeftOut int64 `json:"left_out,omitempty"`
	// Partial says the figures are partial: listed in partial_metrics.
	Partial bool `json:"partial,omitempty"`
	// Target, when the answer sets the metric beside targets, says which
	// days its figures and its targets cover.
	Target *TargetDays `json:"target,omitempty"`
}

// DataThrough says how far figures run and how far they are whole. A null
// means the source holds no rows at all.
type DataThrough struct {
	RunsTo          *string `json:"runs_to"`
	CompleteThrough *string `json:"complete_through"`
}

// TargetDays is what an answer states about the days a metric's figures
// and targets cover: the target period, and the days of it counted.
type TargetDays struct {
	// Period is the kind of target period: week, month, or weeks when each
	// of an answer's week rows is set beside its own week's.
	Period string `json:"period"`
	Start  string `json:"start"`
	End    string `json:"end"`
	Days   int    `json:"days"`
	// The days of it the figures cover, and so the targets: from the
	// first day of the period asked to the last its sources are loaded
	// for. Null when no day is counted yet.
	CountedFrom    *string `json:"counted_from"`
	CountedThrough *string `json:"counted_through"`
	CountedDays    int     `json:"counted_days"`
}

// PeriodInfo is a resolved period.
type PeriodInfo struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Days     int    `json:"days"`
	TimeZone string `json:"time_zone"`
	Named    string `json:"named,omitempty"`
	// AskedEnd is the end asked for, when the period so far was cut at its
	// last final day to be compared (see ask.Period.AskedEnd).
	AskedEnd string `json:"asked_end,omitempty"`
}

// PeriodInfoOf is period p of the floor's time zone as an answer states it.
func PeriodInfoOf(p ask.Period, zone *time.Location) PeriodInfo {
	info := PeriodInfo{
		Start: p.Start.Format(time.DateOnly), End: p.End.Format(time.DateOnly),
		Days: p.Days(), TimeZone: zone.String(), Named: p.Named,
	}
	if !p.AskedEnd.IsZero() {
		info.AskedEnd = p.AskedEnd.Format(time.DateOnly)
	}
	return info
}

// Date is a day as an answer states it, YYYY-MM-DD; nil (null) for the
// zero day, which means none.
func Date(d time.Time) *string {
	if d.IsZero() {
		return nil
	}
	s := d.Format(time.DateOnly)
	return &s
}

// Echo is the request as the server understood it.
type Echo struct {
	Tool          string   `json:"tool"`
	Who           *Who     `json:"who,omitempty"`
	Day           string   `json:"day,omitempty"`
	Weeks         int      `json:"weeks,omitempty"`
	Metrics       []string `json:"metrics,omitempty"`
	GroupBy       string   `json:"group_by,omitempty"`
	TopN          int      `json:"top_n,omitempty"`
	Sort          *Sort    `json:"sort,omitempty"`
	Compact       bool     `json:"compact,omitempty"`
	CompareCounts bool     `json:"compare_counts,omitempty"`
	CompareTo     string   `json:"compare_to,omitempty"`
	Cumulative    bool     `json:"cumulative,omitempty"`
	RankBy        string   `json:"rank_by,omitempty"`
}

// Who is a resolved who: names come from the directory, never from the
// call.
type Who struct {
	Kind string `json:"kind"`
	Key  string `json:"key,omitempty"`
	Name string `json:"name"`
	Team string `json:"team,omitempty"`
}

// Sort is a sort as applied.
type Sort struct {
	Metric    string `json:"metric"`
	Direction string `json:"direction"`
}

// Refused is the answer to a call that was refused.
type Refused struct {
	RequestID string       `json:"request_id"`
	Error     *ask.Refusal `json:"error"`
}
