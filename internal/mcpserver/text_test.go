package mcpserver_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/mcpserver"
	"plumbline/internal/servetest"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// The text block is the answer rendered for a model, and holds everything
// the structured content does that a reader needs. checkText reads the text
// as a model would, by its documented layout, and fails the test for any
// figure, definition or reference, data_through, counting basis, partial
// flag or note of the structured content it cannot find there.
//
// The layout: a first line with the request, the period and the
// catalog_version (saying when definitions, the time zone and standing
// notes come by reference, and naming those notes); a definition line per
// metric in full answers; a stamp line per set of metrics sharing one
// ("Every figure: ..." when all do); "Source R: ..." for a source no stamp
// states; the notes as "- " lines; then each table as CSV under its header
// row, a ratio's cell holding its parts: "0.25 (3/12)".
func checkText(t testing.TB, cat *catalog.Catalog, text string, a answer) {
	t.Helper()
	if !utf8Text(text) || strings.HasPrefix(text, "{") {
		t.Errorf("the text block is not text for a reader: %.200s", text)
		return
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("the text block lacks "+format+"\n--- text:\n%s", append(args, text)...)
	}
	lines := strings.Split(text, "\n")
	if _, governed := a["period"]; governed {
		checkGoverned(t, cat, text, lines, a, fail)
	}
	for _, tb := range tablesOf(a) {
		checkTable(lines, tb, fail)
	}
	// Every other value of the answer: each string (but the request id and
	// what the checks above read their own way), and, outside figure
	// answers, each number and flag.
	_, governed := a["period"]
	byRef := strings.Contains(lines[0], "by reference to catalog_version")
	leaves(a, "", func(path string, v any) {
		if skipLeaf(path, governed, byRef) {
			return
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case float64:
			s = strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(v)
		}
		if _, isString := v.(string); (isString || !governed) && !strings.Contains(text, s) {
			fail("%s = %q", path, s)
		}
	})
}

func utf8Text(s string) bool { return s != "" && !strings.ContainsRune(s, '\uFFFD') }

