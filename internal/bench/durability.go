package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Durability is what committing a call's request-log row costs: the
// median time of one insert committed synchronously (the commit waits for
// the disk, as plumbline commits a call's row) and of one committed lazily
// (synchronous_commit off, as it commits outcomes), in paired rounds.
type Durability struct {
	Rounds int     `json:"rounds"`
	Sync   float64 `json:"sync_p50_ms"`
	Lazy   float64 `json:"lazy_p50_ms"`
	Added  float64 `json:"added_p50_ms"` // median over rounds of (sync − lazy)
}

// measureDurability times rounds pairs of request-log inserts on the
// database pool connects to, alternating which goes first.
func measureDurability(ctx context.Context, pool *pgxpool.Pool, rounds int) (*Durability, error) {
	var syncMs, lazyMs []float64
	insert := func(i int, mode string) (float64, error) {
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		b.Queue("SELECT set_config('synchronous_commit', $1, true)", mode)
		b.Queue(`INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ($1, 'bench', 'bench', 'bench', '{}')`,
			fmt.Sprintf("durability-%s-%d", mode, i))
		b.Queue("COMMIT")
		t := time.Now()
		err := pool.SendBatch(ctx, b).Close()
		return float64(time.Since(t).Microseconds()) / 1000, err
	}
	for i := range rounds {
		modes := []string{"on", "off"}
		if i%2 == 1 {
			modes = []string{"off", "on"}
		}
		for _, mode := range modes {
			ms, err := insert(i, mode)
			if err != nil {
				return nil, err
			}
			if mode == "on" {
				syncMs = append(syncMs, ms)
			} else {
				lazyMs = append(lazyMs, ms)
			}
		}
	}
	return &Durability{Rounds: rounds, Sync: median(syncMs), Lazy: median(lazyMs), Added: medianDiff(syncMs, lazyMs)}, nil
}
