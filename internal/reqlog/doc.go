// Package reqlog keeps plumbline's request log, plumbline.request_log: it
// implements reports.Recorder over the store's pool.
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
// queues them, and a writer updates them in batches, committed without
// waiting for the disk, and all that is queued on Close. A crash may leave
// the outcome of its last calls unknown (NULL), never a call unrecorded.
// The update changes no column an index reads, and the log's pages keep
// room for it, so PostgreSQL makes it on the row's own page (a heap-only
// update): it adds no index entry and leaves vacuum nothing to clear from
// the indexes.
//
// Everything runs as the logger role, which may insert who/what and update
// the outcome columns (and, for the limit, whether a call counts) and
// nothing else: it can neither delete a row nor rewrite who, what or when.
// Arguments arrive in loggable form (fixed choices as given, free text
// redacted); Redactor makes the redaction a keyed hash. No database error
// text is ever written to the log.
package reqlog
