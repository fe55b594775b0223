package terminal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
)

// anyAnswer is any tool's answer read as the engine's own types: the fields
// the table view reads, whichever tool answered.
type anyAnswer struct {
	Error   *ask.Refusal
	Request answer.Echo
	answer.Governed
	Columns    []string
	Rows       [][]any
	Sections   json.RawMessage // a canned report's, printed by printSections
	Truncated  bool
	Candidates []directory.Candidate
}

// through says how far a metric's or a source's data runs.
func through(t answer.DataThrough) string {
	if t.RunsTo == nil {
		return "no data"
	}
	s := "runs to " + *t.RunsTo
	if t.CompleteThrough != nil {
		s += ", complete through " + *t.CompleteThrough
	}
	return s
}

// Answer prints any tool's answer (its structured content) for a person:
// a refusal on errw, candidates, or the figures as a table with what they
// mean underneath. An answer with no rows (definitions, health) is printed
// as indented JSON.
func Answer(body []byte, w, errw io.Writer) error {
	var a anyAnswer
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return fmt.Errorf("the answer is not a plumbline answer: %w", err)
	}
	switch {
	case a.Error != nil:
		fmt.Fprintf(errw, "refused (%s): %s\n", a.Error.Code, a.Error.Sentence())
		if len(a.Error.Choices) > 0 {
			fmt.Fprintf(errw, "  choices: %s\n", strings.Join(a.Error.Choices, ", "))
		}
		return nil
	case a.Candidates != nil:
		// The note says whether the name matched several or matched none
		// and these are close to it.
		if len(a.Notes) > 0 && strings.Contains(a.Notes[0], "close to it") {
			fmt.Fprintln(w, "None matches; these names are close. No figures. Candidates:")
		} else {
			fmt.Fprintln(w, "Several match; no figures. Candidates:")
		}
		table(w, []string{"key", "name", "team", "left_on"}, candidateRows(a.Candidates))
	case a.Columns != nil:
		table(w, a.Columns, a.Rows)
		if a.Truncated {
			fmt.Fprintln(w, "(truncated: more rows than shown)")
		}
	case a.Sections != nil:
		printSections(w, a.Sections)
	default:
		var b bytes.Buffer
		json.Indent(&b, body, "", "  ")
		fmt.Fprintln(w, b.String())
		return nil
	}
	a.printContext(w)
	return nil
}

func candidateRows(cs []directory.Candidate) [][]any {
	var rows [][]any
	for _, c := range cs {
		rows = append(rows, []any{c.AgentKey + c.TeamKey, c.Name, c.Team, c.Left})
	}
	return rows
}

// printSections prints the tables of a canned report's sections: any
// object or list of objects with columns and rows, titled by its key or its
// title.
func printSections(w io.Writer, raw json.RawMessage) {
	type section struct {
		Title   string
		Columns []string
		Rows    [][]any
	}
	var list []section
	if json.Unmarshal(raw, &list) != nil {
		var byName map[string]section
		json.Unmarshal(raw, &byName)
		for _, name := range sortedNames(byName) {
			s := byName[name]
			if s.Title == "" {
				s.Title = name
			}
			list = append(list, s)
		}
	}
	for _, s := range list {
		fmt.Fprintf(w, "%s\n", s.Title)
		table(w, s.Columns, s.Rows)
		fmt.Fprintln(w)
	}
}