// skipLeaf says which values checkText reads by its own rules, or which a
// text does not repeat: the request id; tables (columns, rows, totals,
// teams, people, candidates); metrics, data_through and note_refs (read by
// checkGoverned); each period's day count, and its time zone when it comes
// by reference; a section's title (its id is shown); truncated flags.
func skipLeaf(path string, governed, byRef bool) bool {
	for _, prefix := range []string{"request_id", "columns", "rows", "teams[", "people[", "candidates[", "metrics.", "data_through.",
		"note_refs", "partial_metrics", "period.days", "previous_period.days"} {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return strings.HasPrefix(path, "sections[") && !strings.HasSuffix(path, "].id") ||
		strings.HasSuffix(path, "truncated") || (path == "period.time_zone" || path == "previous_period.time_zone") && byRef
}

// checkGoverned finds each metric's definition or reference and its stamp,
// each source's data_through, the notes and the references to standing
// notes.
func checkGoverned(t testing.TB, cat *catalog.Catalog, text string, lines []string, a answer, fail func(string, ...any)) {
	t.Helper()
	version, _ := a["catalog_version"].(string)
	if !strings.Contains(lines[0], "catalog_version "+version) {
		fail("the catalog_version %s on its first line", version)
	}
	byRef := "by reference to catalog_version " + version + ": "
	metrics, _ := a["metrics"].(map[string]any)
	partial := asStrings(a["partial_metrics"])
	stamps := stampLines(lines)
	for id, v := range metrics {
		m := v.(map[string]any)
		switch {
		case m["definition"] != nil:
			line := lineStarting(lines, fmt.Sprintf("- %s, %s (%s): ", id, m["label"], m["unit"]))
			for _, part := range []string{"definition", "formula", "source"} {
				if !strings.Contains(line, m[part].(string)) {
					fail("%s's %s on its definition line", id, part)
				}
			}
		case m["definition_ref"] != nil:
			if m["definition_ref"] != id+"@"+version || !strings.Contains(lines[0], byRef+"definitions") || !strings.Contains(text, id) {
				fail("%s's definition by reference (%v)", id, m["definition_ref"])
			}
		}
		line, ok := stamps[id]
		if !ok {
			line, ok = stamps["Every figure"]
		}
		if !ok || len(stamps) > 1 && stamps["Every figure"] != "" {
			fail("a stamp line for %s", id)
			continue
		}
		if !datesIn(line, m["data_through"]) {
			fail("%s's data_through %v on its stamp line %q", id, m["data_through"], line)
		}
		if b, _ := m["sales_basis"].(string); b != "" && !strings.Contains(line, "basis "+b) {
			fail("%s's counting basis %s", id, b)
		}
		if p := slices.Contains(partial, id); p != strings.Contains(line, "; partial") || p != (m["partial"] == true) {
			fail("%s's partial flag (%v) on %q", id, p, line)
		}
		if n, _ := m["left_out"].(float64); n > 0 != strings.Contains(line, fmt.Sprintf("; %v agent-day", n)) {
			fail("%s's left_out %v on %q", id, n, line)
		}
		if td, _ := m["target"].(map[string]any); td != nil {
			period := fmt.Sprintf("; target %v %v..%v (%v day", td["period"], td["start"], td["end"], td["days"])
			counted := "no day counted yet"
			if td["counted_from"] != nil {
				counted = fmt.Sprintf("counted %v..%v (%v day", td["counted_from"], td["counted_through"], td["counted_days"])
			}
			if !strings.Contains(line, period) || !strings.Contains(line, counted) {
				fail("%s's target days %v on %q", id, td, line)
			}
		}
	}
	if a["partial"] == true && len(partial) == 0 || a["partial"] == false && len(partial) > 0 {
		t.Errorf("partial %v with partial_metrics %v", a["partial"], partial)
	}
	sources, _ := a["data_through"].(map[string]any)
	for rel, dt := range sources {
		stated := datesIn(lineStarting(lines, "Source "+rel+": "), dt)
		for id, v := range metrics {
			m, ok := cat.Metric(id)
			stated = stated || ok && len(m.Sources()) == 1 && m.Sources()[0].Relation == rel && fmt.Sprint(v.(map[string]any)["data_through"]) == fmt.Sprint(dt)
		}
		if !stated {
			fail("the data_through of %s (%v)", rel, dt)
		}
	}
	for _, n := range asStrings(a["notes"]) {
		if !slices.Contains(lines, "- "+n) {
			fail("the note %q", n)
		}
	}
	named := strings.Split(strings.TrimSuffix(after(after(lines[0], byRef), "notes "), "."), ", ")
	for _, ref := range asStrings(a["note_refs"]) {
		if id, v, _ := strings.Cut(ref, "@"); v != version || !slices.Contains(named, id) {
			fail("the standing note %s by reference", ref)
		}
	}
	if sections, _ := a["sections"].([]any); len(sections) > 0 {
		for _, sec := range sections {
			if id := sec.(map[string]any)["id"].(string); lineStarting(lines, "Section "+id) == "" {
				fail("section %s", id)
			}
		}
	}
}

func after(s, sep string) string {
	_, rest, _ := strings.Cut(s, sep)
	return rest
}

// stampLines reads the stamp lines, by each metric they name.
func stampLines(lines []string) map[string]string {
	out := map[string]string{}
	for _, l := range lines[1:] {
		ids, stamp, ok := strings.Cut(l, ": ")
		if !ok || !regexp.MustCompile(`^(Every figure|[a-z0-9_]+(, [a-z0-9_]+)*)$`).MatchString(ids) ||
			!regexp.MustCompile(`(final through|data through|no data)`).MatchString(stamp) {
			continue
		}
		for _, id := range strings.Split(ids, ", ") {
			out[id] = l
		}
	}
	return out
}

func lineStarting(lines []string, prefix string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// datesIn says whether a line states a data_through: the dates it runs to
// and is final through, or that there is no data or no final day.
func datesIn(line string, v any) bool {
	dt, _ := v.(map[string]any)
	runs, _ := dt["runs_to"].(string)
	final, _ := dt["complete_through"].(string)
	switch {
	case line == "" || dt == nil:
		return false
	case runs == "":
		return strings.Contains(line, "no data")
	case final == "":
		return strings.Contains(line, runs) && strings.Contains(line, "no day final")
	}
	return strings.Contains(line, runs) && strings.Contains(line, "final through "+final)
}

// figureTable is one table of an answer: its columns and rows as the
// structured content holds them.
type figureTable struct {
	name    string
	columns []string
	rows    [][]any
}

// tablesOf lists an answer's tables: rows (with a section's total), roster
// teams, people and candidates, the last three as the text writes them.
func tablesOf(a answer) []figureTable {
	var out []figureTable
	add := func(name string, columns, rows any, total any) {
		t := figureTable{name: name, columns: asStrings(columns)}
		list, _ := rows.([]any)
		for _, r := range list {
			t.rows = append(t.rows, r.([]any))
		}
		if total, ok := total.([]any); ok {
			t.rows = append(t.rows, total)
		}
		if len(t.columns) > 0 && len(t.rows) > 0 {
			out = append(out, t)
		}
	}
	add("rows", a["columns"], a["rows"], nil)
	sections, _ := a["sections"].([]any)
	for _, s := range sections {
		s := s.(map[string]any)
		add("section "+s["id"].(string), s["columns"], s["rows"], s["total"])
	}
	objects := func(name string, list any, fields ...string) {
		items, _ := list.([]any)
		var rows []any
		for _, it := range items {
			m := it.(map[string]any)
			row := make([]any, len(fields))
			for i, f := range fields {
				row[i] = m[f]
			}
			rows = append(rows, row)
		}
		add(name, anyOf(fields), rows, nil)
	}
	objects("teams", a["teams"], "team", "team_name", "on_floor", "decided_from", "decided_by", "reason", "agents")
	objects("people", a["people"], "agent_key", "name", "email", "team", "team_name", "hired_on", "left_on")
	if a["argument"] == "who.team" {
		objects("candidates", a["candidates"], "team_key", "name")
	} else {
		objects("candidates", a["candidates"], "agent_key", "name", "team", "left_on")
	}
	return out
}

var ratioCell = regexp.MustCompile(`^(\S+) \((\S+)/(\S+)\)$`)

// checkTable finds a table's header row and checks every cell below it
// against the structured content: numbers as numbers, null as null, each
// ratio with its numerator and denominator.
func checkTable(lines []string, tb figureTable, fail func(string, ...any)) {
	var header []string
	ratio := map[int]bool{}
	for i := 0; i < len(tb.columns); i++ {
		header = append(header, tb.columns[i])
		if i+2 < len(tb.columns) && tb.columns[i+1] == tb.columns[i]+"_numerator" && tb.columns[i+2] == tb.columns[i]+"_denominator" {
			ratio[i] = true
			i += 2
		}
	}
	at := slices.IndexFunc(lines, func(l string) bool {
		cells, err := csv.NewReader(strings.NewReader(l)).Read()
		return err == nil && slices.Equal(cells, header)
	})
	if at < 0 {
		fail("the header of %s: %v", tb.name, header)
		return
	}
	for r, row := range tb.rows {
		if at+1+r >= len(lines) {
			fail("row %d of %s", r, tb.name)
			return
		}
		cells, err := csv.NewReader(strings.NewReader(lines[at+1+r])).Read()
		if err != nil {
			fail("row %d of %s as CSV (%v)", r, tb.name, err)
			continue
		}
		c := 0
		for i := 0; i < len(row); i++ {
			if c >= len(cells) {
				fail("cell %s of row %d of %s", tb.columns[i], r, tb.name)
				break
			}
			got := cells[c]
			c++
			if !ratio[i] {
				if !sameCell(got, row[i]) {
					fail("%s = %v in row %d of %s (it reads %q)", tb.columns[i], row[i], r, tb.name, got)
				}
				continue
			}
			parts := ratioCell.FindStringSubmatch(got)
			switch {
			case parts == nil && got == "null" && row[i] == nil && row[i+1] == nil && row[i+2] == nil:
			case parts == nil || !sameCell(parts[1], row[i]) || !sameCell(parts[2], row[i+1]) || !sameCell(parts[3], row[i+2]):
				fail("%s = %v (%v/%v) in row %d of %s (it reads %q)", tb.columns[i], row[i], row[i+1], row[i+2], r, tb.name, got)
			}
			i += 2
		}
		if c != len(cells) {
			fail("no more cells than columns in row %d of %s: %v", r, tb.name, cells)
		}
	}
}

func sameCell(got string, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == "null"
	case string:
		return got == w
	case bool:
		return got == strconv.FormatBool(w)
	case float64:
		g, err := strconv.ParseFloat(got, 64)
		return err == nil && g == w
	}
	return false
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anyOf(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// leaves walks the scalar values of a decoded JSON value with their paths.
func leaves(v any, path string, visit func(string, any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			leaves(x, p, visit)
		}
	case []any:
		for i, x := range v {
			leaves(x, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	default:
		visit(path, v)
	}
}

// The first call of every figure tool is complete in both blocks: every
// metric with its definition, label, unit, formula, source and
// data_through, and the standing notes that say how its figures are
// counted; a second call with the catalog_version names them by reference
// in both blocks, stamps kept; a wrong version brings every text again,
// with a note saying why.
func TestFirstCallIsCompleteAndLaterCallsLean(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	cat := f.engine.Catalog()
	version := cat.Version()
	null, _ := cat.Note(catalog.NoteNull)
	ratios, _ := cat.Note(catalog.NoteRatios)
	floorNote, _ := cat.Note(catalog.NoteFloor)
	for _, c := range []struct{ tool, args string }{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"`},
		{"hours", `{"who":{"team":"hawks"},"period":{"named":"yesterday"},"group_by":"agent"`},
		{"quality", `{"who":{"agent":"a005"},"period":{"named":"last_28_days"},"group_by":"week"`},
		{"team_day", `{"who":{"floor":true}`},
		{"team_weeks", `{"who":{"team":"hawks"}`},
		{"league", `{"period":{"named":"last_week"}`},
	} {
		first, _ := call(t, cs, c.tool, c.args+`}`)
		floor := strings.Contains(c.args, `"floor":true`) || c.tool == "league"
		want := []string{null.Text, ratios.Text}
		if floor {
			want = append(want, floorNote.Text)
		}
		for _, n := range want {
			if !slices.Contains(asStrings(first["notes"]), n) {
				t.Errorf("%s: the first call lacks the note %q", c.tool, n)
			}
		}
		metrics := first["metrics"].(map[string]any)
		if len(metrics) == 0 || first["note_refs"] != nil {
			t.Errorf("%s: first call metrics %v, note_refs %v", c.tool, metrics, first["note_refs"])
		}
		for id, v := range metrics {
			m := v.(map[string]any)
			def, _ := cat.Metric(id)
			if m["definition"] != def.Definition() || m["formula"] != def.Formula() || m["source"] != def.Relation() ||
				m["label"] != def.Label || m["unit"] != def.Unit || m["data_through"] == nil {
				t.Errorf("%s: the first call's %s is not complete: %v", c.tool, id, m)
			}
		}

		second, _ := call(t, cs, c.tool, c.args+`,"known_definitions":"`+version+`"}`)
		refs := asStrings(second["note_refs"])
		for _, n := range asStrings(second["notes"]) {
			if n == null.Text || n == ratios.Text || n == floorNote.Text {
				t.Errorf("%s: with known_definitions, the standing note %q came in full", c.tool, n)
			}
		}
		for _, id := range []string{catalog.NoteNull, catalog.NoteRatios} {
			if !slices.Contains(refs, id+"@"+version) {
				t.Errorf("%s: with known_definitions, note_refs %v lack %s", c.tool, refs, id)
			}
		}
		for id, v := range second["metrics"].(map[string]any) {
			m := v.(map[string]any)
			if m["definition"] != nil || m["formula"] != nil || m["source"] != nil || m["definition_ref"] != id+"@"+version ||
				fmt.Sprint(m["data_through"]) != fmt.Sprint(metrics[id].(map[string]any)["data_through"]) {
				t.Errorf("%s: with known_definitions, %s = %v", c.tool, id, m)
			}
		}

		stale, _ := call(t, cs, c.tool, c.args+`,"known_definitions":"0123456789abcdef"}`)
		if stale["note_refs"] != nil || !strings.Contains(strings.Join(asStrings(stale["notes"]), " "), "does not match this catalogue") ||
			!slices.Contains(asStrings(stale["notes"]), null.Text) {
			t.Errorf("%s: a wrong known_definitions did not bring every text again with a note: %v", c.tool, stale["notes"])
		}
	}
}

// With TextContent set to json, the text block is the structured
// content's JSON, for clients that parse it.
func TestTextContentJSON(t *testing.T) {
	f := newFloor(t)
	f.server = mcpserver.New(f.engine, &mcpserver.Options{Logger: servetest.Quiet, TextContent: mcpserver.TextJSON})
	cs := f.client(t)
	for _, c := range [][2]string{{"sales", `{"who":{"floor":true},"period":{"named":"last_week"}}`}, {"health", `{}`}, {"sales", `{}`}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c[0], Arguments: json.RawMessage(c[1])})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(res.StructuredContent)
		var got, structured any
		text := res.Content[0].(*mcp.TextContent).Text
		if json.Unmarshal([]byte(text), &got) != nil || json.Unmarshal(want, &structured) != nil || fmt.Sprint(got) != fmt.Sprint(structured) {
			t.Errorf("%s %s: the text block is not the structured content's JSON: %s", c[0], c[1], text)
		}
	}
}

// At the row cap, with compact, no text block is above 8 KB: every report
// tool by agent for the floor with every metric it offers, and the canned
// reports for the floor.
func TestCompactTextAtTheRowCap(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	calls := [][2]string{
		{"team_day", `{"who":{"floor":true},"compact":true}`},
		{"team_weeks", `{"who":{"floor":true},"weeks":8,"compact":true}`},
		{"league", `{"period":{"named":"last_month"},"metrics":["submitted_sales","close_rate","logged_hours"],"compact":true}`},
	}
	for _, rep := range f.engine.Catalog().Reports() {
		metrics, _ := json.Marshal(rep.MetricIDs())
		calls = append(calls, [2]string{rep.ID, `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"agent","metrics":` +
			string(metrics) + `,"compact":true}`})
	}
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c[0], Arguments: json.RawMessage(c[1])})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %v", c[0], c[1], err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var rows int
		a, _ := res.StructuredContent.(map[string]any)
		for _, t := range append([]any{a}, sectionsOf(a)...) {
			r, _ := t.(map[string]any)["rows"].([]any)
			rows += len(r)
		}
		if len(text) > 8<<10 {
			t.Errorf("%s: a text block of %d bytes", c[0], len(text))
		}
		t.Logf("%s: %d rows, text %d bytes", c[0], rows, len(text))
	}
}

