package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/internal/store"
	"plumbline/reports"
)

// This file previews a catalogue change for a reviewer (check --diff): for
// every metric whose definition or formula changed, the old and new text
// and formula side by side and, with a database, the old and new value over
// the last complete week for the floor, so the change's effect on the
// numbers is seen before it ships.

// metricChange is one metric's change between two catalogues; Old or New is
// nil when the metric was added or removed.
type metricChange struct {
	ID       string
	Old, New *catalog.Metric
	OldValue string
	NewValue string
}

// previewChanges prints the preview of the change from the catalogue in
// oldDir to cat. With dsn it reads values from that database.
func previewChanges(ctx context.Context, oldDir string, cat *catalog.Catalog, dsn string, w io.Writer) error {
	old, err := catalog.LoadDir(oldDir)
	var errs catalog.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Fprintln(w, e.Error())
		}
		return fmt.Errorf("the old catalogue in %s (--diff) has %d problem(s)", oldDir, len(errs))
	}
	if err != nil {
		return fmt.Errorf("--diff: %w", err)
	}
	changed, added, removed := metricChanges(old, cat)
	if len(changed)+len(added)+len(removed) == 0 {
		fmt.Fprintf(w, "No metric was added, removed or redefined since %s.\n", oldDir)
		return nil
	}
	var week reports.Period
	if dsn != "" && len(changed) > 0 {
		if week, err = previewValues(ctx, dsn, old, cat, changed); err != nil {
			return err
		}
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "Changed metrics (%d) since %s:\n", len(changed), oldDir)
		if dsn != "" {
			fmt.Fprintf(w, "Values are the floor's over the last complete week, %s to %s, from the same database for both.\n",
				week.Start.Format(time.DateOnly), week.End.Format(time.DateOnly))
		}
	}
	for _, c := range changed {
		fmt.Fprintf(w, "\n%s (%s): %s\n", c.ID, c.New.Label, strings.Join(c.what(), ", "))
		sideBySide(w, "", "old", "new")
		sideBySide(w, "definition", c.Old.Definition(), c.New.Definition())
		sideBySide(w, "formula", c.Old.Formula(), c.New.Formula())
		if c.Old.Unit != c.New.Unit {
			sideBySide(w, "unit", c.Old.Unit, c.New.Unit)
		}
		if dsn != "" {
			sideBySide(w, "last week", c.OldValue, c.NewValue)
		}
	}
	for _, list := range []struct {
		title   string
		metrics []*catalog.Metric
	}{{"Added", added}, {"Removed", removed}} {
		if len(list.metrics) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s metrics (%d):\n", list.title, len(list.metrics))
		for _, m := range list.metrics {
			fmt.Fprintf(w, "  %s (%s): %s\n", m.ID, m.Label, m.Formula())
		}
	}
	return nil
}

// metricChanges lists metrics whose definition or formula differ, and those
// added and removed, by id.
func metricChanges(old, cat *catalog.Catalog) (changed []*metricChange, added, removed []*catalog.Metric) {
	for _, o := range old.Metrics() {
		n, ok := cat.Metric(o.ID)
		switch {
		case !ok:
			removed = append(removed, o)
		case o.Definition() != n.Definition() || o.Formula() != n.Formula() || o.Unit != n.Unit:
			changed = append(changed, &metricChange{ID: o.ID, Old: o, New: n})
		}
	}
	for _, n := range cat.Metrics() {
		if _, ok := old.Metric(n.ID); !ok {
			added = append(added, n)
		}
	}
	return changed, added, removed
}

// what says what changed.
func (c *metricChange) what() []string {
	var out []string
	if c.Old.Definition() != c.New.Definition() {
		out = append(out, "definition changed")
	}
	if c.Old.Formula() != c.New.Formula() {
		out = append(out, "formula changed")
	}
	if c.Old.Unit != c.New.Unit {
		out = append(out, "unit changed")
	}
	return out
}

