package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"plumbline/catalog"
	"plumbline/internal/contract"
	"plumbline/internal/snapshot"
	"plumbline/internal/terminal"
	"plumbline/reports"
)

func writeContract(_ context.Context, args []string, s *streams) error {
	f := newFlags("contract", helpText("contract"), s)
	out := f.string("o", "", "`file` to write the snapshot to (default: standard output)")
	rest, err := f.parseInterspersed(args)
	if err != nil {
		return err
	}
	cat, _, err := catalogArg(rest)
	if err != nil {
		return err
	}
	snap, err := snapshotOf(cat)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = s.out.Write(snap.JSON())
		return err
	}
	return os.WriteFile(*out, snap.JSON(), 0o644)
}

// snapshotOf is the contract a server over cat offers.
func snapshotOf(cat *catalog.Catalog) (*snapshot.Snapshot, error) {
	return snapshot.Of(contract.Tools(reports.New(cat, nil, nil)), contract.Instructions())
}

// checkContract compares cat's contract with the snapshot in file, prints
// breaking changes apart from additive ones, and fails on breaking ones.
func checkContract(cat *catalog.Catalog, file, format string, w io.Writer) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%w: --contract: %v; write one with: plumbline contract DIR -o FILE", errUsage, err)
	}
	old, err := snapshot.Parse(data)
	if err != nil {
		return fmt.Errorf("--contract %s: %w", file, err)
	}
	now, err := snapshotOf(cat)
	if err != nil {
		return err
	}
	changes := snapshot.Compare(old, now)
	terminal.Check{W: w, GitHub: format == "github"}.Contract(file, changes)
	for _, c := range changes {
		if c.Breaking {
			return exitError{1}
		}
	}
	return nil
}