func sortedNames[V any](m map[string]V) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// printContext prints what the figures mean: period, definitions,
// freshness, partial figures and notes.
func (a *anyAnswer) printContext(w io.Writer) {
	if p := a.Period; p.Start != "" {
		days := "days"
		if p.Days == 1 {
			days = "day"
		}
		fmt.Fprintf(w, "\nPeriod: %s to %s (%d %s, %s)", p.Start, p.End, p.Days, days, p.TimeZone)
		if p.Named != "" {
			fmt.Fprintf(w, ", %s", p.Named)
		}
		fmt.Fprintln(w)
	}
	if who := a.Request.Who; who != nil {
		fmt.Fprintf(w, "Who: %s", who.Name)
		if who.Key != "" {
			fmt.Fprintf(w, " (%s %s)", who.Kind, who.Key)
		}
		fmt.Fprintln(w)
	}
	ids := a.Request.Metrics
	if ids == nil {
		ids = sortedNames(a.Metrics)
	}
	if len(a.Metrics) > 0 {
		fmt.Fprintln(w, "\nDefinitions:")
	}
	for _, id := range ids {
		m := a.Metrics[id]
		if m == nil {
			continue
		}
		fmt.Fprintf(w, "  %s: %s (%s", id, m.Label, m.Unit)
		if m.SalesBasis != "" {
			fmt.Fprintf(w, ", %s basis", m.SalesBasis)
		}
		fmt.Fprintln(w, ")")
		for _, line := range wrap(m.Definition+m.DefinitionRef, 88) {
			fmt.Fprintf(w, "    %s\n", line)
		}
		if m.Formula != "" {
			fmt.Fprintf(w, "    formula: %s, from %s\n", m.Formula, m.Source)
		}
		fmt.Fprintf(w, "    data %s\n", through(m.DataThrough))
	}
	if len(a.DataThrough) > 0 {
		fmt.Fprintln(w, "\nData through:")
		for _, rel := range sortedNames(a.DataThrough) {
			fmt.Fprintf(w, "  %s: %s\n", rel, through(a.DataThrough[rel]))
		}
	}
	if a.Partial {
		fmt.Fprintf(w, "\nPartial: %s (these figures will still change)\n", strings.Join(a.PartialMetrics, ", "))
	}
	if len(a.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range a.Notes {
			for i, line := range wrap(n, 88) {
				if i == 0 {
					fmt.Fprintf(w, "  - %s\n", line)
				} else {
					fmt.Fprintf(w, "    %s\n", line)
				}
			}
		}
	}
	if a.CatalogVersion != "" {
		fmt.Fprintf(w, "\ncatalog_version %s\n", a.CatalogVersion)
	}
}

