package reqlog

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultRetention is how long the request log keeps a call by default: a
// little over a year, so that a year's audit can always be answered.
const DefaultRetention = 400 * 24 * time.Hour

// pruneBatch is how many rows one statement of Prune deletes, so that each
// transaction stays short and the table stays usable while it runs.
const pruneBatch = 10_000

// prune deletes up to $2 calls older than $1 seconds, with their outcomes,
// and returns how many calls it deleted.
const prune = `WITH gone AS (
	DELETE FROM plumbline.request_log WHERE ctid = ANY (ARRAY(
		SELECT ctid FROM plumbline.request_log WHERE started_at < now() - make_interval(secs => $1) LIMIT $2))
	RETURNING request_id
), outcomes AS (
	DELETE FROM plumbline.request_outcome o USING gone WHERE o.request_id = gone.request_id
)
SELECT count(*) FROM gone`

// Prune deletes the calls the request log has kept longer than keep, and
// their outcomes, in batches, and returns how many calls it deleted. It
// needs a role that may delete from the log: an administrator's, never
// plumbline's own login, which can only add to it. progress, if set, hears
// the running count.
func Prune(ctx context.Context, conn *pgx.Conn, keep time.Duration, progress func(deleted int64)) (int64, error) {
	if keep < 24*time.Hour {
		return 0, fmt.Errorf("keep calls at least a day (the limit reads the last minute; audits need far more)")
	}
	var total int64
	for {
		var deleted int64
		if err := conn.QueryRow(ctx, prune, keep.Seconds(), pruneBatch).Scan(&deleted); err != nil {
			return total, err
		}
		total += deleted
		if progress != nil && deleted > 0 {
			progress(total)
		}
		if deleted < pruneBatch {
			return total, nil
		}
	}
}
