package reports

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// This file decodes a tool call's arguments into a Request. It validates
// everything the published JSON Schema says, and more, itself: a client that
// ignores the schema gets the same teaching errors, and no error repeats what
// the caller sent.

// Request is a report call's arguments, decoded and checked against the
// grammar but not yet resolved (names are still text, periods still words).
type Request struct {
	Who              WhoArg
	Period           PeriodArg
	Metrics          []string // empty: the report's defaults
	GroupBy          string   // empty: one total row
	TopN             int      // zero: no ranking cut
	Sort             *SortArg
	Compact          bool
	CompareCounts    bool
	CompareTo        string // empty: no comparison; else one of reportCompareChoices
	Cumulative       bool   // running totals over rows of time
	KnownDefinitions string
}

// WhoArg is whose figures: exactly one field is set.
type WhoArg struct {
	Floor bool
	Team  string
	Agent string
	// Default says who was left out: the caller's reach decides whom the
	// call is about (directory.Directory.DefaultScope).
	Default bool
}

// PeriodArg is which days: one of Named, Day, Week, or Start with End.
type PeriodArg struct {
	Named, Day, Week, Start, End string
}

// SortArg orders rows by a metric.
type SortArg struct {
	Metric    string
	Direction string // "desc" or "asc"
}

// Limits on free text, so that nothing unbounded reaches matching or the log.
const (
	maxNameLength = 200
	maxVersionLen = 64
)

// Arguments shared by every report tool.
const (
	argWho              = "who"
	argPeriod           = "period"
	argMetrics          = "metrics"
	argGroupBy          = "group_by"
	argTopN             = "top_n"
	argSort             = "sort"
	argCompact          = "compact"
	argCompareCounts    = "compare_counts"
	argKnownDefinitions = "known_definitions"
	argCompareTo        = "compare_to"
	argRankBy           = "rank_by"
	argCumulative       = "cumulative"
)

// ComparePreviousPeriod is the compare_to choice of the period of the same
// length just before the one asked for (see previousPeriod).
const ComparePreviousPeriod = "previous_period"

// ComparePreviousYear is the compare_to choice of the same days a year
// earlier (see previousYear).
const ComparePreviousYear = "previous_year"

// compareChoices are compare_to's choices on team_weeks.
var compareChoices = []string{ComparePreviousPeriod, CompareTarget}

// reportCompareChoices are compare_to's choices on the report tools.
var reportCompareChoices = []string{ComparePreviousPeriod, ComparePreviousYear, CompareTarget}

// againstPeriod reports whether the request sets its figures beside
// another period's: the previous period, or the same days a year earlier.
func (r *Request) againstPeriod() bool {
	return r.CompareTo == ComparePreviousPeriod || r.CompareTo == ComparePreviousYear
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// args is a decoded JSON object of arguments, read field by field.
type args struct {
	fields map[string]any
	path   string // how errors name this object
}

// parseArgs decodes a call's raw arguments. Missing arguments are an empty
// object.
func parseArgs(raw json.RawMessage) (*args, *ask.Refusal) {
	a := &args{fields: map[string]any{}, path: "arguments"}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return a, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ask.Invalid("arguments", "must be a JSON object.")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, ask.Invalid("arguments", "must be a JSON object.")
	}
	a.fields = obj
	return a, nil
}

// arguments returns the call's arguments, decoded once: Call decodes them
// to put them on record, and the tool reads them from here. The decoded
// fields are only ever read.
func (c *call) arguments(raw json.RawMessage) (*args, *ask.Refusal) {
	if !c.decoded {
		c.args, c.argsRefusal = parseArgs(raw)
		c.decoded = true
	}
	if c.argsRefusal != nil {
		return nil, c.argsRefusal
	}
	return &args{fields: c.args.fields, path: c.args.path}, nil
}

// child returns a nested object argument, or nil when it is absent.
func (a *args) child(name, shape string) (*args, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, ask.Invalid(a.sub(name), "must be an object: "+shape+".")
	}
	return &args{fields: obj, path: a.sub(name)}, nil
}

func (a *args) sub(name string) string {
	if a.path == "arguments" {
		return name
	}
	return a.path + "." + name
}

// only refuses any field not in allowed. The unknown name itself is never
// repeated: it is the caller's text.
func (a *args) only(allowed ...string) *ask.Refusal {
	for k := range a.fields {
		if !slices.Contains(allowed, k) {
			return ask.Invalid(a.path, "has a field this tool does not take; use only the listed fields.", allowed...)
		}
	}
	return nil
}

