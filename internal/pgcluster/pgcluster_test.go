package pgcluster_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// A cluster started with KeepPort starts again on the port it first had,
// and when another program holds that port it says so rather than move.
func TestKeepPort(t *testing.T) {
	dir, err := os.MkdirTemp("", "plumbline-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := pgcluster.Options{Ephemeral: true, KeepPort: true}
	c, err := pgcluster.Start(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy() })
	port := c.Port()
	for run := 0; run < 2; run++ {
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
		if c, err = pgcluster.Start(ctx, dir, opts); err != nil || c.Port() != port {
			t.Fatalf("start %d after a stop: port %d, %v; want the kept port %d", run+2, c.Port(), err, port)
		}
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	squatter, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pgcluster.Start(ctx, dir, opts)
	squatter.Close()
	if err == nil || !strings.Contains(err.Error(), "another program holds that port") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("a start with the kept port taken: %v", err)
	}
	if c, err = pgcluster.Start(ctx, dir, opts); err != nil || c.Port() != port {
		t.Fatalf("a start once the port is free: port %d, %v", c.Port(), err)
	}
}

// A replica follows its primary and refuses writes.
func TestReplica(t *testing.T) {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "plumbline-primary-test-")
	primary, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Destroy() })
	rdir, _ := os.MkdirTemp("", "plumbline-replica-test-")
	replica, err := primary.StartReplica(ctx, rdir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica.Destroy() })
	pc, err := pgx.Connect(ctx, primary.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	if _, err := pc.Exec(ctx, "CREATE TABLE followed AS SELECT 42 AS answer"); err != nil {
		t.Fatal(err)
	}
	rc, err := pgx.Connect(ctx, replica.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(ctx)
	var standby bool
	if err := rc.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil || !standby {
		t.Fatalf("the replica is not a standby: %v %v", standby, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var answer int
		if rc.QueryRow(ctx, "SELECT answer FROM followed").Scan(&answer) == nil && answer == 42 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not receive the primary's change")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := rc.Exec(ctx, "CREATE TABLE refused (x int)"); err == nil {
		t.Error("the replica accepted a write")
	}
}

// Running as root, a cluster asked for inside a private directory is kept
// where the postgres user can reach it, and found there again.
func TestPrivateParentDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("not root: the cluster runs as this user, who can reach the directory")
	}
	private := t.TempDir() // 0700, as mktemp -d makes it
	ctx := context.Background()
	c, err := pgcluster.Start(ctx, filepath.Join(private, ".plumbline"), pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatalf("a cluster inside a private directory: %v", err)
	}
	t.Cleanup(func() { c.Destroy() })
	again, err := pgcluster.Start(ctx, filepath.Join(private, ".plumbline"), pgcluster.Options{Ephemeral: true})
	if err != nil || again.Dir() != c.Dir() || again.Port() != c.Port() {
		t.Fatalf("the second start found %s on %d (%v), want the running cluster in %s on %d", again.Dir(), again.Port(), err, c.Dir(), c.Port())
	}
}
