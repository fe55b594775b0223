package ask

import (
	"context"
	"encoding/json"
	"time"
)

// This file holds the seams through which a call is put on record and held
// to its limits: the engine calls them, internal packages implement them.

// Record is one call in the request log.
type Record struct {
	ID        string
	Caller    Caller
	Tool      string
	Arguments json.RawMessage // loggable form: fixed choices as given, free text redacted
	Started   time.Time

	// Durable, when Admit sets it, waits until the row Admit committed is
	// on disk, and says whether it failed; until it returns, the call's
	// answer does not leave.
	Durable func() error

	// Set when the call ends.
	Outcome  string // "ok", "candidates", or a refusal code
	Duration time.Duration
	Rows     int
	// Reach is what the caller could see on this call (Reach.String), or
	// empty if the call was refused before it was resolved.
	Reach string
}

// Recorder keeps the request log, and with it each caller's limit, which
// is counted in the log. Admit puts a call's row on record, committed,
// before any report SQL runs and, in the same step, holds the caller to the
// limit: it returns how long to wait when the caller is over it, or zero.
// It may return before the row is on disk, and then sets r.Durable, which
// the answer waits for. When either fails the call is refused. Finish
// records the outcome; it must neither fail the call nor make it wait.
type Recorder interface {
	Admit(ctx context.Context, r *Record) (retryAfter time.Duration, err error)
	Finish(ctx context.Context, r *Record)
}

// Redacted is how free text appears in the request log: never as typed.
type Redacted struct {
	Hash   string `json:"hash,omitempty"`
	Length int    `json:"length"`
}
