// Package reqlog keeps plumbline's request log, plumbline.request_log: it
// implements ask.Recorder over the store's pool.
//
// Admit puts a call on record before any report SQL runs: who called
// (person and client), which tool and with which arguments; the database
// stamps when. In the same round trip it holds the caller to the per-minute
// limit counted in the log (package limits) and reads any Check the call's
// context carries (the bearer token's row, over HTTP). If the row cannot be
// written the engine refuses the call.
//
// The row is committed before the report runs, and on disk before the
// answer leaves: the commit does not wait for the disk, but the admission's
// batch ends with a transaction that does, and the engine waits for that
// flush (Record.Durable) once the report is done, so that the report and
// the flush overlap. A call that was answered is on record even if the
// database crashes a moment later. Calls that arrive while earlier
// admissions are on their way to the database share the next round trip,
// its commit and its flush (a group commit), their rows written by one
// statement and their tokens read by one: under load the cost of putting a
// call on record is shared, and a call that comes alone goes at once.
//
// Outcomes (code, duration, row count) are not on the request path: Finish
// queues them, and a writer inserts them in batches into a table of their
// own, plumbline.request_outcome, committed without waiting for the disk,
// and all that is queued on Close. A crash may leave the outcome of its
// last calls unknown, never a call unrecorded. The view plumbline.calls
// shows each call with its outcome.
//
// Neither table's rows are updated (but for the limit taking a call it
// refuses out of its count): both grow only at their end, so writing a
// call touches the last pages of each, which the cache holds, and vacuum
// leaves no space behind for new rows to scatter into.
//
// Everything runs as the logger role, which may insert who/what, insert
// an outcome once and, for the limit, mark a call uncounted, and nothing
// else: it can neither delete a row nor rewrite who, what, when or how it
// went.
// Arguments arrive in loggable form (fixed choices as given, free text
// redacted); Redactor makes the redaction a keyed hash. No database error
// text is ever written to the log.
package reqlog
