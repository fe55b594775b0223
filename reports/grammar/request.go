package grammar

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/rawjson"
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
	// MaxNameLength is the longest name, key or email a call may give.
	MaxNameLength = 200
	// MaxVersionLength is the longest known_definitions a call may give.
	MaxVersionLength = 64
)

// Arguments shared by the tools, by the name a call gives them.
const (
	ArgWho              = "who"
	ArgPeriod           = "period"
	ArgMetrics          = "metrics"
	ArgGroupBy          = "group_by"
	ArgTopN             = "top_n"
	ArgSort             = "sort"
	ArgCompact          = "compact"
	ArgCompareCounts    = "compare_counts"
	ArgKnownDefinitions = "known_definitions"
	ArgCompareTo        = "compare_to"
	ArgRankBy           = "rank_by"
	ArgCumulative       = "cumulative"
)

// ComparePreviousPeriod is the compare_to choice of the period of the same
// length just before the one asked for (see calendar.Previous).
const ComparePreviousPeriod = "previous_period"

// ComparePreviousYear is the compare_to choice of the same days a year
// earlier (see calendar.YearEarlier).
const ComparePreviousYear = "previous_year"

// CompareTarget is compare_to's choice that sets figures beside targets.
const CompareTarget = "target"

// TeamWeeksCompareTo are compare_to's choices on team_weeks.
var TeamWeeksCompareTo = []string{ComparePreviousPeriod, CompareTarget}

// reportCompareChoices are compare_to's choices on the report tools.
var reportCompareChoices = []string{ComparePreviousPeriod, ComparePreviousYear, CompareTarget}

// AgainstPeriod reports whether the request sets its figures beside
// another period's: the previous period, or the same days a year earlier.
func (r *Request) AgainstPeriod() bool {
	return r.CompareTo == ComparePreviousPeriod || r.CompareTo == ComparePreviousYear
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Args is a JSON object of arguments, read field by field in place. Each
// reader refuses a field of the wrong type or out of bounds, and returns
// the zero value for a field left out. A field given twice counts as it is
// given last, as when the object is decoded into a map.
type Args struct {
	object []byte  // the object as the call wrote it
	fields []field // in the order written, a repeated name as often
	path   string  // how errors name this object
	room   [8]field
}

// field is one field of an object: its name, unescaped, and its value as
// written.
type field struct{ name, value []byte }

// Parse reads a call's raw arguments: the JSON object they begin with, as
// a json.Decoder would read it. Missing arguments are an empty object.
func Parse(raw json.RawMessage) (*Args, *ask.Refusal) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return object([]byte("{}"), "arguments"), nil
	}
	obj := rawjson.LeadingObject(raw)
	if obj == nil {
		return nil, ask.Invalid("arguments", "must be a JSON object.")
	}
	return object(obj, "arguments"), nil
}

// object reads the fields of a valid JSON object.
func object(obj []byte, path string) *Args {
	a := &Args{object: obj, path: path}
	a.fields = a.room[:0]
	rawjson.Object(obj, func(name, value []byte) bool {
		a.fields = append(a.fields, field{name, value})
		return true
	})
	return a
}

// Object is the arguments' JSON object as the call wrote it, without what
// followed it. It is only ever read.
func (a *Args) Object() json.RawMessage { return a.object }

// value returns a field's value as written, and whether the call gives it.
func (a *Args) value(name string) ([]byte, bool) {
	for i := len(a.fields) - 1; i >= 0; i-- {
		if string(a.fields[i].name) == name {
			return a.fields[i].value, true
		}
	}
	return nil, false
}

// child returns a nested object argument, or nil when it is absent.
func (a *Args) child(name, shape string) (*Args, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return nil, nil
	}
	if v[0] != '{' {
		return nil, ask.Invalid(a.sub(name), "must be an object: "+shape+".")
	}
	return object(v, a.sub(name)), nil
}

func (a *Args) sub(name string) string {
	if a.path == "arguments" {
		return name
	}
	return a.path + "." + name
}

// Only refuses any field not in allowed. The unknown name itself is never
// repeated: it is the caller's text. The refusal lists a copy of allowed,
// so that the list a caller passes is not kept.
func (a *Args) Only(allowed ...string) *ask.Refusal {
	for _, f := range a.fields {
		if !slices.Contains(allowed, string(f.name)) {
			return ask.Invalid(a.path, "has a field this tool does not take; use only the listed fields.", slices.Clone(allowed)...)
		}
	}
	return nil
}

