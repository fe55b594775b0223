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

const prune = `DELETE FROM plumbline.request_log WHERE ctid = ANY (ARRAY(
	SELECT ctid FROM plumbline.request_log WHERE started_at < now() - make_interval(secs => $1) LIMIT $2))`

// Prune deletes the calls the request log has kept longer than keep, in
// batches, and returns how many it deleted. It needs a role that may delete
// from the log: an administrator's, never plumbline's own login, which can
// only add to it. progress, if set, hears the running count.
func Prune(ctx context.Context, conn *pgx.Conn, keep time.Duration, progress func(deleted int64)) (int64, error) {
	if keep < 24*time.Hour {
		return 0, fmt.Errorf("keep calls at least a day (the limit reads the last minute; audits need far more)")
	}
	var total int64
	for {
		tag, err := conn.Exec(ctx, prune, keep.Seconds(), pruneBatch)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if progress != nil && tag.RowsAffected() > 0 {
			progress(total)
		}
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
