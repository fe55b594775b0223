package contract

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// This file renders an answer as text for a model to read: the same answer
// as the structured content, with every figure, definition (or its
// reference), data_through, counting basis, partial flag and note, at a
// fraction of its bytes. Clients hand the text block to the model and keep
// the structured content for programs and views.
//
// The text opens with what was asked (tool, who, grouping, the period and
// its time zone) and the catalog_version, or that definitions, time zone and
// standing notes come by reference to it; then each metric's definition (in
// full answers), one line per set of metrics that share their stamp (counting
// basis, how far the data runs and is final, partial, agent-days left out),
// the notes, and the figures as CSV under a header row. In a figure table a
// ratio's cell holds its summed numerator and denominator beside it,
// "0.224626 (135/601)", in place of the structured answer's two columns.

// Text renders an answer for a model to read. clean is applied to every
// string the text takes from the answer, never to a figure. ok is false
// for an answer this file has no rendering for; the caller sends its JSON
// instead. A kept answer is rendered once, for every call it answers
// (reports.Answer.Rendered): its text names no request, so it is the same
// for each.
func Text(e *reports.Engine, a *reports.Answer, clean func(string) string) (text string, ok bool) {
	return a.Rendered(func(body any) (string, bool) { return render(e, body, clean) })
}

// render renders an answer's body.
func render(e *reports.Engine, body any, clean func(string) string) (string, bool) {
	out := textBuffers.Get().(*textBuffer)
	defer func() {
		// Whatever the CSV writer holds yet (after a panic) goes too.
		out.csv.Flush()
		out.b.Reset()
		textBuffers.Put(out)
	}()
	t := &textWriter{e: e, clean: clean, b: &out.b, csv: out.csv}
	switch b := body.(type) {
	case *answer.Report:
		t.report(b)
	case *answer.Canned:
		t.canned(b)
	case *reports.CandidatesAnswer:
		t.candidates(b)
	case *answer.Refused:
		t.refusal(b.Error)
	case *answer.Roster:
		t.roster(b)
	case *answer.People:
		t.people(b)
	case *answer.Freshness:
		t.freshness(b)
	case *answer.Definitions:
		t.definitions(b)
	case *answer.Health:
		t.linef("health: %s; database %s; catalog_version %s.", b.Status, b.Database, b.CatalogVersion)
	default:
		return "", false
	}
	return t.b.String(), true
}

// textBuffer is what a rendering writes into, kept between renderings: the
// text, and a CSV writer onto it (which would otherwise buffer afresh).
type textBuffer struct {
	b   bytes.Buffer
	csv *csv.Writer
}

var textBuffers = sync.Pool{New: func() any {
	out := &textBuffer{}
	out.csv = csv.NewWriter(&out.b)
	return out
}}

type textWriter struct {
	e     *reports.Engine
	clean func(string) string
	b     *bytes.Buffer
	csv   *csv.Writer // onto b
}

func (t *textWriter) linef(format string, args ...any) {
	fmt.Fprintf(t.b, format, args...)
	t.b.WriteByte('\n')
}

// line writes parts, then a newline: a line of strings alone, with
// nothing to format.
func (t *textWriter) line(parts ...string) {
	for _, p := range parts {
		t.b.WriteString(p)
	}
	t.b.WriteByte('\n')
}

// s is a string from the answer, cleaned.
func (t *textWriter) s(v string) string { return t.clean(v) }

func (t *textWriter) report(a *answer.Report) {
	head := a.Request.Tool + " for " + t.who(a.Request.Who)
	if a.Request.GroupBy != "" {
		head += " by " + a.Request.GroupBy
	}
	switch r := a.Request; {
	case r.TopN > 0:
		head += fmt.Sprintf(", top %d by %s (%s)", r.TopN, r.Sort.Metric, r.Sort.Direction)
	case r.Sort != nil:
		head += fmt.Sprintf(", sorted by %s (%s)", r.Sort.Metric, r.Sort.Direction)
	}
	if a.Request.CompareCounts {
		head += ", one count per basis side by side"
	}
	if a.Request.Cumulative {
		head += ", running totals from the first day"
	}
	if a.Request.CompareTo == grammar.CompareTarget {
		head += ", against " + grammar.CompareTarget
	}
	t.governed(head, &a.Governed, a.Request.Compact, a.Request.CompareTo, metricOrder(&a.Governed, a.Columns))
	t.table(a.Columns, a.Rows)
}

