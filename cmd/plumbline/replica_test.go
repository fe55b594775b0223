package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
	"plumbline/internal/pgtest"
	"plumbline/internal/provision"
)

// With --reports-dsn, reports read from a streaming replica while the request
// log lands on the primary. Replay on the replica is paused and a figure is
// changed on the primary, so the answer shows which database it came from.
func TestReportsFromAReplica(t *testing.T) {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "plumbline-primary-")
	primary, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Destroy() })
	roles := grants.DefaultRoles()
	gs, err := grants.Dirs{}.Load()
	if err != nil {
		t.Fatal(err)
	}
	opts := demofloor.Options{Now: pgtest.Now}
	if err := provision.Demo(ctx, primary, opts, roles, grants.DefaultLimits(), gs, &syncBuffer{}); err != nil {
		t.Fatal(err)
	}
	rdir, _ := os.MkdirTemp("", "plumbline-replica-")
	replica, err := primary.StartReplica(ctx, rdir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica.Destroy() })

	onPrimary := connectTo(t, primary.DSN(provision.DemoDatabase))
	onReplica := connectTo(t, replica.DSN(provision.DemoDatabase))
	const day = "2026-11-17"
	submitted := func(conn *pgx.Conn) (n int) {
		conn.QueryRow(ctx, "SELECT sum(submitted) FROM metrics.agent_sales_daily WHERE day = $1", day).Scan(&n)
		return n
	}
	want := submitted(onPrimary)
	for deadline := time.Now().Add(30 * time.Second); submitted(onReplica) != want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not catch up")
		}
	}
	if _, err := onReplica.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { onReplica.Exec(ctx, "SELECT pg_wal_replay_resume()") })
	if _, err := onPrimary.Exec(ctx, "UPDATE metrics.agent_sales_daily SET submitted = submitted + 1000 WHERE day = $1", day); err != nil {
		t.Fatal(err)
	}

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(sctx, []string{"serve", "--db", primary.LoginDSN(roles.App, provision.DemoDatabase),
			"--reports-dsn", replica.LoginDSN(roles.App, provision.DemoDatabase), "--addr", "127.0.0.1:0", "--calls-per-minute", "0"}, &out, &logs)
	}()
	url := waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done)
	// Tokens live on the primary, like the request log.
	code, token, errOut := runCLI(t, "token", "create", "--service", "replica-test", "--db", primary.LoginDSN(roles.App, provision.DemoDatabase),
		"--public-url", strings.TrimSuffix(url, "/mcp"))
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	client := &http.Client{Transport: oauth.BearerTransport(strings.TrimSpace(token), http.DefaultTransport)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales",
		Arguments: json.RawMessage(`{"who":{"floor":true},"period":{"day":"` + day + `"},"metrics":["submitted_sales"]}`)})
	if err != nil || res.IsError {
		t.Fatalf("sales: %v %v", res, err)
	}
	var a struct {
		RequestID string `json:"request_id"`
		Rows      [][]float64
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &a)
	var onFloor int
	onReplica.QueryRow(ctx, `SELECT sum(submitted) FROM metrics.agent_sales_daily s WHERE day = $1 AND `+pgtest.OnFloor, day).Scan(&onFloor)
	if len(a.Rows) != 1 || int(a.Rows[0][0]) != onFloor {
		t.Fatalf("the floor's submitted sales on %s came back as %v; the replica holds %d (the primary has 1000 more per agent)", day, a.Rows, onFloor)
	}
	// The outcome is written after the answer, within moments.
	var outcome *string
	var err2 error
	for deadline := time.Now().Add(5 * time.Second); (outcome == nil || err2 != nil) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		err2 = onPrimary.QueryRow(ctx, "SELECT outcome FROM plumbline.calls WHERE request_id = $1", a.RequestID).Scan(&outcome)
	}
	if err2 != nil || outcome == nil || *outcome != "ok" {
		t.Errorf("the request log on the primary has %v for the call: %v", outcome, err2)
	}
	var onReplicaLog int
	onReplica.QueryRow(ctx, "SELECT count(*) FROM plumbline.request_log").Scan(&onReplicaLog)
	if onReplicaLog != 0 {
		t.Errorf("the paused replica holds %d request log rows; the log must be written on the primary", onReplicaLog)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d:\n%s", code, logs.String())
	}
}

func connectTo(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
