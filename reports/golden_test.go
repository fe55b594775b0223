package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// Golden answers: each folder under testdata/golden is one call to the
// engine over an in-memory store, answered as of a fixed moment, with the
// answer it must give. A folder holds
//
//	request.json  the call: {"tool": ..., "arguments": {...}}
//	now.txt       the moment the call is answered at (RFC 3339)
//	rows.json     the store's rows, by relation (see tables)
//	answer.json   the answer: figure rows, warning kinds and the body
//
// over the demo catalogue. The request id, which is random, is written as
// REQUEST_ID; nothing else varies. `go test ./reports -update` rewrites
// answer.json; review the change as a change of the response contract.
// internal/reference checks every answer.json against its independent
// evaluator (TestGoldenAnswersAgreeWithTheReference), so a golden file is
// never its own oracle.

var update = flag.Bool("update", false, "rewrite testdata/golden/*/answer.json from the engine's answers")

// goldenAnswer is what answer.json holds.
type goldenAnswer struct {
	Rows     int             `json:"rows"`
	Warnings []string        `json:"warnings"`
	Body     json.RawMessage `json:"body"`
}

// goldenCall is what request.json holds.
type goldenCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// demo is the demo catalogue.
func demo(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// newMemEngine is an engine over tables, answering as of now.
func newMemEngine(cat *catalog.Catalog, rows tables, now time.Time) *reports.Engine {
	return reports.New(cat, &memStore{cat: cat, rows: rows}, &reports.Options{Now: func() time.Time { return now }, Logger: quietLogger()})
}

// quietLogger drops the engine's logs.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// answerJSON writes an answer as answer.json holds it.
func answerJSON(t testing.TB, a *reports.Answer) []byte {
	t.Helper()
	body, err := json.Marshal(a.Body)
	if err != nil {
		t.Fatal(err)
	}
	body = bytes.ReplaceAll(body, []byte(`"`+a.RequestID+`"`), []byte(`"REQUEST_ID"`))
	warnings := a.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	out, err := json.MarshalIndent(goldenAnswer{Rows: a.Rows, Warnings: warnings, Body: body}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestGoldenAnswers(t *testing.T) {
	cat := demo(t)
	dirs, err := filepath.Glob("testdata/golden/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			call, now, rows := readCase(t, dir)
			got := answerJSON(t, newMemEngine(cat, rows, now).Call(context.Background(), ask.Caller{Person: "golden"}, call.Tool, call.Arguments))
			path := filepath.Join(dir, "answer.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the answer differs from %s (-want +got):\n%s", path, lineDiff(string(want), string(got)))
			}
		})
	}
}

// readCase reads a golden case's inputs.
func readCase(t testing.TB, dir string) (goldenCall, time.Time, tables) {
	t.Helper()
	var call goldenCall
	b, err := os.ReadFile(filepath.Join(dir, "request.json"))
	if err == nil {
		err = json.Unmarshal(b, &call)
	}
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "now.txt"))
	if err != nil {
		t.Fatal(err)
	}
	now, err := time.Parse(time.RFC3339, strings.TrimSpace(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readTables(filepath.Join(dir, "rows.json"))
	if err != nil {
		t.Fatal(err)
	}
	return call, now, rows
}

// lineDiff shows the lines of two texts from the first that differs, a few
// of each.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for k := i; k < min(i+8, len(w)); k++ {
		b.WriteString("-" + w[k] + "\n")
	}
	for k := i; k < min(i+8, len(g)); k++ {
		b.WriteString("+" + g[k] + "\n")
	}
	return "from line " + strconv.Itoa(i+1) + ":\n" + b.String()
}