func sectionsOf(a map[string]any) []any {
	s, _ := a["sections"].([]any)
	return s
}

// A settled answer served again from the engine's cache (as the JSON it
// was sent as) reads the same as when it was first computed.
func TestKeptAnswersReadTheSame(t *testing.T) {
	cache := reports.NewAnswerCache(reports.DefaultCacheBytes)
	f := newFloorWith(t, func(o *reports.Options) { o.Cache = cache })
	cs := f.client(t)
	for _, c := range [][2]string{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_month"},"group_by":"team"}`},
		{"team_weeks", `{"who":{"team":"hawks"},"weeks":2}`},
	} {
		var texts []string
		for range 2 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c[0], Arguments: json.RawMessage(c[1])})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %v", c[0], err, res)
			}
			texts = append(texts, res.Content[0].(*mcp.TextContent).Text)
		}
		if cache.Stats().Hits == 0 {
			t.Fatalf("%s: the second call was not served from the cache", c[0])
		}
		if texts[0] != texts[1] {
			t.Errorf("%s: the kept answer reads\n%s\nthe fresh one\n%s", c[0], texts[1], texts[0])
		}
		call(t, cs, c[0], c[1]) // and it is complete
	}
}

// unrecordable is a request log that cannot put a call on record.
type unrecordable struct{}

func (unrecordable) Admit(context.Context, *ask.Record) (time.Duration, error) {
	return 0, errors.New("the disk is full")
}

func (unrecordable) Finish(context.Context, *ask.Record) {}

// A refusal that names no argument reads as the sentence its rule is, in
// the text a model reads.
func TestARefusalWithoutAnArgumentReadsAsASentence(t *testing.T) {
	f := newFloorWith(t, func(o *reports.Options) { o.Recorder = unrecordable{} })
	res, err := f.client(t).CallTool(context.Background(), &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "Refused (unavailable): The call could not be put on record") {
		t.Errorf("a call that could not be put on record reads %q", text)
	}
}
