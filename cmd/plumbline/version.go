package main

import (
	"runtime/debug"
)

// commit is the version control revision plumbline was built from, with
// "-modified" when the tree had changes, or "unknown" when the build
// recorded none (go build -buildvcs=false, or a build outside a checkout).
func commit() string {
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