func (t *textWriter) canned(a *answer.Canned) {
	head := a.Request.Tool + " for " + t.who(a.Request.Who)
	switch {
	case a.Request.Weeks > 0:
		head += fmt.Sprintf(", %d weeks", a.Request.Weeks)
		if a.Request.CompareTo != "" {
			head += ", each beside the week before"
		}
	case a.Request.Sort != nil:
		head = a.Request.Tool + " of the teams on the floor, ranked by " + a.Request.Sort.Metric + " (" + a.Request.Sort.Direction + ")"
		if a.Request.RankBy == grammar.RankAttainment {
			head = a.Request.Tool + " of the teams on the floor, ranked by " + grammar.RankAttainment + " of " + a.Request.Sort.Metric +
				" against target (" + a.Request.Sort.Direction + ")"
		} else if a.Request.RankBy != "" {
			head += ", by " + a.Request.RankBy
		}
	}
	var columns []string
	for _, s := range a.Sections {
		columns = append(columns, s.Columns...)
	}
	t.governed(head, &a.Governed, a.Request.Compact, a.Request.CompareTo, metricOrder(&a.Governed, columns))
	for _, s := range a.Sections {
		title := "Section " + s.ID
		if !strings.EqualFold(s.Title, s.ID) {
			title += ": " + t.s(s.Title)
		}
		if s.Truncated {
			title += " (truncated: the first rows only, so no total)"
		}
		t.linef("%s", title)
		rows := s.Rows
		if s.Total != nil {
			rows = append(slices.Clip(rows), s.Total)
		}
		t.table(s.Columns, rows)
	}
}

// governed writes what every answer with figures carries beside them: the
// request and period, the catalogue version, the definitions (or that they
// come by reference, or that compact left them out), each metric's stamp,
// the sources no stamp states, and the notes. compareTo names what the
// figures are set beside.
func (t *textWriter) governed(head string, g *answer.Governed, compact bool, compareTo string, order []string) {
	p := g.Period
	period := p.Start
	if p.End != p.Start {
		period += ".." + p.End
	}
	var about []string
	if p.Named != "" {
		about = append(about, p.Named)
	}
	if p.AskedEnd != "" {
		about = append(about, "through its last final day, asked through "+p.AskedEnd)
	}
	var against string
	if q := g.PreviousPeriod; q != nil {
		against = ", against " + compareTo + " " + q.Start
		if q.End != q.Start {
			against += ".." + q.End
		}
	}
	byRef := len(g.NoteRefs) > 0 || slices.ContainsFunc(order, func(id string) bool { return g.Metrics[id].DefinitionRef != "" })
	switch {
	case byRef:
		// The time zone is the catalogue's, as the caller's earlier answer
		// said; the structured content states it all the same.
		var notes string
		if len(g.NoteRefs) > 0 {
			ids := make([]string, len(g.NoteRefs))
			for i, ref := range g.NoteRefs {
				ids[i], _, _ = strings.Cut(ref, "@")
			}
			notes = ", notes " + strings.Join(ids, ", ")
		}
		t.line(head, ", ", period, parenthesized(about), against, "; by reference to catalog_version ", g.CatalogVersion,
			": definitions, time zone", notes, ".")
	case compact:
		t.line(head, ", ", period, parenthesized(append(about, p.TimeZone)), against, "; catalog_version ", g.CatalogVersion,
			"; compact: definitions and standing notes left out.")
	default:
		t.line(head, ", ", period, parenthesized(append(about, p.TimeZone)), against, "; catalog_version ", g.CatalogVersion, ".")
	}
	if slices.ContainsFunc(order, func(id string) bool { return g.Metrics[id].Definition != "" }) {
		t.line("Definitions:")
		for _, id := range order {
			m := g.Metrics[id]
			if m.Definition == "" {
				continue
			}
			t.line("- ", id, ", ", t.s(m.Label), " (", m.Unit, "): ", t.s(m.Definition), " Formula: ", t.s(m.Formula), ", from ", t.s(m.Source), ".")
		}
	}
	stamps := make([]string, len(order))
	for i, id := range order {
		stamps[i] = stamp(g.Metrics[id])
	}
	for i, s := range stamps {
		switch {
		case slices.Index(stamps, s) < i:
			continue // on the line of the first metric with this stamp
		case !slices.ContainsFunc(stamps, func(other string) bool { return other != s }):
			t.b.WriteString("Every figure")
		default:
			sep := ""
			for j, id := range order {
				if stamps[j] == s {
					t.b.WriteString(sep)
					t.b.WriteString(id)
					sep = ", "
				}
			}
		}
		t.line(": ", s, ".")
	}
	for _, rel := range t.unstated(g, order) {
		t.line("Source ", rel, ": ", throughText(g.DataThrough[rel]), ".")
	}
	if len(g.Notes) > 0 {
		t.notes(g.Notes)
	}
}

