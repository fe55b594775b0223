package grants

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	sqlfiles "plumbline/sql"
)

// This file holds the analyst's limits: the settings setup gives the
// analyst role and the agent login (sql/roles/analyst.sql), by which
// PostgreSQL itself bounds every statement of the analyst's door, and
// which the startup guard reads back.

// Limits bound every statement of the analyst's door in the database.
type Limits struct {
	// StatementTimeout is statement_timeout: the longest a statement may
	// run.
	StatementTimeout time.Duration
	// LockTimeout is lock_timeout: the longest a statement waits for a
	// lock.
	LockTimeout time.Duration
	// IdleTimeout is idle_in_transaction_session_timeout: the longest a
	// transaction may wait between its statements.
	IdleTimeout time.Duration
	// WorkMem is work_mem, in PostgreSQL's units (16MB): the memory each
	// sort or hash of a statement may take before it spills to disk.
	WorkMem string
	// TempFileLimit is temp_file_limit, in PostgreSQL's units (256MB):
	// the most disk a session's temporary files may take at once.
	TempFileLimit string
}

// Defaults for Limits.
const (
	DefaultStatementTimeout = 10 * time.Second
	DefaultLockTimeout      = 2 * time.Second
	DefaultIdleTimeout      = 10 * time.Second
	DefaultWorkMem          = "16MB"
	DefaultTempFileLimit    = "256MB"
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{StatementTimeout: DefaultStatementTimeout, LockTimeout: DefaultLockTimeout, IdleTimeout: DefaultIdleTimeout,
		WorkMem: DefaultWorkMem, TempFileLimit: DefaultTempFileLimit}
}

// RegisterFlags registers the limits' flags on fs, each filling its field
// of l, which starts as DefaultLimits.
func (l *Limits) RegisterFlags(fs *flag.FlagSet) {
	*l = DefaultLimits()
	fs.DurationVar(&l.StatementTimeout, "analyst-statement-timeout", l.StatementTimeout, "longest a statement of the analyst's door may run "+
		"(statement_timeout of the analyst role and the agent login)")
	fs.DurationVar(&l.LockTimeout, "analyst-lock-timeout", l.LockTimeout, "longest a statement of the analyst's door waits for a lock "+
		"(lock_timeout of the analyst role and the agent login)")
	fs.DurationVar(&l.IdleTimeout, "analyst-idle-timeout", l.IdleTimeout, "longest a transaction of the analyst's door may wait between "+
		"its statements (idle_in_transaction_session_timeout of the analyst role and the agent login)")
	fs.StringVar(&l.WorkMem, "analyst-work-mem", l.WorkMem, "`memory` each sort or hash of a statement of the analyst's door may take "+
		"before it spills to disk, such as 16MB (work_mem of each statement, and of the analyst role and the agent login)")
	fs.StringVar(&l.TempFileLimit, "analyst-temp-file-limit", l.TempFileLimit, "most `disk` a session of the analyst's door may "+
		"take with temporary files, such as 256MB (temp_file_limit of the analyst role and the agent login)")
}

// Setting is one of the limits as PostgreSQL names and writes it.
type Setting struct {
	Name  string // such as temp_file_limit
	Value string // such as 256MB
}

// Settings returns the limits as PostgreSQL's settings, or an error naming
// one that is not a bound PostgreSQL would take.
func (l Limits) Settings() ([]Setting, error) {
	out := []Setting{
		{"statement_timeout", millis(l.StatementTimeout)},
		{"lock_timeout", millis(l.LockTimeout)},
		{"idle_in_transaction_session_timeout", millis(l.IdleTimeout)},
		{"work_mem", l.WorkMem},
		{"temp_file_limit", l.TempFileLimit},
	}
	for _, s := range out {
		if n, err := amount(s.Name, s.Value); err != nil || n <= 0 {
			return nil, fmt.Errorf("the analyst's %s must be a bound: a positive duration, or an amount of memory such as 16MB, not %q", s.Name, s.Value)
		}
	}
	return out, nil
}

// Looser reports whether value, a value of the setting as PostgreSQL
// writes it, allows more than the setting does: a larger bound, or none.
func (s Setting) Looser(value string) (bool, error) {
	want, err := amount(s.Name, s.Value)
	if err != nil {
		return false, err
	}
	got, err := amount(s.Name, value)
	if err != nil {
		return false, err
	}
	return got <= 0 || got > want, nil
}

// millis writes a duration as PostgreSQL reads a timeout.
func millis(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}

var quantity = regexp.MustCompile(`^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$`)

// units are PostgreSQL's units of memory, in bytes, and of time, in
// milliseconds.
var units = map[string]map[string]float64{
	"memory": {"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40},
	"time":   {"us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000},
}

// amount reads a value of one of the limits' settings as PostgreSQL does:
// memory in bytes (kB when no unit is given), time in milliseconds (ms
// when none is given). Zero or less is no bound.
func amount(name, value string) (float64, error) {
	kind, base := "time", "ms"
	if name == "work_mem" || name == "temp_file_limit" {
		kind, base = "memory", "kB"
	}
	m := quantity.FindStringSubmatch(value)
	if m == nil {
		return 0, fmt.Errorf("%s = %q is not a number with a unit", name, value)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	unit := m[2]
	if unit == "" {
		unit = base
	}
	f, ok := units[kind][unit]
	if !ok {
		return 0, fmt.Errorf("%s = %q has a unit PostgreSQL does not take for it", name, value)
	}
	return n * f, nil
}

// limitsScript renders sql/roles/analyst.sql for the roles and limits.
func limitsScript(r Roles, l Limits) (string, error) {
	settings, err := l.Settings()
	if err != nil {
		return "", err
	}
	body, err := fs.ReadFile(sqlfiles.Roles(), "analyst.sql")
	if err != nil {
		return "", err
	}
	text := string(body)
	for _, s := range settings {
		text = strings.ReplaceAll(text, "{{"+s.Name+"}}", s.Value) // checked values, which need no quoting
	}
	if err := r.Check(); err != nil {
		return "", err
	}
	return r.render("roles/analyst.sql", text)
}

// SetLimits gives the analyst role and the agent login the limits. Roles
// belong to the whole cluster, so it is safe to run again, and needs a
// role that may set temp_file_limit (a superuser).
func SetLimits(ctx context.Context, conn *pgx.Conn, r Roles, l Limits) error {
	script, err := limitsScript(r, l)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, script, pgx.QueryExecModeSimpleProtocol); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" {
			return fmt.Errorf("set the analyst's limits: setting temp_file_limit takes a superuser; run plumbline setup as a superuser: %w", err)
		}
		return fmt.Errorf("set the analyst's limits: %w", err)
	}
	return nil
}
