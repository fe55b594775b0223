// Package mutants shows that the tests bite. Each mutant is a patch under
// the module's testdata/mutants that breaks one rule of the engine;
// TestMutantsAreCaught, run by `make mutants` (it is skipped unless
// -mutants is set), applies each to a copy of the module's tracked files
// and requires the tests the mutant names to fail there, as they pass
// without it.
//
// A mutant is a file testdata/mutants/<name>.patch: comment lines, then a
// unified diff against the tree as `git diff` writes it (`git apply`
// skips the comments):
//
//	# catches: go test ./internal/mcpserver -run '^TestInvariantTheFloorIsTheSumOfItsTeams$'
//	# args: -invariants.seed=1
//	# why: the floor counts a team's days even when the team is off the floor.
//	diff --git a/internal/query/query.go b/internal/query/query.go
//	...
//
// One or more "catches" lines each name a go test command (a package and
// -run, words in single quotes as a shell reads them), run with -count=1;
// "args", optional, follows each of them; "why" says in one sentence what
// the mutant breaks (failing that, the comment lines of no key say it).
package mutants
