package pgcluster_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/pgcluster"
)

func TestMissingBinariesNameThePackage(t *testing.T) {
	t.Setenv("PLUMBLINE_PG_BIN", t.TempDir())
	_, err := pgcluster.Start(context.Background(), t.TempDir(), pgcluster.Options{})
	if !errors.Is(err, pgcluster.ErrNoBinaries) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("Start without binaries: %v", err)
	}
}

// A cluster starts, serves, stops and starts again from the same directory
// with its data kept.
func TestStartStopReuse(t *testing.T) {
	dir, err := os.MkdirTemp("", "plumbline-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy() })
	exec := func(c *pgcluster.Cluster, sql string) {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(c, "CREATE TABLE kept (x int)")
	// Starting again while it runs reuses the running cluster.
	again, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil || again.Port() != c.Port() {
		t.Fatalf("second start: port %d, %v; want the running cluster on %d", again.Port(), err, c.Port())
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	c, err = pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	exec(c, "INSERT INTO kept VALUES (1)")
}
