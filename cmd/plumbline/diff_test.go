package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// Expected figures are plain SQL over the raw tables: an agent-day counts
// for the team the agent was on that day, and only while that team was on
// the floor.

// check --diff shows, for each redefined metric, old and new text and
// formula side by side and the value each gives over the last complete
// week, both computed here again with plain SQL.
func TestCheckDiffPreview(t *testing.T) {
	t.Chdir("../..")
	code, out, errOut := runCLI(t, "check", "--diff", "testdata/diff/old", "testdata/diff/new")
	if code != 0 {
		t.Fatalf("check --diff: exit %d\n%s%s", code, out, errOut)
	}
	talk := block(t, out, "talk_share (Talk share): definition changed, formula changed")
	for _, want := range [][2]string{
		{"formula     sum(talk_hours) / sum(logged_hours)", "sum(talk_hours) / sum(available_hours)"},
		{"definition  Share of logged-in time spent talking with", "Share of the time an agent was available for"},
	} {
		if left, right := columns(t, talk, want[0][:12]); !strings.HasPrefix(left, want[0][12:]) || !strings.HasPrefix(right, want[1]) {
			t.Errorf("talk_share %s: old %q, new %q; want %q and %q", want[0][:10], left, right, want[0][12:], want[1])
		}
	}
	closeRate := block(t, out, "close_rate (Close rate): definition changed")
	if left, right := columns(t, closeRate, "formula"); left != right {
		t.Errorf("close_rate's formula did not change, yet reads %q then %q", left, right)
	}
	if strings.Contains(out, "submitted_sales (") {
		t.Error("an unchanged metric is listed")
	}
	for _, want := range []string{"Added metrics (1):\n  conversations (Conversations): sum(submitted + lost)",
		"Removed metrics (1):\n  lost (Conversations lost): sum(lost)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the preview lacks %q", want)
		}
	}

	// With a database: the floor's values over the last complete week. The
	// demo floor runs to Tuesday 17 November 2026, so that is the week of
	// Monday 9 November.
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	var complete bool
	if err := conn.QueryRow(ctx, `SELECT (SELECT max(day) FROM metrics.agent_sales_daily) = '2026-11-17'
		AND (SELECT max(day) FROM metrics.agent_time_daily) = '2026-11-17'`).Scan(&complete); err != nil || !complete {
		t.Fatalf("the demo floor does not run to 2026-11-17 (%v); the expected week below is wrong", err)
	}
	ratio := func(num, den, table string) string {
		var n, d float64
		err := conn.QueryRow(ctx, `SELECT sum(`+num+`)::float8, sum(`+den+`)::float8 FROM `+table+` s
			WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.OnFloor).Scan(&n, &d)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatFloat(n/d, 'g', 6, 64) + " = " + strconv.FormatFloat(n, 'f', -1, 64) + " / " + strconv.FormatFloat(d, 'f', -1, 64)
	}
	oldTalk := ratio("talk_hours", "logged_hours", "metrics.agent_time_daily")
	newTalk := ratio("talk_hours", "available_hours", "metrics.agent_time_daily")
	closing := ratio("submitted", "submitted + lost", "metrics.agent_sales_daily")
	if oldTalk == newTalk {
		t.Fatalf("talk share over logged and over available hours agree (%s); the test proves nothing", oldTalk)
	}

	code, out, errOut = runCLI(t, "check", "--diff", "testdata/diff/old", "--db", db.DSN, "testdata/diff/new")
	if code != 0 {
		t.Fatalf("check --diff --db: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "over the last complete week, 2026-11-09 to 2026-11-15") {
		t.Errorf("the preview does not name the week 2026-11-09 to 2026-11-15:\n%s", out)
	}
	left, right := columns(t, block(t, out, "talk_share (Talk share)"), "last week")
	if left != oldTalk || right != newTalk {
		t.Errorf("talk share last week: old %q, new %q; want %q and %q", left, right, oldTalk, newTalk)
	}
	left, right = columns(t, block(t, out, "close_rate (Close rate)"), "last week")
	if left != closing || right != closing {
		t.Errorf("close rate last week: old %q, new %q; want %q on both sides", left, right, closing)
	}

	if code, _, errOut := runCLI(t, "check", "--diff", "testdata/check/broken", "testdata/diff/new"); code != 1 ||
		!strings.Contains(errOut, "the old catalogue in testdata/check/broken (--diff) has") {
		t.Errorf("a broken old catalogue: exit %d, %s", code, errOut)
	}
	code, out, _ = runCLI(t, "check", "--diff", "testdata/diff/new", "testdata/diff/new")
	if code != 0 || !strings.Contains(out, "No metric was added, removed or redefined") {
		t.Errorf("a catalogue against itself: exit %d\n%s", code, out)
	}
}

// block returns the lines of the preview's section that opens with head.
func block(t *testing.T, out, head string) []string {
	t.Helper()
	for _, b := range strings.Split(out, "\n\n") {
		if strings.HasPrefix(b, head) {
			return strings.Split(b, "\n")
		}
	}
	t.Fatalf("no section %q in:\n%s", head, out)
	return nil
}

// columns returns the old and new text of the row labelled label.
func columns(t *testing.T, lines []string, label string) (string, string) {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "  "+label) {
			left, right, ok := strings.Cut(strings.TrimPrefix(l, "  "+label), "│")
			if ok {
				return strings.TrimSpace(left), strings.TrimSpace(right)
			}
		}
	}
	t.Fatalf("no row %q in:\n%s", label, strings.Join(lines, "\n"))
	return "", ""
}
