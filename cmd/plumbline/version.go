package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"plumbline/internal/mcpserver"
)

func version(_ context.Context, args []string, s *streams) error {
	f := newFlags("version", helpText("version"), s)
	dir := f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)")
	if _, err := f.parse(args); err != nil {
		return err
	}
	cat, err := loadCatalog(*dir)
	if err != nil {
		return fmt.Errorf("load catalogue:\n%w", err)
	}
	which := "the embedded demo catalogue"
	if *dir != "" {
		which = *dir
	}
	fmt.Fprintf(s.out, "plumbline %s\ncommit: %s\ncatalogue: %s (%s)\ngo: %s\n", mcpserver.Version, commit(), cat.Version(), which, runtime.Version())
	return nil
}

// stampedCommit is the commit make build and make dist stamp with
// -ldflags -X, which Go's own record (below) lacks in a git worktree.
var stampedCommit string

// commit is the version control revision plumbline was built from, with
// "-modified" when the tree had changes, or "unknown" when the build
// recorded none (go build -buildvcs=false, or a build outside a checkout).
func commit() string {
	if stampedCommit != "" {
		return stampedCommit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "-modified"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev + modified
}
