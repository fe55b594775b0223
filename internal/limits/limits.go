package limits

import (
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/reports"
)

// DefaultPerMinute is how many calls a person may make in any minute.
const DefaultPerMinute = 60

// check marks a call rate_limited when the person's N-th most recent other
// counted call is less than a minute old, and returns how long until that
// call leaves the minute (null when there is none in it).
const check = `
WITH nth AS (
    SELECT started_at FROM plumbline.request_log
    WHERE person = $2 AND request_id <> $1 AND started_at > now() - interval '1 minute'
      AND outcome IS DISTINCT FROM 'rate_limited'
    ORDER BY started_at DESC
    OFFSET $3 - 1 LIMIT 1
), refused AS (
    UPDATE plumbline.request_log SET outcome = 'rate_limited'
    WHERE request_id = $1 AND EXISTS (SELECT FROM nth)
    RETURNING request_id
)
SELECT (SELECT extract(epoch FROM started_at + interval '1 minute' - now())::float8 FROM nth),
       EXISTS (SELECT FROM refused)`

// Queue queues the check of a call, whose row the log holds, against a
// limit of perMinute calls a minute; once the batch has run, *wait is how
// long the caller must wait, or zero when the call is within the limit. It
// must run as a role that may read the log's person, started_at and
// outcome and update its outcome (the logger).
func Queue(b *pgx.Batch, r *reports.Record, perMinute int, wait *time.Duration) {
	b.Queue(check, r.ID, r.Caller.Person, perMinute).QueryRow(func(row pgx.Row) error {
		var secs *float64
		var refused bool
		if err := row.Scan(&secs, &refused); err != nil {
			return err
		}
		*wait = 0
		if refused && secs != nil {
			// At least a second: a client told to wait zero seconds would
			// call again at once.
			*wait = time.Duration(math.Max(*secs, 1) * float64(time.Second))
		}
		return nil
	})
}
