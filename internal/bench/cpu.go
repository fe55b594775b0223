package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// This file measures the processor time a level's calls take, by whom:
// bench itself (the client, or the raw SQL's driver), the server process
// and PostgreSQL's processes. On a machine where the three share a few
// cores, it says what bounds the calls per second.

// CPU is the processor time one call took, on average over a level's calls,
// in milliseconds, by whom. Server is zero for the raw SQL.
type CPU struct {
	Client   float64 `json:"client_ms"`
	Server   float64 `json:"server_ms"`
	Database float64 `json:"database_ms"`
}

// Total is the processor time a call took on the whole machine.
func (c *CPU) Total() float64 { return c.Client + c.Server + c.Database }

// clockTick is the unit of the times in /proc/<pid>/stat: USER_HZ, 100 a
// second on Linux.
const clockTick = 10 * time.Millisecond

// cpuClock reads how much processor time bench, a server process and the
// database's processes have used so far. A nil clock reads nothing: the
// database is not on this machine.
type cpuClock struct {
	postmaster int // the database's first process, the parent of the others
}

// cpuTimes is what a clock read.
type cpuTimes struct{ client, server, database time.Duration }

// newCPUClock finds the database's processes on this machine through a
// connection of the pool: the parent of its backend is the postmaster. It
// returns nil when they cannot be read.
func newCPUClock(ctx context.Context, pool *pgxpool.Pool) *cpuClock {
	var backend int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return nil
	}
	st, err := procStat(backend)
	if err != nil {
		return nil
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", st.ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
		return nil
	}
	return &cpuClock{postmaster: st.ppid}
}

// Clock reads the processor time this process and the database's processes
// have used so far, for a Go benchmark to report per call.
type Clock struct{ c *cpuClock }

// NewClock finds the database's processes through a connection of pool. It
// returns nil when they cannot be read (the database is not on this
// machine).
func NewClock(ctx context.Context, pool *pgxpool.Pool) *Clock {
	if c := newCPUClock(ctx, pool); c != nil {
		return &Clock{c}
	}
	return nil
}

// Read returns the processor time used so far by this process (to the
// microsecond) and by the database's processes (to the clock tick).
func (k *Clock) Read() (self, database time.Duration) {
	t := k.c.read(0)
	return t.client, t.database
}

// around runs a level's calls and adds to its figures the processor time
// they took per call, with server the server's process (0 for none).
func (c *cpuClock) around(server int, measure func() *Stats) *Stats {
	if c == nil {
		return measure()
	}
	from := c.read(server)
	s := measure()
	to := c.read(server)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(s.Calls) }
	s.CPU = &CPU{Client: per(to.client - from.client), Server: per(to.server - from.server), Database: per(to.database - from.database)}
	return s
}

// read reads the processor time used so far: by this process (to the
// microsecond), by the server's (0 for none) and by the postmaster and
// every process it started, those that have exited included (to the clock
// tick).
func (c *cpuClock) read(server int) cpuTimes {
	var t cpuTimes
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		t.client = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if server > 0 {
		if st, err := procStat(server); err == nil {
			t.server = st.used
		}
	}
	if st, err := procStat(c.postmaster); err == nil {
		t.database = st.used + st.children
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procStat(pid); err == nil && st.ppid == c.postmaster {
			t.database += st.used
		}
	}
	return t
}

// stat is what procStat reads of a process.
type stat struct {
	ppid     int
	used     time.Duration // its own user and system time
	children time.Duration // that of its children it has waited for
}

// procStat reads a process's parent and processor time from
// /proc/<pid>/stat.
func procStat(pid int) (stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, err
	}
	// The command name, in parentheses, may hold spaces: the fields that
	// follow it start at field 3, the state.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	n := make([]int64, 15)
	for _, k := range []int{1, 11, 12, 13, 14} { // ppid, utime, stime, cutime, cstime
		if n[k], err = strconv.ParseInt(f[k], 10, 64); err != nil {
			return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
	}
	return stat{ppid: int(n[1]), used: time.Duration(n[11]+n[12]) * clockTick, children: time.Duration(n[13]+n[14]) * clockTick}, nil
}
