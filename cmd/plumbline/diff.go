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
	"plumbline/internal/pgstore"
	"plumbline/internal/terminal"
	"plumbline/reports"
)

// This file previews a catalogue change for a reviewer (check --diff): for
// every metric whose definition or formula changed, the old and new text
// and formula side by side and, with a database, the old and new value over
// the last complete week for the floor, so the change's effect on the
// numbers is seen before it ships.

// values are the figures of a change's metric under the old and the new
// catalogue.
type values struct{ Old, New string }

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
	d := catalog.Diff(old, cat)
	changed, added, removed := d.Changed, d.Added, d.Removed
	if d.Empty() {
		fmt.Fprintf(w, "No metric was added, removed or redefined since %s.\n", oldDir)
		return nil
	}
	var week reports.Period
	vals := make([]values, len(changed))
	if dsn != "" && len(changed) > 0 {
		if week, err = previewValues(ctx, dsn, old, cat, changed, vals); err != nil {
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
	for i, c := range changed {
		fmt.Fprintf(w, "\n%s (%s): %s\n", c.ID, c.New.Label, strings.Join(c.What(), ", "))
		terminal.SideBySide(w, "", "old", "new")
		terminal.SideBySide(w, "definition", c.Old.Definition(), c.New.Definition())
		terminal.SideBySide(w, "formula", c.Old.Formula(), c.New.Formula())
		if c.Old.Unit != c.New.Unit {
			terminal.SideBySide(w, "unit", c.Old.Unit, c.New.Unit)
		}
		if dsn != "" {
			terminal.SideBySide(w, "last week", vals[i].Old, vals[i].New)
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

// previewValues fills in each change's old and new value on the floor
// over the last complete week, from the one database, and returns the week.
func previewValues(ctx context.Context, dsn string, old, cat *catalog.Catalog, changed []catalog.Change, vals []values) (reports.Period, error) {
	oldStore, err := pgstore.Open(ctx, dsn, old, nil)
	if err != nil {
		return reports.Period{}, err
	}
	defer oldStore.Close()
	newStore, err := pgstore.Open(ctx, dsn, cat, nil)
	if err != nil {
		return reports.Period{}, err
	}
	defer newStore.Close()
	week, previews, err := reports.PreviewChanges(ctx, oldStore, newStore, old, cat, changed, time.Now())
	if err != nil {
		return week, err
	}
	for i, p := range previews {
		vals[i] = values{Old: formatValue(changed[i].Old, p.Old), New: formatValue(changed[i].New, p.New)}
	}
	return week, nil
}

// formatValue writes a figure as plumbline answers it (reports.Figure)
// and, for a ratio, beside its summed parts; nulls as no data.
func formatValue(m *catalog.Metric, parts []*float64) string {
	num := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	var s string
	switch v := reports.Figure(m, parts).(type) {
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