// previewValues runs both catalogues' plans for the changed metrics, on the
// floor over the last complete week, against the one database, and fills
// in each change's old and new value. It returns the week.
func previewValues(ctx context.Context, dsn string, old, cat *catalog.Catalog, changed []*metricChange) (reports.Period, error) {
	var oldMs, newMs []*catalog.Metric
	for _, c := range changed {
		oldMs, newMs = append(oldMs, c.Old), append(newMs, c.New)
	}
	oldStore, err := store.Open(ctx, dsn, old, nil)
	if err != nil {
		return reports.Period{}, err
	}
	defer oldStore.Close()
	newStore, err := store.Open(ctx, dsn, cat, nil)
	if err != nil {
		return reports.Period{}, err
	}
	defer newStore.Close()
	var newest time.Time
	for _, side := range []struct {
		st *store.Store
		ms []*catalog.Metric
	}{{oldStore, oldMs}, {newStore, newMs}} {
		plan := &reports.Plan{Metrics: side.ms}
		cov, err := side.st.Coverage(ctx, plan.Sources())
		if err != nil {
			return reports.Period{}, fmt.Errorf("read how far the sources are loaded: %w", err)
		}
		for _, s := range plan.Sources() {
			c := cov[s.ID]
			if c.First.IsZero() {
				return reports.Period{}, fmt.Errorf("%s holds no data, so there is no week to preview", s.Relation)
			}
			d := c.Through
			if d.IsZero() { // a live source runs up to now
				now := time.Now().In(cat.Zone())
				d = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
			}
			if newest.IsZero() || d.Before(newest) {
				newest = d
			}
		}
	}
	week := lastWholeWeek(newest, cat.WeekStart())
	for i, side := range []struct {
		st  *store.Store
		cat *catalog.Catalog
		ms  []*catalog.Metric
	}{{oldStore, old, oldMs}, {newStore, cat, newMs}} {
		plan := &reports.Plan{Catalog: side.cat, Metrics: side.ms, Scope: reports.Scope{Kind: reports.ScopeFloor},
			Period: week, Limit: 1}
		results, err := side.st.Run(ctx, plan)
		if err != nil {
			return week, fmt.Errorf("run the %s catalogue's plan: %w", []string{"old", "new"}[i], err)
		}
		var sums []*float64
		if res := results[0]; len(res.Rows) == 1 {
			sums = res.Rows[0].Sums
		}
		for j, c := range changed {
			v := formatValue(side.ms[j], sumsOf(plan, j, sums))
			if i == 0 {
				c.OldValue = v
			} else {
				c.NewValue = v
			}
		}
	}
	return week, nil
}

// lastWholeWeek is the latest week that ends before newest: the sources
// hold a later day, so the week's own days are in.
func lastWholeWeek(newest time.Time, start time.Weekday) reports.Period {
	end := newest.AddDate(0, 0, -1)
	for end.Weekday() != (start+6)%7 {
		end = end.AddDate(0, 0, -1)
	}
	return reports.Period{Start: end.AddDate(0, 0, -6), End: end}
}

// sumsOf returns metric i's summed parts from a row's sums.
func sumsOf(plan *reports.Plan, i int, sums []*float64) []*float64 {
	at := 0
	for _, m := range plan.Metrics[:i] {
		at += len(m.Parts())
	}
	n := len(plan.Metrics[i].Parts())
	if sums == nil {
		return make([]*float64, n)
	}
	return sums[at : at+n]
}

// formatValue writes a figure as plumbline answers it: counts whole, ratios
// to six significant digits beside their summed parts, nulls as no data.
func formatValue(m *catalog.Metric, parts []*float64) string {
	num := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	if m.IsRatio() {
		n, d := parts[0], parts[1]
		if n == nil || d == nil || *d == 0 {
			return "null (nothing to divide) = " + num(n) + " / " + num(d)
		}
		return strconv.FormatFloat(*n / *d, 'g', 6, 64) + " = " + num(n) + " / " + num(d)
	}
	if parts[0] == nil {
		return "null (no data)"
	}
	if m.Unit == catalog.UnitCount {
		return strconv.FormatFloat(*parts[0], 'f', 0, 64)
	}
	return strconv.FormatFloat(*parts[0], 'f', 2, 64)
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
