package chartview_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
)

// The chart view, loaded by a host built on the extension's own host bridge
// in a sandboxed iframe of Debian's chromium, draws real answers of a running
// plumbline: one mark per returned row, at the returned figure; partial
// figures hatched and explained; nulls as gaps; the floor's figure marked;
// and beneath every chart each definition, data_through per source, the
// period with its time zone, the counting basis and the notes. It follows
// the host's light or dark theme and keeps a table behind a toggle.
func TestChartsInABrowser(t *testing.T) {
	harness := filepath.Join(freshBuild(t), "harness.html")
	cs := host(t)
	tools := map[string]*mcp.Tool{}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		tools[tool.Name] = tool
	}
	ctx := browser(t, harness)

	t.Run("league", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "league", "league", `{"period":{"named":"last_week"},"metrics":["close_rate","submitted_sales"]}`, "dark")
		v.checkCharts(t)
		v.checkBeside(t)
		v.checkGoverned(t)
		v.checkFloor(t)
		v.checkTheme(t, "dark")
		v.checkTables(t)
		v.screenshot(t, ctx)
	})
	t.Run("team_weeks", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "team_weeks", "team_weeks", `{"who":{"team":"falcons"}}`, "light")
		v.checkCharts(t)
		v.checkBeside(t)
		v.checkGoverned(t)
		v.checkTheme(t, "light")
		v.screenshot(t, ctx)
		v.checkTables(t)
	})
	// Each week beside the week before: a hollow bar at each previous
	// figure, the change left to the table.
	t.Run("team_weeks_previous_period", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "team_weeks_previous_period", "team_weeks", `{"who":{"team":"falcons"},"compare_to":"previous_period"}`, "light")
		v.checkCharts(t)
		if previous, _, _ := v.checkBeside(t); previous == 0 {
			t.Fatal("the answer carries no previous figure to draw")
		}
		v.checkGoverned(t)
		v.screenshot(t, ctx)
		v.checkTables(t)
	})
	// Each week against its own week's target: the Harriers have targets
	// until they leave the floor, and none after, so one chart holds both.
	t.Run("team_weeks_target", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "team_weeks_target", "team_weeks", `{"who":{"team":"harriers"},"compare_to":"target","weeks":8}`, "dark")
		v.checkCharts(t)
		if _, targets, none := v.checkBeside(t); targets == 0 || none == 0 {
			t.Fatalf("the answer has %d targets and %d weeks without one; this view must show both", targets, none)
		}
		v.checkGoverned(t)
		v.checkTheme(t, "dark")
		v.screenshot(t, ctx)
		v.checkTables(t)
	})
	// Teams ranked by attainment, each with its target marked; a team
	// without a target has no mark.
	t.Run("league_by_attainment", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "league_by_attainment", "league",
			`{"period":{"named":"last_week"},"metrics":["submitted_sales","close_rate"],"rank_by":"attainment","sort":{"metric":"submitted_sales","direction":"desc"}}`, "dark")
		v.checkCharts(t)
		if _, targets, none := v.checkBeside(t); targets == 0 || none == 0 {
			t.Fatalf("the answer has %d targets and %d rows without one; this view must show both", targets, none)
		}
		v.checkFloor(t)
		v.checkGoverned(t)
		v.checkTheme(t, "dark")
		v.screenshot(t, ctx)
	})
	// A second call names the definitions and standing notes by reference.
	t.Run("team_weeks_by_reference", func(t *testing.T) {
		cat, _ := catalog.Demo()
		v := show(t, ctx, cs, tools, "team_weeks_by_reference", "team_weeks", `{"who":{"team":"falcons"},"known_definitions":"`+cat.Version()+`"}`, "light")
		if len(v.answer.NoteRefs) == 0 {
			t.Fatal("the answer names no standing note by reference")
		}
		v.checkCharts(t)
		v.checkGoverned(t)
	})
	// The newest hours are not final, and today is not loaded yet: a
	// partial day and a null in one answer.
	t.Run("hours_by_day", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "hours_by_day", "hours", `{"who":{"team":"falcons"},"period":{"named":"this_week"},"group_by":"day"}`, "light")
		gaps, partial := v.checkCharts(t)
		if gaps == 0 || partial == 0 {
			t.Fatalf("the answer has %d nulls and %d partial figures; this view must show both", gaps, partial)
		}
		v.checkGoverned(t)
		v.screenshot(t, ctx)
		v.checkTables(t)
	})
	t.Run("sales_by_day_dark", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "sales_by_day_dark", "sales", `{"who":{"floor":true},"period":{"named":"this_week"},"group_by":"day"}`, "dark")
		if gaps, _ := v.checkCharts(t); gaps == 0 {
			t.Error("today's nightly figures are not in, yet nothing is drawn as a gap")
		}
		v.checkGoverned(t)
		v.checkTheme(t, "dark")
		v.screenshot(t, ctx)
	})
	t.Run("quality_by_week", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "quality_by_week", "quality", `{"who":{"team":"falcons"},"period":{"named":"last_28_days"},"group_by":"week"}`, "light")
		v.checkCharts(t)
		v.checkGoverned(t)
		v.screenshot(t, ctx)
	})
	// Not a time series: a readable table, governed the same way.
	t.Run("sales_by_team", func(t *testing.T) {
		v := show(t, ctx, cs, tools, "sales_by_team", "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"}`, "light")
		if len(v.facts.Panels) != 0 || len(v.facts.Tables) != 1 || v.facts.Tables[0] != len(v.answer.Rows) {
			t.Errorf("want one table of %d rows and no chart; got %d charts and tables %v", len(v.answer.Rows), len(v.facts.Panels), v.facts.Tables)
		}
		v.checkGoverned(t)
		v.screenshot(t, ctx)
	})
}

// tables are the answer's tables: its rows, or each of its sections.
func (v *view) tablesOf() []section {
	if v.answer.Sections != nil {
		return v.answer.Sections
	}
	return []section{{ID: "rows", Columns: v.answer.Columns, Rows: v.answer.Rows}}
}

// keyAt is the column a table's rows are keyed by.
func keyAt(cols []string) (string, int) {
	for i, c := range cols {
		if c == "day" || c == "week" || c == "team" || c == "agent" {
			return c, i
		}
	}
	return "", -1
}

// lastDay is the last day a row's figure covers.
func (v *view) lastDay(grouping, key string) string {
	switch grouping {
	case "day":
		return key
	case "week":
		d, _ := time.Parse(time.DateOnly, key)
		if end := d.AddDate(0, 0, 6).Format(time.DateOnly); end < v.answer.Period.End {
			return end
		}
	}
	return v.answer.Period.End
}

// checkCharts checks every metric's panel against the answer: one mark per
// row in the answer's order, each at the returned figure and in proportion
// to it, a gap (no bar) for each null, and hatching exactly where the metric
// is listed partial and the row reaches past its complete_through. It
// returns how many gaps and partial figures the answer called for.
func (v *view) checkCharts(t *testing.T) (gaps, partial int) {
	t.Helper()
	panels := map[string]int{}
	for i, p := range v.facts.Panels {
		panels[p.Metric] = i
	}
	for _, sec := range v.tablesOf() {
		grouping, k := keyAt(sec.Columns)
		for col, metric := range sec.Columns {
			m, ok := v.answer.Metrics[metric]
			if !ok {
				continue
			}
			i, ok := panels[metric]
			if !ok {
				t.Errorf("no chart for %s", metric)
				continue
			}
			p := v.facts.Panels[i]
			if !strings.Contains(p.Title, m.Label) {
				t.Errorf("%s: the chart's SVG title %q does not name it", metric, p.Title)
			}
			if len(p.Points) != len(sec.Rows) {
				t.Errorf("%s: %d marks for %d rows", metric, len(p.Points), len(sec.Rows))
				continue
			}
			scale := 0.0
			for r, row := range sec.Rows {
				got := p.Points[r]
				key := fmt.Sprint(row[k])
				wantPartial := contains(v.answer.PartialMetrics, metric) &&
					(m.DataThrough.CompleteThrough == nil || v.lastDay(grouping, key) > *m.DataThrough.CompleteThrough)
				cell, isNum := row[col].(float64)
				switch {
				case got.Key != key:
					t.Errorf("%s: mark %d is %s, row is %s", metric, r, got.Key, key)
				case row[col] == nil:
					gaps++
					if got.State != "gap" || got.Bars != 0 || got.Value != "null" {
						t.Errorf("%s %s: null drawn as %+v, want a gap with no bar", metric, key, got)
					}
				case !isNum:
					t.Errorf("%s %s: cell %v is not a figure", metric, key, row[col])
				default:
					drawn, _ := strconv.ParseFloat(got.Value, 64)
					if drawn != cell || got.Bars != 1 {
						t.Errorf("%s %s: drawn %+v, returned %v", metric, key, got, cell)
					}
					if wantPartial {
						partial++
					}
					if (got.State == "partial") != wantPartial || (wantPartial && !strings.HasPrefix(got.Fill, "url(#")) {
						t.Errorf("%s %s: drawn %s (fill %q); partial should be %v", metric, key, got.State, got.Fill, wantPartial)
					}
					size := got.Height
					if grouping == "team" {
						size = got.Width
					}
					if cell > 0 && scale == 0 {
						scale = size / cell
					} else if cell > 0 && math.Abs(size/cell-scale) > 0.01*scale {
						t.Errorf("%s %s: bar of %.2f for %v is out of proportion (%.4f per unit, want %.4f)", metric, key, size, cell, size/cell, scale)
					}
				}
			}
		}
	}
	if partial > 0 && !strings.Contains(v.facts.Legend, "not final") {
		t.Errorf("partial figures are drawn but the legend does not say why: %q", v.facts.Legend)
	}
	return gaps, partial
}

// checkBeside checks every metric's panel draws what the answer sets beside
// its figures: for each row with a previous figure (…_previous), a hollow bar
// left of the row's bar at that figure, on the scale of the row's own bars,
// or a gap for a null; for each row with a target (…_target), one mark
// across the row's bar at the target, and none where the target is null.
// The legend names what is drawn. It returns how many previous figures,
// targets and null targets the answer holds.
func (v *view) checkBeside(t *testing.T) (previous, targets, none int) {
	t.Helper()
	panels := map[string]int{}
	for i, p := range v.facts.Panels {
		panels[p.Metric] = i
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.5+0.005*math.Abs(b) }
	for _, sec := range v.tablesOf() {
		grouping, k := keyAt(sec.Columns)
		ranked := grouping == "team"
		for col, metric := range sec.Columns {
			i, ok := panels[metric]
			if _, isMetric := v.answer.Metrics[metric]; !isMetric || !ok {
				continue // checkCharts says so
			}
			p := v.facts.Panels[i]
			if len(p.Points) != len(sec.Rows) {
				continue // checkCharts says so
			}
			// The scale of the row's own bars: size over figure.
			base := p.Base.Y1
			if ranked {
				base = p.Base.X1
			}
			size := func(b point) float64 {
				if ranked {
					return b.Width
				}
				return b.Height
			}
			scale := 0.0
			for r, row := range sec.Rows {
				if cell, ok := row[col].(float64); ok && cell > 0 {
					scale = size(p.Points[r]) / cell
					break
				}
			}
			if scale == 0 {
				t.Errorf("%s: no bar to take the scale from", metric)
				continue
			}
			prevAt := slices.Index(sec.Columns, metric+"_previous")
			switch {
			case prevAt < 0 && len(p.Previous) > 0:
				t.Errorf("%s: %d previous marks, and the answer has no previous figure", metric, len(p.Previous))
			case prevAt >= 0 && len(p.Previous) != len(sec.Rows):
				t.Errorf("%s: %d previous marks for %d rows", metric, len(p.Previous), len(sec.Rows))
			case prevAt >= 0:
				for r, row := range sec.Rows {
					got, bar, key := p.Previous[r], p.Points[r], fmt.Sprint(row[k])
					cell, isNum := row[prevAt].(float64)
					switch {
					case got.Key != key:
						t.Errorf("%s: previous mark %d is %s, row is %s", metric, r, got.Key, key)
					case row[prevAt] == nil:
						if got.State != "gap" || got.Bars != 0 || got.Value != "null" {
							t.Errorf("%s %s: null previous figure drawn as %+v, want a gap with no bar", metric, key, got)
						}
					case !isNum:
						t.Errorf("%s %s: previous cell %v is not a figure", metric, key, row[prevAt])
					default:
						previous++
						drawn, _ := strconv.ParseFloat(got.Value, 64)
						if drawn != cell || got.Bars != 1 || !near(got.Height, cell*scale) || !near(got.Y+got.Height, base) {
							t.Errorf("%s %s: previous figure %v drawn %+v; want a bar of %.2f standing on the baseline at %.2f", metric, key, cell, got, cell*scale, base)
						}
						if !strings.Contains(got.Title, "week before") && !strings.Contains(got.Title, "day before") {
							t.Errorf("%s %s: the previous bar's title %q does not say what it is", metric, key, got.Title)
						}
						if bar.Bars == 1 && got.X+got.Width > bar.X {
							t.Errorf("%s %s: the previous bar (x %.1f to %.1f) is not left of the row's bar (from %.1f)", metric, key, got.X, got.X+got.Width, bar.X)
						}
					}
				}
			}
			targetAt := slices.Index(sec.Columns, metric+"_target")
			if targetAt < 0 {
				if len(p.Targets) > 0 {
					t.Errorf("%s: %d target marks, and the answer has no target", metric, len(p.Targets))
				}
				continue
			}
			marks := map[string]target{}
			for _, m := range p.Targets {
				marks[m.Key] = m
			}
			want := 0
			for r, row := range sec.Rows {
				key, bar := fmt.Sprint(row[k]), p.Points[r]
				got, drawn := marks[key]
				cell, isNum := row[targetAt].(float64)
				switch {
				case row[targetAt] == nil:
					none++
					if drawn {
						t.Errorf("%s %s: no target is set, yet a target is drawn: %+v", metric, key, got)
					}
				case !isNum:
					t.Errorf("%s %s: target cell %v is not a figure", metric, key, row[targetAt])
				case !drawn:
					t.Errorf("%s %s: target %v is not drawn", metric, key, cell)
				default:
					want++
					targets++
					value, _ := strconv.ParseFloat(got.Value, 64)
					if value != cell || got.Lines != 1 || len(got.Pos) != 4 || !strings.Contains(got.Title, "target") {
						t.Errorf("%s %s: target %v drawn as %+v", metric, key, cell, got)
						continue
					}
					x1, x2, y1, y2 := got.Pos[0], got.Pos[1], got.Pos[2], got.Pos[3]
					// A step across the row's bar, at the target on the bars' scale.
					at, across := base-y1, x1 <= bar.X && x2 >= bar.X+bar.Width && y1 == y2
					if ranked {
						at, across = x1-base, y1 <= bar.Y && y2 >= bar.Y+bar.Height && x1 == x2
					}
					if bar.Bars == 1 && !across || !near(at, cell*scale) {
						t.Errorf("%s %s: target %v drawn at %.2f from the baseline across %v, want %.2f across the row's bar %+v", metric, key, cell, at, got.Pos, cell*scale, bar)
					}
				}
			}
			if len(p.Targets) != want {
				t.Errorf("%s: %d target marks for %d targets set", metric, len(p.Targets), want)
			}
		}
	}
	legend := strings.ToLower(v.facts.Legend)
	if previous > 0 && !strings.Contains(legend, "week before") {
		t.Errorf("previous figures are drawn but the legend does not name them: %q", v.facts.Legend)
	}
	if targets > 0 && !strings.Contains(legend, "target") {
		t.Errorf("targets are drawn but the legend does not name them: %q", v.facts.Legend)
	}
	if previous == 0 && strings.Contains(legend, "week before") || targets == 0 && none == 0 && strings.Contains(legend, "target") {
		t.Errorf("the legend names marks the answer has none of: %q", v.facts.Legend)
	}
	return previous, targets, none
}

var space = regexp.MustCompile(`\s+`)

// checkGoverned checks that, on screen beneath the charts, every metric has
// its label, definition (or reference), counting basis and data_through;
// every source its data_through; the period its dates and time zone; and
// every note is there.
func (v *view) checkGoverned(t *testing.T) {
	t.Helper()
	f := v.facts
	if f.Rendered != "figures" || !f.Governed {
		t.Fatalf("rendered %q; the governed section is on screen: %v", f.Rendered, f.Governed)
	}
	has := func(what, text, want string) {
		if !strings.Contains(space.ReplaceAllString(text, " "), space.ReplaceAllString(want, " ")) {
			t.Errorf("%s does not show %q: %q", what, want, text)
		}
	}
	for id, m := range v.answer.Metrics {
		entry := f.Metrics[id]
		has(id, entry, m.Label)
		if m.Definition != "" {
			has(id, entry, m.Definition)
		} else {
			has(id, entry, m.DefinitionRef)
		}
		has(id, entry, "runs to "+*m.DataThrough.RunsTo)
		has(id, entry, "final through "+*m.DataThrough.CompleteThrough)
		if m.SalesBasis != "" {
			has(id, entry, m.SalesBasis)
			has("the counting basis", f.Basis, m.SalesBasis)
		}
	}
	if len(v.answer.DataThrough) == 0 {
		t.Fatal("the answer has no data_through")
	}
	for rel, dt := range v.answer.DataThrough {
		has("data_through of "+rel, f.Sources[rel], *dt.RunsTo)
		has("data_through of "+rel, f.Sources[rel], *dt.CompleteThrough)
	}
	for _, s := range []string{v.answer.Period.Start, v.answer.Period.End, v.answer.Period.TimeZone} {
		has("the period", f.Period, s)
	}
	for _, n := range v.answer.Notes {
		has("the notes", f.Notes, n)
	}
	for _, r := range v.answer.NoteRefs {
		has("the standing notes by reference", f.NoteRefs, r)
	}
}

// checkFloor checks the league marks the whole floor's figure, the section's
// total: as a line for a ratio, as a stated figure for a sum.
func (v *view) checkFloor(t *testing.T) {
	t.Helper()
	sec := v.answer.Sections[0]
	for _, p := range v.facts.Panels {
		col := -1
		for i, c := range sec.Columns {
			if c == p.Metric {
				col = i
			}
		}
		ratio := contains(sec.Columns, p.Metric+"_numerator")
		if p.Floor == nil {
			t.Errorf("%s: the floor's figure is not marked", p.Metric)
			continue
		}
		if got, _ := strconv.ParseFloat(p.Floor.Value, 64); got != sec.Total[col].(float64) || p.Floor.Line != ratio || !strings.Contains(p.Floor.Text, "Whole floor") {
			t.Errorf("%s: floor marked %+v; want %v, drawn as a line: %v", p.Metric, p.Floor, sec.Total[col], ratio)
		}
	}
}

// checkTheme checks the view took the host's theme: a dark page for dark.
func (v *view) checkTheme(t *testing.T, theme string) {
	t.Helper()
	var r, g, b float64
	if _, err := fmt.Sscanf(v.facts.Bg, "rgb(%f, %f, %f)", &r, &g, &b); err != nil {
		t.Fatalf("background %q: %v", v.facts.Bg, err)
	}
	light := (0.2126*r+0.7152*g+0.0722*b)/255 > 0.5
	if v.facts.Theme != theme || light != (theme == "light") {
		t.Errorf("host theme %s: the view took theme %q with background %s", theme, v.facts.Theme, v.facts.Bg)
	}
}

// checkTables opens the table behind the toggle: a row per returned row.
func (v *view) checkTables(t *testing.T) {
	t.Helper()
	if len(v.facts.Tables) != 0 {
		t.Errorf("tables %v are on screen before the toggle", v.facts.Tables)
	}
	v.tables(t)
	var want []int
	for _, sec := range v.tablesOf() {
		want = append(want, len(sec.Rows))
	}
	if fmt.Sprint(v.facts.Tables) != fmt.Sprint(want) {
		t.Errorf("the toggle shows tables of %v rows, want %v", v.facts.Tables, want)
	}
}