func (a *args) has(name string) bool { _, ok := a.fields[name]; return ok }

// text reads a string argument: present, a string, not blank, not too long.
func (a *args) text(name string, max int) (string, bool, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return "", false, nil
	}
	s, isString := v.(string)
	switch {
	case !isString:
		return "", true, ask.Invalid(a.sub(name), "must be a string.")
	case strings.TrimSpace(s) == "":
		return "", true, ask.Invalid(a.sub(name), "must not be empty.")
	case len(s) > max:
		return "", true, ask.Invalid(a.sub(name), "is too long; at most "+itoa(max)+" characters.")
	}
	return strings.TrimSpace(s), true, nil
}

// choice reads a string argument that must be one of choices.
func (a *args) choice(name string, choices []string) (string, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return "", nil
	}
	s, isString := v.(string)
	if !isString || !slices.Contains(choices, s) {
		return "", ask.Invalid(a.sub(name), "must be one of the choices.", choices...)
	}
	return s, nil
}

func (a *args) flag(name string) (bool, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, ask.Invalid(a.sub(name), "must be true or false.")
	}
	return b, nil
}

// whole reads an integer argument within [lo, hi].
func (a *args) whole(name string, lo, hi int) (int, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return 0, nil
	}
	n, isNumber := v.(json.Number)
	i, err := n.Int64()
	if !isNumber || err != nil || i < int64(lo) || i > int64(hi) {
		return 0, ask.Invalid(a.sub(name), "must be a whole number from "+itoa(lo)+" to "+itoa(hi)+".")
	}
	return int(i), nil
}

// date reads a YYYY-MM-DD argument. Whether the date exists is checked when
// the period is resolved.
func (a *args) date(name string) (string, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return "", nil
	}
	s, isString := v.(string)
	if !isString || !dateRE.MatchString(s) {
		return "", ask.Invalid(a.sub(name), "must be a date written YYYY-MM-DD.")
	}
	return s, nil
}

// metricList reads a list of metric ids drawn from choices.
func (a *args) metricList(name string, choices []string) ([]string, *ask.Refusal) {
	v, ok := a.fields[name]
	if !ok {
		return nil, nil
	}
	items, isList := v.([]any)
	if !isList || len(items) == 0 {
		return nil, ask.Invalid(a.sub(name), "must be a non-empty list of metric ids.", choices...)
	}
	var out []string
	for _, it := range items {
		s, isString := it.(string)
		switch {
		case !isString || !slices.Contains(choices, s):
			return nil, ask.Invalid(a.sub(name), "lists a metric this tool does not offer.", choices...)
		case slices.Contains(out, s):
			return nil, ask.Invalid(a.sub(name), "lists a metric twice; list each once.", choices...)
		}
		out = append(out, s)
	}
	return out, nil
}

// Shapes of the shared arguments, for error messages.
const (
	whoShape    = `{"floor": true}, {"team": "key or name"} or {"agent": "agent_key, name or email"}`
	periodShape = `{"named": …}, {"day": "YYYY-MM-DD"}, {"week": "YYYY-MM-DD"} or {"start": "YYYY-MM-DD", "end": "YYYY-MM-DD"}`
)

// NamedPeriods lists plumbline's own named periods, in the order the schema
// offers them.
var NamedPeriods = catalog.NamedPeriods

// decodeWho reads the who argument.
func decodeWho(a *args) (WhoArg, *ask.Refusal) {
	w, r := a.child(argWho, whoShape)
	switch {
	case r != nil:
		return WhoArg{}, r
	case w == nil:
		return WhoArg{Default: true}, nil
	case len(w.fields) != 1:
		return WhoArg{}, ask.Invalid(argWho, "must have exactly one of the fields.", "floor", "team", "agent")
	}
	if r := w.only("floor", "team", "agent"); r != nil {
		return WhoArg{}, r
	}
	var who WhoArg
	if w.has("floor") {
		floor, r := w.flag("floor")
		if r != nil || !floor {
			return WhoArg{}, ask.Invalid("who.floor", "must be true; to ask about a team or an agent use who.team or who.agent.")
		}
		who.Floor = true
	}
	var r2 *ask.Refusal
	if who.Team, _, r2 = w.text("team", maxNameLength); r2 != nil {
		return WhoArg{}, r2
	}
	if who.Agent, _, r2 = w.text("agent", maxNameLength); r2 != nil {
		return WhoArg{}, r2
	}
	return who, nil
}

