package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoContract is the committed snapshot of the demo catalogue's contract.
const demoContract = "testdata/contract/demo.json"

// The committed snapshot is the contract the demo catalogue offers now: a
// change to the tools shows up in review as a change to this file.
func TestContractSnapshotIsCurrent(t *testing.T) {
	t.Chdir("../..")
	code, out, errOut := runCLI(t, "contract", "catalog/demo")
	if code != 0 {
		t.Fatalf("contract: exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile(demoContract)
	if err != nil || out != string(want) {
		t.Fatalf("%s is stale (or missing: %v): the tools' contract changed. "+
			"Regenerate it with `make contract` and commit it with the change", demoContract, err)
	}
	code, out, _ = runCLI(t, "check", "--contract", demoContract, "catalog/demo")
	if code != 0 || !strings.Contains(out, "contract: no changes") {
		t.Errorf("check --contract against the current snapshot: exit %d\n%s", code, out)
	}
}

// overlay builds a catalogue from testdata/contract/base with a change's
// files put over it.
func overlay(t *testing.T, change string) string {
	t.Helper()
	dir := t.TempDir()
	for _, from := range []string{"testdata/contract/base", filepath.Join("testdata/contract/changes", change)} {
		files, _ := filepath.Glob(filepath.Join(from, "*.yaml"))
		if len(files) == 0 {
			t.Fatalf("no catalogue files in %s", from)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// check --contract tells catalogue changes that break cached clients from
// those that only add, and fails only on the first.
func TestCheckContract(t *testing.T) {
	t.Chdir("../..")
	snapshot := filepath.Join(t.TempDir(), "contract.json")
	if code, _, errOut := runCLI(t, "contract", "testdata/contract/base", "-o", snapshot); code != 0 {
		t.Fatalf("contract -o: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		change   string
		breaking []string // lines of the breaking section
		additive []string // lines of the additive section
	}{
		{
			change: "removed_metric",
			breaking: []string{
				`league input.metrics[]: no longer accepts "close_rate" (a narrowed enum: calls that send it are refused)`,
				`league input.sort.metric: no longer accepts "close_rate" (a narrowed enum: calls that send it are refused)`,
				`metric_definitions input.metrics[]: no longer accepts "close_rate" (a narrowed enum: calls that send it are refused)`,
				`sales input.metrics: maxItems narrowed from 2 to 1`,
				`sales input.metrics[]: no longer accepts "close_rate" (a narrowed enum: calls that send it are refused)`,
				`sales input.sort.metric: no longer accepts "close_rate" (a narrowed enum: calls that send it are refused)`,
			},
			additive: []string{"league input.metrics: the description changed", "sales: the description changed", "sales input.metrics: the description changed"},
		},
		{
			change:   "renamed_tool",
			breaking: []string{"sales: the tool was removed or renamed; clients that cached it will call a tool that no longer exists"},
			additive: []string{"selling: a new tool", "team_day: the description changed", "team_weeks: the description changed"},
		},
		{
			change: "narrowed_group_by",
			breaking: []string{
				`sales input.group_by: no longer accepts "agent" (a narrowed enum: calls that send it are refused)`,
				`sales input.group_by: no longer accepts "day" (a narrowed enum: calls that send it are refused)`,
			},
		},
		{
			change: "added_metric",
			additive: []string{
				"league input.metrics: the description changed",
				`league input.metrics[]: now also accepts "lost_conversations"`,
				`league input.sort.metric: now also accepts "lost_conversations"`,
				`metric_definitions input.metrics[]: now also accepts "lost_conversations"`,
				"sales input.metrics: the description changed",
				"sales input.metrics: maxItems widened from 2 to 3",
				`sales input.metrics[]: now also accepts "lost_conversations"`,
				`sales input.sort.metric: now also accepts "lost_conversations"`,
			},
		},
		{change: "reworded", additive: []string{"sales: the description changed"}},
	} {
		t.Run(tc.change, func(t *testing.T) {
			dir := overlay(t, tc.change)
			code, out, errOut := runCLI(t, "check", "--contract", snapshot, dir)
			if want := map[bool]int{true: 1, false: 0}[len(tc.breaking) > 0]; code != want {
				t.Errorf("exit %d, want %d\n%s%s", code, want, out, errOut)
			}
			if got := section(out, "Breaking contract changes"); strings.Join(got, "\n") != strings.Join(tc.breaking, "\n") {
				t.Errorf("breaking changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.breaking, "\n"))
			}
			if got := section(out, "Additive contract changes"); strings.Join(got, "\n") != strings.Join(tc.additive, "\n") {
				t.Errorf("additive changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.additive, "\n"))
			}

			// The same as GitHub annotations: errors for breaking changes,
			// notices for additive ones, on the snapshot file.
			code, out, _ = runCLI(t, "check", "--format", "github", "--contract", snapshot, dir)
			annotation := regexp.MustCompile(`^::(error|notice) file=[^,:]+,title=(breaking|additive) contract change::[^\n]+$`)
			var errors, notices int
			for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
				m := annotation.FindStringSubmatch(line)
				switch {
				case m == nil:
					t.Errorf("not a GitHub annotation: %s", line)
				case m[1] == "error" && m[2] == "breaking":
					errors++
				case m[1] == "notice" && m[2] == "additive":
					notices++
				default:
					t.Errorf("a %s annotation for a %s change: %s", m[1], m[2], line)
				}
			}
			if errors != len(tc.breaking) || notices != len(tc.additive) || code != map[bool]int{true: 1, false: 0}[errors > 0] {
				t.Errorf("github format: exit %d, %d errors and %d notices; want %d and %d\n%s", code, errors, notices, len(tc.breaking), len(tc.additive), out)
			}
		})
	}
	if code, _, errOut := runCLI(t, "check", "--contract", "testdata/contract/absent.json", "testdata/contract/base"); code != 2 ||
		!strings.Contains(errOut, "plumbline contract DIR -o FILE") {
		t.Errorf("a missing snapshot: exit %d, %s", code, errOut)
	}
}

// section returns the indented lines under a heading that starts with title.
func section(out, title string) []string {
	var lines []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, title):
			in = true
		case in && strings.HasPrefix(line, "  "):
			lines = append(lines, strings.TrimPrefix(line, "  "))
		default:
			in = false
		}
	}
	return lines
}
