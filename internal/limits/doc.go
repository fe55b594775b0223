// Package limits holds each person to a number of calls a minute, counted
// in the request log. Every replica writes to the log before it decides, so
// the limit holds across any number of replicas sharing one database, with
// no table of its own to write.
//
// The check is one statement a call that package reqlog queues into an
// admission, in a transaction of its own right after the one that commits
// the calls' rows, in the same round trip; the calls admitted together are
// checked one after another in that transaction, as if they had come one
// at a time. For each call it reads the person's N-th most recent other
// counted call in the last minute through the index on (person,
// started_at) of counted calls: at most N index entries and their rows,
// however long the log is. If that call is inside the minute, the person
// has made N calls in it already: the statement takes this call out of
// the count (its outcome, rate_limited, is written when it ends, as every
// call's is), and the wait is until that call leaves the minute.
//
// Two replicas checking at the same moment may both see each other's calls
// and both refuse; they can never both miss them, as each call's row is
// committed before its check runs. Calls refused for the limit do not count
// against it.
package limits