// decodePeriod reads the period argument, named as one of names.
func decodePeriod(a *args, names []string) (PeriodArg, *ask.Refusal) {
	p, r := a.child(argPeriod, periodShape)
	switch {
	case r != nil:
		return PeriodArg{}, r
	case p == nil:
		return PeriodArg{}, ask.Invalid(argPeriod, "is required: say which days, "+periodShape+".", "named", "day", "week", "start+end")
	}
	var out PeriodArg
	switch {
	case p.has("named"):
		if r := p.only("named"); r != nil {
			return out, r
		}
		out.Named, r = p.choice("named", names)
	case p.has("day"):
		if r := p.only("day"); r != nil {
			return out, r
		}
		out.Day, r = p.date("day")
	case p.has("week"):
		if r := p.only("week"); r != nil {
			return out, r
		}
		out.Week, r = p.date("week")
	case p.has("start") || p.has("end"):
		if r := p.only("start", "end"); r != nil {
			return out, r
		}
		if !p.has("start") || !p.has("end") {
			return out, ask.Invalid(argPeriod, "needs both start and end for a range (both inclusive).", "start", "end")
		}
		if out.Start, r = p.date("start"); r == nil {
			out.End, r = p.date("end")
		}
	default:
		return out, ask.Invalid(argPeriod, "must be one of the shapes "+periodShape+".", "named", "day", "week", "start+end")
	}
	return out, r
}

// decodeReport reads the arguments of a report tool over rep, whose period
// may be named as one of plumbline's own.
func decodeReport(rep *catalog.Report, raw json.RawMessage, compareCounts bool) (*Request, *ask.Refusal) {
	a, r := parseArgs(raw)
	if r != nil {
		return nil, r
	}
	return decodeReportArgs(rep, a, compareCounts, NamedPeriods)
}

// decodeReportArgs reads the decoded arguments of a report tool over rep.
func decodeReportArgs(rep *catalog.Report, a *args, compareCounts bool, periods []string) (*Request, *ask.Refusal) {
	allowed := []string{argWho, argPeriod, argMetrics, argGroupBy, argTopN, argSort, argCompact, argKnownDefinitions, argCompareTo, argCumulative}
	if compareCounts {
		allowed = append(allowed, argCompareCounts)
	}
	if r := a.only(allowed...); r != nil {
		return nil, r
	}
	req := &Request{}
	steps := []func() *ask.Refusal{
		func() (r *ask.Refusal) { req.Who, r = decodeWho(a); return },
		func() (r *ask.Refusal) { req.Period, r = decodePeriod(a, periods); return },
		func() (r *ask.Refusal) { req.Metrics, r = a.metricList(argMetrics, rep.MetricIDs()); return },
		func() (r *ask.Refusal) { req.GroupBy, r = a.choice(argGroupBy, rep.GroupBy); return },
		func() (r *ask.Refusal) { req.TopN, r = a.whole(argTopN, 1, 50); return },
		func() (r *ask.Refusal) { req.Sort, r = decodeSort(a, rep); return },
		func() (r *ask.Refusal) { req.Compact, r = a.flag(argCompact); return },
		func() (r *ask.Refusal) { req.CompareCounts, r = a.flag(argCompareCounts); return },
		func() (r *ask.Refusal) {
			req.KnownDefinitions, _, r = a.text(argKnownDefinitions, maxVersionLen)
			return
		},
		func() (r *ask.Refusal) { req.CompareTo, r = a.choice(argCompareTo, reportCompareChoices); return },
		func() (r *ask.Refusal) { req.Cumulative, r = a.flag(argCumulative); return },
	}
	for _, step := range steps {
		if r := step(); r != nil {
			return nil, r
		}
	}
	return req, nil
}

func decodeSort(a *args, rep *catalog.Report) (*SortArg, *ask.Refusal) {
	s, r := a.child(argSort, `{"metric": id, "direction": "desc" or "asc"}`)
	if r != nil || s == nil {
		return nil, r
	}
	if r := s.only("metric", "direction"); r != nil {
		return nil, r
	}
	if !s.has("metric") {
		return nil, ask.Invalid("sort.metric", "is required: the metric to order rows by.", rep.MetricIDs()...)
	}
	out := &SortArg{Direction: "desc"}
	if out.Metric, r = s.choice("metric", rep.MetricIDs()); r != nil {
		return nil, r
	}
	if s.has("direction") {
		if out.Direction, r = s.choice("direction", []string{"desc", "asc"}); r != nil {
			return nil, r
		}
	}
	return out, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
