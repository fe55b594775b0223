package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
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

	// Set when the call ends.
	Outcome  string // "ok", "candidates", or a refusal code
	Duration time.Duration
	Rows     int
}

// Recorder keeps the request log, and with it each caller's limit, which
// is counted in the log. Admit puts a call's row on record before any
// report SQL runs and, in the same step, holds the caller to the limit: it
// returns how long to wait when the caller is over it, or zero. When it
// fails the call is refused. Finish records the outcome; it must neither
// fail the call nor make it wait.
type Recorder interface {
	Admit(ctx context.Context, r *Record) (retryAfter time.Duration, err error)
	Finish(ctx context.Context, r *Record)
}

type callerKey struct{}

// WithCaller returns a context that carries the caller, for the store to
// name the person on the database session.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller a context carries.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Redacted is how free text appears in the request log: never as typed.
type Redacted struct {
	Hash   string `json:"hash,omitempty"`
	Length int    `json:"length"`
}

// loggable rewrites a call's arguments for the log: booleans, numbers,
// dates and the fixed choices of the grammar are kept as given; any other
// string becomes redact(text), and unknown field names are redacted too.
func (e *Engine) loggable(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(bytes.TrimSpace(raw)) == 0 || dec.Decode(&v) != nil {
		v = e.opts.Redact(string(raw))
	}
	out, _ := json.Marshal(e.scrubArg(v, true))
	return out
}

func (e *Engine) scrubArg(v any, top bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		var unknown []any
		for k, x := range v {
			if e.knownField(k) {
				out[k] = e.scrubArg(x, false)
			} else {
				unknown = append(unknown, e.opts.Redact(k))
			}
		}
		if unknown != nil {
			out["_unknown_fields"] = unknown
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = e.scrubArg(x, false)
		}
		return out
	case string:
		if dateRE.MatchString(v) || e.fixedChoice(v) {
			return v
		}
		return e.opts.Redact(v)
	default:
		return v // numbers, booleans, null
	}
}

// knownField reports whether a field name belongs to the grammar.
func (e *Engine) knownField(name string) bool {
	return slices.Contains(e.fields, name)
}

// fixedChoice reports whether s is one of the grammar's enumerated values.
func (e *Engine) fixedChoice(s string) bool {
	return slices.Contains(e.choices, s)
}
