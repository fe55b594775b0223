package reports_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"plumbline/reports"
	"plumbline/reports/ask"
)

// faultyStore is a memStore whose Run fails with err.
type faultyStore struct {
	*memStore
	err error
}

func (s faultyStore) Run(context.Context, ...*ask.Plan) ([]*ask.Result, error) {
	return nil, s.err
}

// A store's fault reaches the caller as one of the few codes they can act
// on, and its detail never does.
func TestStoreFaultsAreRefusedByCode(t *testing.T) {
	cat, rows, now := demo(t), exampleRows, time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	secret := "connection to 10.1.2.3 failed: password authentication failed for user floor_reader"
	for _, c := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("acquire: %w", ask.ErrBusy), ask.CodeBusy},
		{fmt.Errorf("%s: %w", secret, ask.ErrTimeout), ask.CodeTimeout},
		{errors.New(secret), ask.CodeUnavailable},
	} {
		t.Run(c.code, func(t *testing.T) {
			st := faultyStore{&memStore{cat: cat, rows: rows}, c.err}
			e := reports.New(cat, st, &reports.Options{Now: func() time.Time { return now }, Logger: quietLogger()})
			a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, "sales",
				json.RawMessage(`{"who": {"floor": true}, "period": {"named": "yesterday"}}`))
			if a.Refusal == nil || a.Refusal.Code != c.code {
				t.Fatalf("refusal %+v, want code %s", a.Refusal, c.code)
			}
			b, _ := json.Marshal(a.Body)
			if strings.Contains(string(b), "10.1.2.3") || strings.Contains(string(b), "password") {
				t.Errorf("the answer carries the store's error: %s", b)
			}
		})
	}
}

// recorder is a Recorder that keeps every record and admits calls after a
// wait, or fails.
type recorder struct {
	wait     time.Duration
	err      error
	finished []ask.Record
}

func (r *recorder) Admit(context.Context, *ask.Record) (time.Duration, error) {
	return r.wait, r.err
}
func (r *recorder) Finish(_ context.Context, rec *ask.Record) {
	r.finished = append(r.finished, *rec)
}

// Every call is put on record before it runs: one that cannot be is
// refused, one over the caller's limit is told how long to wait, and each
// call's outcome is recorded with its id.
func TestCallsAreRecordedAndLimited(t *testing.T) {
	cat := demo(t)
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	args := json.RawMessage(`{"who": {"team": "hawks"}, "period": {"start": "2026-11-16", "end": "2026-11-17"}, "group_by": "agent"}`)
	for _, c := range []struct {
		name     string
		rec      *recorder
		code     string // the refusal's code; empty for an answer
		outcome  string // what Finish records; empty when the call is not finished on record
		contains string // in the refusal's rule
	}{
		{"admitted", &recorder{}, "", "ok", ""},
		{"over the limit", &recorder{wait: 1500 * time.Millisecond}, ask.CodeRateLimited, ask.CodeRateLimited, "try again in 2 seconds"},
		{"the log cannot be written", &recorder{err: errors.New("disk full")}, ask.CodeUnavailable, "", "could not be put on record"},
		{"the token no longer holds", &recorder{err: fmt.Errorf("lookup: %w", ask.ErrUnauthenticated)}, ask.CodeUnauthenticated, ask.CodeUnauthenticated, "sign in again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := reports.New(cat, &memStore{cat: cat, rows: exampleRows}, &reports.Options{Now: func() time.Time { return now },
				Logger: quietLogger(), Recorder: c.rec})
			a := e.Call(context.Background(), ask.Caller{Person: "p-dana", Client: "desk"}, "sales", args)
			switch {
			case c.code == "" && a.Refusal != nil:
				t.Fatalf("refused: %+v", a.Refusal)
			case c.code != "" && (a.Refusal == nil || a.Refusal.Code != c.code || !strings.Contains(a.Refusal.Rule, c.contains)):
				t.Fatalf("refusal %+v, want %s saying %q", a.Refusal, c.code, c.contains)
			}
			if c.outcome == "" {
				if len(c.rec.finished) != 0 {
					t.Errorf("a call never admitted was finished on record: %+v", c.rec.finished)
				}
				return
			}
			if len(c.rec.finished) != 1 {
				t.Fatalf("%d records finished, want 1", len(c.rec.finished))
			}
			r := c.rec.finished[0]
			if r.ID != a.RequestID || r.Outcome != c.outcome || r.Tool != "sales" || r.Caller.Person != "p-dana" || r.Rows != a.Rows {
				t.Errorf("recorded %+v for answer %s with %d rows, want outcome %s", r, a.RequestID, a.Rows, c.outcome)
			}
		})
	}
}

// A token that allows only some tools is refused any other, by name.
func TestTokensAllowOnlyTheirTools(t *testing.T) {
	cat := demo(t)
	e := newMemEngine(cat, exampleRows, time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC))
	a := e.Call(context.Background(), ask.Caller{Person: "service:nightly", Tools: []string{"hours"}}, "sales",
		json.RawMessage(`{"who": {"floor": true}, "period": {"named": "yesterday"}}`))
	if a.Refusal == nil || a.Refusal.Code != ask.CodeForbidden || a.Refusal.Argument != "tool" ||
		len(a.Refusal.Choices) != 1 || a.Refusal.Choices[0] != "hours" {
		t.Errorf("refusal %+v, want forbidden naming the tool the token allows", a.Refusal)
	}
}
