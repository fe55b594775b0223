package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"plumbline/internal/bench"
)

// --soak against a real server process, for a few rows of a second:
// the request log starts with the rows asked for and grows by the calls
// made, every answer is what it must be, the server's memory, goroutines,
// threads and connections are read every row, and the verdict printed and
// written is the one its rows give, and decides the exit code. Choices that
// make no soak are usage errors.
func TestSoak(t *testing.T) {
	for _, bad := range [][]string{{"--baseline", "other"}, {"--bytes"}, {"--soak-clients", "0"}, {"--soak-rate", "-1"}, {"--soak-interval", "0s"}} {
		if code, _, stderr := runBench(t, append([]string{"--soak", "1s"}, bad...)...); code != 2 || !strings.Contains(stderr, "--soak") {
			t.Errorf("--soak %s: exit %d, %s", bad, code, stderr)
		}
	}
	bin, err := buildServer()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "soak.json")
	code, stdout, stderr := runBench(t, "--soak", "4s", "--soak-interval", "1s", "--soak-clients", "8", "--soak-rate", "40",
		"--people", "10", "--soak-log-rows", "5000", "--bin", bin, "--json", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d, no JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	var res struct {
		LogRows int `json:"log_rows_seeded"`
		bench.SoakResult
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || res.LogRows != 5000 || res.Clients != 8 || res.Rate != 40 {
		t.Fatalf("%d rows, %d log rows seeded, %d clients at %d/s\n%s", len(res.Rows), res.LogRows, res.Clients, res.Rate, stdout)
	}
	line := regexp.MustCompile(`(?m)^ +(\d+) +(\d+) +(\d+) +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +(\d+) +(\d+) +(\d+) +(\d+) +[\d.]+$`)
	printed := line.FindAllStringSubmatch(stdout, -1)
	if len(printed) != 4 || !strings.Contains(stdout, bench.SoakHeader) {
		t.Fatalf("%d rows printed under the header, want 4:\n%s", len(printed), stdout)
	}
	calls, seconds := 0, 0.0
	for i, r := range res.Rows {
		calls += r.Calls
		if r.PerSecond > 0 {
			seconds += float64(r.Calls) / r.PerSecond // the row's own span
		}
		if r.Minute != i+1 || r.Calls == 0 || r.Errors != 0 || r.P50 <= 0 || r.P99 < r.P50 || r.PerSecond <= 0 ||
			r.RSSKiB <= 0 || r.Goroutines <= 0 || r.HeapBytes <= 0 || r.Threads <= 0 || r.Connections < 1 {
			t.Errorf("row %d: %+v", i+1, r)
		}
		if strconv.Itoa(r.Calls) != printed[i][2] || strconv.FormatInt(r.LogRows, 10) != printed[i][7] || strconv.Itoa(r.Goroutines) != printed[i][4] {
			t.Errorf("row %d printed %q, written %+v", i+1, printed[i][0], r)
		}
	}
	// The pacing never runs ahead of 40 calls a second: the rows, over the
	// time they span as the soak measured it, hold no more calls than
	// were due by their end. How near the rate the server kept is a figure.
	t.Logf("%d calls in the rows' %.2f s at 40 a second", calls, seconds)
	if due := int(math.Ceil(40*seconds)) + 1; calls > due {
		t.Errorf("%d calls in the rows' %.2f s, more than the %d due at 40 a second", calls, seconds, due)
	}
	// The log's running estimate sees the calls (and the warm-up's) on top
	// of the seed.
	if first, last := res.Rows[0].LogRows, res.Rows[3].LogRows; first < 5000 || last <= first {
		t.Errorf("the log held %d rows after the first second and %d after the last", first, last)
	}
	want := bench.Judge(res.Rows, 0)
	if res.Verdict.Pass != want.Pass || strings.Join(res.Verdict.Failed, ";") != strings.Join(want.Failed, ";") || want.Window != 2 {
		t.Errorf("verdict written %+v, the rows give %+v", res.Verdict, want)
	}
	verdict := "verdict: PASS"
	if !want.Pass {
		verdict = "verdict: FAIL: " + strings.Join(want.Failed, "; ")
	}
	if !strings.Contains(stdout, verdict) || !strings.Contains(stdout, "verdict: rows 1-2 against rows 3-4") || code != map[bool]int{true: 0, false: 1}[want.Pass] {
		t.Errorf("exit %d; want %q printed:\n%s\n%s", code, verdict, stdout, stderr)
	}
}