// single reports whether the object has exactly one field, given once or
// more.
func (a *Args) single() bool {
	for _, f := range a.fields {
		if !bytes.Equal(f.name, a.fields[0].name) {
			return false
		}
	}
	return len(a.fields) > 0
}

// Has reports whether the call gives the field.
func (a *Args) Has(name string) bool { _, ok := a.value(name); return ok }

// Text reads a string argument: present, a string, not blank, not too long.
func (a *Args) Text(name string, max int) (string, bool, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return "", false, nil
	}
	text, isString := rawjson.Unquote(v)
	switch {
	case !isString:
		return "", true, ask.Invalid(a.sub(name), "must be a string.")
	case len(bytes.TrimSpace(text)) == 0:
		return "", true, ask.Invalid(a.sub(name), "must not be empty.")
	case len(text) > max:
		return "", true, ask.Invalid(a.sub(name), "is too long; at most "+strconv.Itoa(max)+" characters.")
	}
	return string(bytes.TrimSpace(text)), true, nil
}

// Choice reads a string argument that must be one of choices.
func (a *Args) Choice(name string, choices []string) (string, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return "", nil
	}
	if c, ok := rawjson.Choice(v, choices); ok {
		return c, nil
	}
	return "", ask.Invalid(a.sub(name), "must be one of the choices.", choices...)
}

// Flag reads a true or false argument.
func (a *Args) Flag(name string) (bool, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return false, nil
	}
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, ask.Invalid(a.sub(name), "must be true or false.")
}

// Whole reads an integer argument within [lo, hi].
func (a *Args) Whole(name string, lo, hi int) (int, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return 0, nil
	}
	i, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || i < int64(lo) || i > int64(hi) {
		return 0, ask.Invalid(a.sub(name), "must be a whole number from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return int(i), nil
}

// Date reads a YYYY-MM-DD argument. Whether the date exists is checked when
// the period is resolved.
func (a *Args) Date(name string) (string, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return "", nil
	}
	text, isString := rawjson.Unquote(v)
	if !isString || !dateRE.Match(text) {
		return "", ask.Invalid(a.sub(name), "must be a date written YYYY-MM-DD.")
	}
	return string(text), nil
}

// MetricList reads a list of metric ids drawn from choices.
func (a *Args) MetricList(name string, choices []string) ([]string, *ask.Refusal) {
	v, ok := a.value(name)
	if !ok {
		return nil, nil
	}
	n := 0
	if !rawjson.Array(v, func([]byte) bool { n++; return true }) || n == 0 {
		return nil, ask.Invalid(a.sub(name), "must be a non-empty list of metric ids.", choices...)
	}
	out := make([]string, 0, n)
	var r *ask.Refusal
	rawjson.Array(v, func(item []byte) bool {
		id, ok := rawjson.Choice(item, choices)
		switch {
		case !ok:
			r = ask.Invalid(a.sub(name), "lists a metric this tool does not offer.", choices...)
		case slices.Contains(out, id):
			r = ask.Invalid(a.sub(name), "lists a metric twice; list each once.", choices...)
		}
		out = append(out, id)
		return r == nil
	})
	if r != nil {
		return nil, r
	}
	return out, nil
}

// Shapes of the shared arguments, for error messages.
const (
	whoShape    = `{"floor": true}, {"team": "key or name"} or {"agent": "agent_key, name or email"}`
	periodShape = `{"named": …}, {"day": "YYYY-MM-DD"}, {"week": "YYYY-MM-DD"} or {"start": "YYYY-MM-DD", "end": "YYYY-MM-DD"}`
)

// Who reads the who argument; left out, it is the Default.
func (a *Args) Who() (WhoArg, *ask.Refusal) {
	w, r := a.child(ArgWho, whoShape)
	switch {
	case r != nil:
		return WhoArg{}, r
	case w == nil:
		return WhoArg{Default: true}, nil
	case !w.single():
		return WhoArg{}, ask.Invalid(ArgWho, "must have exactly one of the fields.", "floor", "team", "agent")
	}
	if r := w.Only("floor", "team", "agent"); r != nil {
		return WhoArg{}, r
	}
	var who WhoArg
	if w.Has("floor") {
		floor, r := w.Flag("floor")
		if r != nil || !floor {
			return WhoArg{}, ask.Invalid("who.floor", "must be true; to ask about a team or an agent use who.team or who.agent.")
		}
		who.Floor = true
	}
	var r2 *ask.Refusal
	if who.Team, _, r2 = w.Text("team", MaxNameLength); r2 != nil {
		return WhoArg{}, r2
	}
	if who.Agent, _, r2 = w.Text("agent", MaxNameLength); r2 != nil {
		return WhoArg{}, r2
	}
	return who, nil
}