// table prints rows under their columns, aligned: numbers to the right,
// text to the left, null as "null".
func table(w io.Writer, columns []string, rows [][]any) {
	cells := make([][]string, len(rows))
	width := make([]int, len(columns))
	numeric := make([]bool, len(columns))
	for i, c := range columns {
		width[i] = len([]rune(c))
	}
	for r, row := range rows {
		cells[r] = make([]string, len(columns))
		for i := range columns {
			var v any
			if i < len(row) {
				v = row[i]
			}
			switch v := v.(type) {
			case nil:
				cells[r][i] = "null"
			case json.Number:
				cells[r][i] = v.String()
				numeric[i] = true
			default:
				cells[r][i] = fmt.Sprint(v)
			}
			width[i] = max(width[i], len([]rune(cells[r][i])))
		}
	}
	line := func(vals []string) {
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len([]rune(v)))
			if numeric[i] {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(columns)
	rule := make([]string, len(columns))
	for i := range columns {
		rule[i] = strings.Repeat("-", width[i])
	}
	line(rule)
	for _, row := range cells {
		line(row)
	}
}

// Preview is a catalogue change as a reviewer sees it (plumbline check
// --diff): for every metric whose definition or formula changed, the old
// and new text and formula side by side and, when values were read, the
// old and new figure over the last complete week for the floor, so the
// change's effect on the numbers is seen before it ships.
type Preview struct {
	From    string // where the old catalogue came from
	Changes catalog.Changes
	// Week and Values, if read: the week, and each changed metric's sums
	// under the old and the new catalogue, in the order of Changes.Changed.
	Week   *ask.Period
	Values []answer.Preview
}

// Print writes the preview.
func (p *Preview) Print(w io.Writer) {
	d := p.Changes
	if d.Empty() {
		fmt.Fprintf(w, "No metric was added, removed or redefined since %s.\n", p.From)
		return
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(w, "Changed metrics (%d) since %s:\n", len(d.Changed), p.From)
		if p.Week != nil {
			fmt.Fprintf(w, "Values are the floor's over the last complete week, %s to %s, from the same database for both.\n",
				p.Week.Start.Format(time.DateOnly), p.Week.End.Format(time.DateOnly))
		}
	}
	for i, c := range d.Changed {
		fmt.Fprintf(w, "\n%s (%s): %s\n", c.ID, c.New.Label, strings.Join(c.What(), ", "))
		sideBySide(w, "", "old", "new")
		sideBySide(w, "definition", c.Old.Definition(), c.New.Definition())
		sideBySide(w, "formula", c.Old.Formula(), c.New.Formula())
		if c.Old.Unit != c.New.Unit {
			sideBySide(w, "unit", c.Old.Unit, c.New.Unit)
		}
		if p.Week != nil {
			sideBySide(w, "last week", formatValue(c.Old, p.Values[i].Old), formatValue(c.New, p.Values[i].New))
		}
	}
	for _, list := range []struct {
		title   string
		metrics []*catalog.Metric
	}{{"Added", d.Added}, {"Removed", d.Removed}} {
		if len(list.metrics) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s metrics (%d):\n", list.title, len(list.metrics))
		for _, m := range list.metrics {
			fmt.Fprintf(w, "  %s (%s): %s\n", m.ID, m.Label, m.Formula())
		}
	}
}

// formatValue writes a figure as plumbline answers it (answer.Figure)
// and, for a ratio, beside its summed parts; nulls as no data.
func formatValue(m *catalog.Metric, parts []*float64) string {
	num := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	var s string
	switch v := answer.Figure(m, parts).(type) {
	case nil:
		s = "null (no data)"
		if m.IsRatio() {
			s = "null (nothing to divide)"
		}
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'f', 2, 64)
		if m.IsRatio() {
			s = strconv.FormatFloat(v, 'g', 6, 64)
		}
	}
	if m.IsRatio() {
		s += " = " + num(parts[0]) + " / " + num(parts[1])
	}
	return s
}

// Columns of the side-by-side view.
const (
	labelWidth  = 12
	columnWidth = 48
)

// sideBySide prints old and new text in two columns under a label, each
// wrapped to its column.
func sideBySide(w io.Writer, label, old, new string) {
	l, r := wrap(old, columnWidth), wrap(new, columnWidth)
	for i := 0; i < max(len(l), len(r)); i++ {
		var a, b string
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			b = r[i]
		}
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "  %-*s%-*s │ %s\n", labelWidth, label, columnWidth, a, b)
	}
}

// wrap breaks text into lines of at most width runes, at spaces; a word
// longer than width stands on its own line.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// Query prints the i-th of n report statements a call compiles to, with
// each bound parameter as PostgreSQL reads it, for plumbline explain.
func Query(w io.Writer, i, n int, stmt string, params []any) {
	if n > 1 {
		fmt.Fprintf(w, "\nQuery %d of %d", i+1, n)
	}
	fmt.Fprintf(w, "\nSQL:\n%s\n\nParameters:\n", stmt)
	for j, p := range params {
		fmt.Fprintf(w, "  $%d = %s\n", j+1, param(p))
	}
}

// param writes a bound parameter as PostgreSQL would read it.
func param(v any) string {
	switch v := v.(type) {
	case time.Time:
		if v.Location() == time.UTC && v.Equal(v.Truncate(24*time.Hour)) {
			return "'" + v.Format(time.DateOnly) + "' (date)"
		}
		return "'" + v.Format(time.RFC3339) + "' (timestamptz)"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "' (text)"
	}
	return fmt.Sprintf("%v (%T)", v, v)
}
