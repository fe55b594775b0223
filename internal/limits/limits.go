package limits

import (
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"plumbline/reports/ask"
)

// DefaultPerMinute is how many calls a person may make in any minute.
const DefaultPerMinute = 60

// check takes a call ($1) out of the count when its person's ($2) N-th
// ($3) most recent other counted call is less than a minute old, and
// returns how long until that call leaves the minute (no row when there is
// none in it). The calls admitted after it in the same batch ($4) are not
// counted: they are checked after it.
const check = `
WITH nth AS (
    SELECT started_at FROM plumbline.request_log
    WHERE person = $2 AND request_id <> $1 AND request_id <> ALL ($4::text[])
      AND started_at > now() - interval '1 minute'
      AND counted
    ORDER BY started_at DESC
    OFFSET $3 - 1 LIMIT 1
), refused AS (
    UPDATE plumbline.request_log SET counted = false
    WHERE request_id = $1 AND EXISTS (SELECT FROM nth)
)
SELECT extract(epoch FROM started_at + interval '1 minute' - now())::float8 FROM nth`

// Queue queues the checks of a batch of calls, whose rows the log holds,
// against a limit of perMinute calls a minute, one after another, so that
// the batch is decided as its calls would be one at a time; once the batch
// has run, wait[i] is how long the caller of calls[i] must wait, or zero
// when the call is within the limit. It must run as a role that may read
// the log's request_id, person, started_at and counted and update counted
// (the logger).
func Queue(b *pgx.Batch, calls []*ask.Record, perMinute int, wait []time.Duration) {
	ids := make([]string, len(calls))
	for i, r := range calls {
		ids[i] = r.ID
	}
	for i, r := range calls {
		wait[i] = 0
		b.Queue(check, r.ID, r.Caller.Person, perMinute, ids[i+1:]).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var secs float64
				if err := rows.Scan(&secs); err != nil {
					return err
				}
				// At least a second: a client told to wait zero seconds
				// would call again at once.
				wait[i] = time.Duration(math.Max(secs, 1) * float64(time.Second))
			}
			return rows.Err()
		})
	}
}