// Period reads the period argument, which a call must give, named as one
// of names.
func (a *Args) Period(names []string) (PeriodArg, *ask.Refusal) {
	p, r := a.child(ArgPeriod, periodShape)
	switch {
	case r != nil:
		return PeriodArg{}, r
	case p == nil:
		return PeriodArg{}, ask.Invalid(ArgPeriod, "is required: say which days, "+periodShape+".", "named", "day", "week", "start+end")
	}
	var out PeriodArg
	switch {
	case p.Has("named"):
		if r := p.Only("named"); r != nil {
			return out, r
		}
		out.Named, r = p.Choice("named", names)
	case p.Has("day"):
		if r := p.Only("day"); r != nil {
			return out, r
		}
		out.Day, r = p.Date("day")
	case p.Has("week"):
		if r := p.Only("week"); r != nil {
			return out, r
		}
		out.Week, r = p.Date("week")
	case p.Has("start") || p.Has("end"):
		if r := p.Only("start", "end"); r != nil {
			return out, r
		}
		if !p.Has("start") || !p.Has("end") {
			return out, ask.Invalid(ArgPeriod, "needs both start and end for a range (both inclusive).", "start", "end")
		}
		if out.Start, r = p.Date("start"); r == nil {
			out.End, r = p.Date("end")
		}
	default:
		return out, ask.Invalid(ArgPeriod, "must be one of the shapes "+periodShape+".", "named", "day", "week", "start+end")
	}
	return out, r
}

// Report reads the arguments of a report tool over rep, whose period may
// be named as one of periods.
func (a *Args) Report(rep *catalog.Report, periods []string) (*Request, *ask.Refusal) {
	allowed := []string{ArgWho, ArgPeriod, ArgMetrics, ArgGroupBy, ArgTopN, ArgSort, ArgCompact, ArgKnownDefinitions, ArgCompareTo, ArgCumulative,
		ArgCompareCounts}
	if !takesCompareCounts(rep) {
		allowed = allowed[:len(allowed)-1] // all but compare_counts
	}
	if r := a.Only(allowed...); r != nil {
		return nil, r
	}
	req := &Request{}
	steps := []func() *ask.Refusal{
		func() (r *ask.Refusal) { req.Who, r = a.Who(); return },
		func() (r *ask.Refusal) { req.Period, r = a.Period(periods); return },
		func() (r *ask.Refusal) { req.Metrics, r = a.MetricList(ArgMetrics, rep.MetricIDs()); return },
		func() (r *ask.Refusal) { req.GroupBy, r = a.Choice(ArgGroupBy, rep.GroupBy); return },
		func() (r *ask.Refusal) { req.TopN, r = a.Whole(ArgTopN, 1, 50); return },
		func() (r *ask.Refusal) { req.Sort, r = a.Sort(rep); return },
		func() (r *ask.Refusal) { req.Compact, r = a.Flag(ArgCompact); return },
		func() (r *ask.Refusal) { req.CompareCounts, r = a.Flag(ArgCompareCounts); return },
		func() (r *ask.Refusal) {
			req.KnownDefinitions, _, r = a.Text(ArgKnownDefinitions, MaxVersionLength)
			return
		},
		func() (r *ask.Refusal) { req.CompareTo, r = a.Choice(ArgCompareTo, reportCompareChoices); return },
		func() (r *ask.Refusal) { req.Cumulative, r = a.Flag(ArgCumulative); return },
	}
	for _, step := range steps {
		if r := step(); r != nil {
			return nil, r
		}
	}
	return req, nil
}

// Sort reads the sort argument over rep's metrics; nil when it is left
// out. Its direction is desc unless the call says asc.
func (a *Args) Sort(rep *catalog.Report) (*SortArg, *ask.Refusal) {
	s, r := a.child(ArgSort, `{"metric": id, "direction": "desc" or "asc"}`)
	if r != nil || s == nil {
		return nil, r
	}
	if r := s.Only("metric", "direction"); r != nil {
		return nil, r
	}
	if !s.Has("metric") {
		return nil, ask.Invalid("sort.metric", "is required: the metric to order rows by.", rep.MetricIDs()...)
	}
	out := &SortArg{Direction: "desc"}
	if out.Metric, r = s.Choice("metric", rep.MetricIDs()); r != nil {
		return nil, r
	}
	if s.Has("direction") {
		if out.Direction, r = s.Choice("direction", []string{"desc", "asc"}); r != nil {
			return nil, r
		}
	}
	return out, nil
}
