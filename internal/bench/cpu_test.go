package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sys/unix"

	"plumbline/internal/pgtest"
)

// The clock reads processor time in the right units, from the right
// processes, each checked against another reading of processor time, never
// against the wall clock, which a busy machine stretches. A statement that
// keeps its backend computing counts in the database's time what the
// backend had used when it was done, though it exited before the clock was
// read again; work in this process counts in the client's time what the
// process's own CPU clock says, and the same process read as a server
// (from /proc, to the clock tick) counts what getrusage does.
func TestCPUClockCountsWhoWorked(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	pool, err := pgxpool.New(ctx, db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	clock := newCPUClock(ctx, pool)
	if clock == nil {
		t.Fatal("the database's processes are not on this machine (or /proc cannot be read): the test's cluster must be local")
	}
	self := os.Getpid()
	before := processCPU(t)
	from := clock.read(self)

	conn, err := pgx.Connect(ctx, db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, "SELECT count(*) FROM generate_series(1, 5000000)"); err != nil {
		t.Fatal(err)
	}
	query := time.Since(start)
	st, err := procStat(backend)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	// The postmaster counts an exited backend's time once it has reaped
	// it, and then the backend's entry in /proc is gone.
	reaped(t, backend)

	spinFrom := processCPU(t)
	start = time.Now()
	for time.Since(start) < 300*time.Millisecond {
	}
	spun, spin := time.Since(start), processCPU(t)-spinFrom
	to := clock.read(self)
	after := processCPU(t)

	database, client, server := to.database-from.database, to.client-from.client, to.server-from.server
	t.Logf("query %v: its backend used %v, the database %v; spun %v: %v of this process's time, client %v, server %v",
		query, st.used, database, spun, spin, client, server)
	// The backend's time, and little more: the database's other processes
	// use next to nothing here.
	if database < st.used-clockTick || database > st.used+st.used/2+5*clockTick {
		t.Errorf("the database's processor time over a query whose backend used %v: %v", st.used, database)
	}
	// The client's time between the two reads holds the spin's and lies
	// within the process's time around them, each to a clock tick, the
	// most the two counts may lag each other.
	if client < spin-clockTick || client > after-before+clockTick {
		t.Errorf("this process's processor time: %v, over a spin of %v and within %v", client, spin, after-before)
	}
	if diff := server - client; diff < -3*clockTick || diff > 3*clockTick {
		t.Errorf("this process read from /proc used %v, getrusage says %v", server, client)
	}
}

// The table of processor time is printed when the figures were measured,
// one row for the raw SQL and one a server, and left out when they were
// not (the database on another machine).
func TestTheCPUTableIsLeftOutUnmeasured(t *testing.T) {
	res := &Result{Levels: []int{1}, Tools: []*ToolResult{{Call: Call{Tool: "sales"}, Statements: 1,
		RawRate: []*Stats{{CPU: &CPU{Client: 0.25, Database: 1.5}}},
		Servers: []*ServerResult{{Server: "plumbline", Rate: []*Stats{{CPU: &CPU{Client: 0.5, Server: 0.75, Database: 1.25}}}}}}}}
	var out strings.Builder
	res.writeCPU(&out)
	// The server's call took 2 ms of the server's and the database's
	// processor where the raw SQL took 1.5 of the database's: 0.75.
	for _, row := range []string{"sales    raw SQL       0.25    0.00      1.50   1.75        -", "sales  plumbline       0.50    0.75      1.25   2.50     0.75"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("the table lacks the row %q:\n%s", row, out.String())
		}
	}
	res.Tools[0].RawRate[0].CPU, res.Tools[0].Servers[0].Rate[0].CPU = nil, nil
	out.Reset()
	if res.writeCPU(&out); out.Len() != 0 {
		t.Errorf("a table with nothing measured:\n%s", out.String())
	}
}

// reaped waits until the process pid has exited and been reaped, its entry
// in /proc gone; past a minute, a guard against a hang, the test fails.
func reaped(t *testing.T, pid int) {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, fs.ErrNotExist) {
			return
		}
		select {
		case <-guard:
			t.Fatalf("the backend %d was not reaped a minute after its connection closed", pid)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// processCPU reads this process's processor time from its own CPU clock,
// apart from getrusage, which the clock under test reads.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
