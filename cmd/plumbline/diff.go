package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"plumbline/catalog"
	"plumbline/internal/pgstore"
	"plumbline/internal/terminal"
	"plumbline/reports"
)

// previewChanges prints the preview of the change from the catalogue in
// oldDir to cat (check --diff). With dsn it reads the changed metrics'
// old and new values from that database.
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
	p := terminal.Preview{From: oldDir, Changes: catalog.Diff(old, cat)}
	if dsn != "" && len(p.Changes.Changed) > 0 {
		if err := readValues(ctx, dsn, old, cat, &p); err != nil {
			return err
		}
	}
	p.Print(w)
	return nil
}

// readValues reads each changed metric's old and new value on the floor
// over the last complete week, from the one database.
func readValues(ctx context.Context, dsn string, old, cat *catalog.Catalog, p *terminal.Preview) error {
	oldStore, err := pgstore.Open(ctx, dsn, old, nil)
	if err != nil {
		return err
	}
	defer oldStore.Close()
	newStore, err := pgstore.Open(ctx, dsn, cat, nil)
	if err != nil {
		return err
	}
	defer newStore.Close()
	week, values, err := reports.PreviewChanges(ctx, oldStore, newStore, old, cat, p.Changes.Changed, time.Now())
	p.Week, p.Values = &week, values
	return err
}