func parenthesized(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// stamp is what varies with an answer for one metric.
func stamp(m *answer.MetricInfo) string {
	var buf [96]byte
	b := buf[:0]
	if m.SalesBasis != "" {
		b = append(append(b, "basis "...), m.SalesBasis...)
		b = append(b, "; "...)
	}
	b = appendThrough(b, m.DataThrough)
	if m.Partial {
		b = append(b, "; partial"...)
	}
	if m.LeftOut > 0 {
		b = append(append(append(b, "; "...), reports.AgentDays(m.LeftOut)...), " left out"...)
	}
	if td := m.Target; td != nil {
		counted := "no day counted yet"
		if td.CountedFrom != nil {
			counted = "counted " + *td.CountedFrom + ".." + *td.CountedThrough + " (" + calendar.DayCount(td.CountedDays, "") + ")"
		}
		b = fmt.Appendf(b, "; target %s %s..%s (%s), %s", td.Period, td.Start, td.End, calendar.DayCount(td.Days, ""), counted)
	}
	return string(b)
}

// throughText says how far data runs and is final.
func throughText(d answer.DataThrough) string {
	var buf [64]byte
	return string(appendThrough(buf[:0], d))
}

// appendThrough appends throughText(d) to b.
func appendThrough(b []byte, d answer.DataThrough) []byte {
	switch {
	case d.RunsTo == nil:
		return append(b, "no data"...)
	case d.CompleteThrough == nil:
		return append(append(append(b, "data through "...), *d.RunsTo...), ", no day final yet"...)
	case *d.CompleteThrough == *d.RunsTo:
		return append(append(b, "final through "...), *d.RunsTo...)
	}
	return append(append(append(append(b, "data through "...), *d.RunsTo...), ", final through "...), *d.CompleteThrough...)
}

// unstated are the sources whose data_through no metric's stamp states: a
// source is stated by a metric read from it alone with the same dates.
func (t *textWriter) unstated(g *answer.Governed, order []string) []string {
	rels := make([]string, 0, len(g.DataThrough))
	for rel := range g.DataThrough {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	var out []string
	for _, rel := range rels {
		stated := slices.ContainsFunc(order, func(id string) bool {
			m, ok := t.e.Catalog().Metric(id)
			return ok && len(m.Sources()) == 1 && m.Sources()[0].Relation == rel && throughText(g.Metrics[id].DataThrough) == throughText(g.DataThrough[rel])
		})
		if !stated {
			out = append(out, rel)
		}
	}
	return out
}

// metricOrder lists an answer's metrics in the order its columns name
// them, then any others by id.
func metricOrder(g *answer.Governed, columns []string) []string {
	out := make([]string, 0, len(g.Metrics))
	for _, c := range columns {
		if _, ok := g.Metrics[c]; ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	named := len(out)
	for id := range g.Metrics {
		if !slices.Contains(out[:named], id) {
			out = append(out, id)
		}
	}
	slices.Sort(out[named:])
	return out
}

func (t *textWriter) notes(notes []string) {
	t.line("Notes:")
	for _, n := range notes {
		t.line("- ", t.s(n))
	}
}

// who names a resolved who: key and directory name.
func (t *textWriter) who(w *answer.Who) string {
	switch {
	case w == nil:
		return "the floor"
	case w.Kind == ask.ScopeFloor:
		return t.s(w.Name)
	case w.Team != "":
		return w.Kind + " " + t.s(w.Key) + " (" + t.s(w.Name) + ", " + t.s(w.Team) + ")"
	}
	return w.Kind + " " + t.s(w.Key) + " (" + t.s(w.Name) + ")"
}

// table writes rows as CSV under a header row, each ratio's summed
// numerator and denominator folded into its cell.
func (t *textWriter) table(columns []string, rows [][]any) {
	var header []string
	ratio := make([]bool, len(columns))
	for i := 0; i < len(columns); i++ {
		header = append(header, t.s(columns[i]))
		if i+2 < len(columns) && columns[i+1] == columns[i]+"_numerator" && columns[i+2] == columns[i]+"_denominator" {
			ratio[i] = true
			i += 2
		}
	}
	w := t.csv
	w.Write(header)
	cells := make([]string, 0, len(header))
	for _, row := range rows {
		cells = cells[:0]
		for i := 0; i < len(row); i++ {
			if i < len(ratio) && ratio[i] && i+2 < len(row) {
				cells = append(cells, t.ratioCell(row[i], row[i+1], row[i+2]))
				i += 2
				continue
			}
			cells = append(cells, t.cell(row[i]))
		}
		w.Write(cells)
	}
	w.Flush()
}

// ratioCell is a ratio with its parts: "0.25 (3/12)", or null with its
// parts when there is nothing to divide by, or null alone.
func (t *textWriter) ratioCell(r, num, den any) string {
	if r == nil && num == nil && den == nil {
		return "null"
	}
	var buf [64]byte
	b := t.appendFigure(buf[:0], r)
	b = append(b, " ("...)
	b = t.appendFigure(b, num)
	b = append(b, '/')
	b = t.appendFigure(b, den)
	return string(append(b, ')'))
}

// appendFigure appends a value as cell writes it, a number with no string
// of its own.
func (t *textWriter) appendFigure(b []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return append(b, t.cell(v)...)
}

// cell writes one value: null for no data, a figure as JSON writes it.
func (t *textWriter) cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return t.s(v)
	case bool:
		return strconv.FormatBool(v)
	case *bool:
		if v == nil {
			return "null"
		}
		return strconv.FormatBool(*v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return t.s(fmt.Sprint(v))
}

func (t *textWriter) candidates(a *reports.CandidatesAnswer) {
	if len(a.Candidates) > 0 && a.Candidates[0].Suggestion() {
		t.linef("No figures: %s matches none, and these names are close to it; catalog_version %s.", a.Argument, a.CatalogVersion)
	} else {
		t.linef("No figures: %s matches several; catalog_version %s.", a.Argument, a.CatalogVersion)
	}
	t.notes(a.Notes)
	keys := []string{"agent_key", "name", "team", "left_on"}
	if a.Argument == "who.team" {
		keys = []string{"team_key", "name"}
	}
	rows := make([][]any, len(a.Candidates))
	for i, c := range a.Candidates {
		if a.Argument == "who.team" {
			rows[i] = []any{c.TeamKey, c.Name}
		} else {
			rows[i] = []any{c.AgentKey, c.Name, answer.Nullable(c.Team), answer.Nullable(c.Left)}
		}
	}
	t.table(keys, rows)
}

func (t *textWriter) refusal(r *ask.Refusal) {
	// A rule about an argument reads after its name; any other rule is a
	// sentence of its own.
	if r.Argument != "" {
		t.linef("Refused (%s): %s %s", r.Code, r.Argument, t.s(r.Rule))
	} else {
		t.linef("Refused (%s): %s", r.Code, t.s(r.Rule))
	}
	if len(r.Choices) > 0 {
		choices := make([]string, len(r.Choices))
		for i, c := range r.Choices {
			choices[i] = t.s(c)
		}
		t.linef("Choices: %s.", strings.Join(choices, ", "))
	}
}

func (t *textWriter) roster(a *answer.Roster) {
	t.linef("roster for %s on %s (%s); catalog_version %s.", t.who(a.Request.Who), a.Day, a.TimeZone, a.CatalogVersion)
	t.notes(a.Notes)
	if len(a.Teams) > 0 {
		rows := make([][]any, len(a.Teams))
		for i, tm := range a.Teams {
			rows[i] = []any{tm.Team, tm.Name, tm.OnFloor, answer.Nullable(tm.Since), answer.Nullable(tm.DecidedBy), answer.Nullable(tm.Reason), tm.Agents}
		}
		t.table([]string{"team", "team_name", "on_floor", "decided_from", "decided_by", "reason", "agents"}, rows)
	}
	if a.Truncated {
		t.linef("Truncated: the first %d rows only.", len(a.Rows))
	}
	t.table(a.Columns, a.Rows)
}

func (t *textWriter) people(a *answer.People) {
	t.linef("find_people: %d matching; catalog_version %s.", len(a.People), a.CatalogVersion)
	t.notes(a.Notes)
	if a.Truncated {
		t.linef("Truncated: the first %d matches only.", len(a.People))
	}
	rows := make([][]any, len(a.People))
	for i, p := range a.People {
		rows[i] = []any{p.AgentKey, p.Name, p.Email, answer.Nullable(p.Team), answer.Nullable(p.TeamName), p.Hired, answer.Nullable(p.Left)}
	}
	if len(rows) > 0 {
		t.table([]string{"agent_key", "name", "email", "team", "team_name", "hired_on", "left_on"}, rows)
	}
}

func (t *textWriter) freshness(a *answer.Freshness) {
	t.linef("freshness at %s, today %s (%s); catalog_version %s.", a.Now, a.Today, a.TimeZone, a.CatalogVersion)
	for _, id := range slices.Sorted(maps.Keys(a.Sources)) {
		s := a.Sources[id]
		first := "no data yet"
		if s.FirstDay != nil {
			first = "first day " + *s.FirstDay
		}
		t.linef("- %s (%s, %s; %s): %s; %s; today: %s. Metrics: %s. %s", t.s(s.Source), id, s.Refresh, t.s(s.Settles),
			throughText(s.DataThrough), first, t.s(s.Today), strings.Join(s.Metrics, ", "), t.s(s.Description))
	}
	t.notes(a.Notes)
}

func (t *textWriter) definitions(a *answer.Definitions) {
	t.linef("metric_definitions; catalog_version %s.", a.CatalogVersion)
	t.linef("Metrics:")
	for _, id := range slices.Sorted(maps.Keys(a.Metrics)) {
		d := a.Metrics[id]
		basis := ""
		if d.SalesBasis != "" {
			basis = "; basis " + d.SalesBasis
		}
		t.linef("- %s, %s (%s%s): %s Formula: %s, from %s (%s); %s. Reports: %s.", id, t.s(d.Label), d.Unit, basis, t.s(d.Definition),
			t.s(d.Formula), t.s(d.Source), d.Grain, t.s(d.Settles), strings.Join(d.Reports, ", "))
	}
	t.linef("Counting bases:")
	for _, id := range slices.Sorted(maps.Keys(a.Bases)) {
		t.linef("- %s, %s: %s", id, t.s(a.Bases[id].Label), t.s(a.Bases[id].Definition))
	}
	if len(a.StandingNotes) > 0 {
		t.linef("Standing notes, by the IDs answers name them with:")
		for _, n := range t.e.Catalog().Notes() {
			if text, ok := a.StandingNotes[n.ID]; ok {
				t.linef("- %s: %s", n.ID, t.s(text))
			}
		}
	}
	t.notes(a.Notes)
}
