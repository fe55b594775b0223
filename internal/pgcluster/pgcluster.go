package pgcluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Superuser is the bootstrap superuser of every cluster this package creates.
const Superuser = "postgres"

// Options tune a cluster. The zero value suits the demo.
type Options struct {
	// Ephemeral trades durability for speed (fsync off), for clusters that
	// are thrown away after a test run.
	Ephemeral bool
	// KeepPort starts the cluster on the port it first started on, kept
	// in its directory (PortFile), so that connection strings handed out
	// once keep working for as long as the cluster lives. If the port is
	// taken when it starts again, Start says so instead of moving.
	KeepPort bool
}

// PortFile is the file in a cluster's directory that keeps its port, when
// it is started with KeepPort.
const PortFile = "port"

// Cluster is a running private PostgreSQL cluster.
type Cluster struct {
	dir  string
	bin  string
	port int
	cred *syscall.Credential
	opts Options
}

// ErrNoBinaries is returned when initdb and pg_ctl cannot be found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: " +
	"install the server package (Debian/Ubuntu: apt-get install postgresql) " +
	"or set PLUMBLINE_PG_BIN to the directory that holds them")

// Start starts the cluster kept in dir, creating it first if dir holds none.
// A cluster already running from dir is reused.
func Start(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if c.cred, err = runAs(); err != nil {
		return nil, err
	}
	if c.cred != nil && !reachable(filepath.Dir(dir)) {
		// A directory inside a private one (a root-only home or temporary
		// directory) is out of the postgres user's reach: keep the cluster
		// in a directory of its own named after dir, so that it is found
		// again next time.
		sum := sha256.Sum256([]byte(dir))
		c.dir = filepath.Join(os.TempDir(), "plumbline-cluster-"+hex.EncodeToString(sum[:6]))
	}
	if err := c.prepareDir(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(c.dataDir("PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx); err != nil {
			return nil, err
		}
	}
	if port, ok := c.runningPort(ctx); ok {
		c.port = port
		return c, nil
	}
	return c, c.start(ctx, opts)
}

// StartReplica starts a streaming replica of c kept in dir: a hot standby
// made from a base backup of c, which answers read-only queries and follows
// c's changes. A replica already running from dir is reused.
func (c *Cluster) StartReplica(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r := &Cluster{dir: dir, bin: c.bin, cred: c.cred}
	if err := r.prepareDir(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(r.dataDir("PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		// -R writes the standby settings; -X stream brings the WAL needed to
		// start consistent; a fast checkpoint starts the copy at once rather
		// than at the primary's next scheduled checkpoint.
		err := r.run(ctx, "pg_basebackup", "-D", r.dataDir(), "-h", "127.0.0.1", "-p", strconv.Itoa(c.port),
			"-U", Superuser, "-X", "stream", "-R", "--no-sync", "--checkpoint=fast")
		if err != nil {
			return nil, fmt.Errorf("copy the primary into %s: %w", dir, err)
		}
	}
	if port, ok := r.runningPort(ctx); ok {
		r.port = port
		return r, nil
	}
	return r, r.start(ctx, opts)
}

// DSN returns a connection string for the superuser to database db.
func (c *Cluster) DSN(db string) string { return c.LoginDSN(Superuser, db) }

// LoginDSN returns a connection string for a login to database db. The
// cluster trusts local connections, so it needs no password.
func (c *Cluster) LoginDSN(login, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", login, c.port, db)
}

// Port is the loopback TCP port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// Dir is the directory that holds the cluster.
func (c *Cluster) Dir() string { return c.dir }

// Stop shuts the cluster down, cancelling open connections.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.run(ctx, "pg_ctl", "stop", "-s", "-m", "fast", "-D", c.dataDir())
}

// Destroy stops the cluster and removes its directory.
func (c *Cluster) Destroy() error {
	err := c.Stop()
	return errors.Join(err, os.RemoveAll(c.dir))
}

func (c *Cluster) dataDir(elem ...string) string {
	return filepath.Join(append([]string{c.dir, "data"}, elem...)...)
}

func (c *Cluster) prepareDir() error {
	// Directories above the cluster stay searchable; the cluster's own is
	// private to its owner.
	if err := os.MkdirAll(filepath.Dir(c.dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(c.dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if c.cred == nil {
		return nil
	}
	// The postgres user must own the cluster and be able to reach it.
	if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
		return err
	}
	if !reachable(filepath.Dir(c.dir)) {
		return fmt.Errorf("the postgres user cannot reach %s: a directory above it is not searchable by others; "+
			"put the cluster elsewhere", c.dir)
	}
	return nil
}

// reachable reports whether any user can pass through dir and every
// directory above it.
func reachable(dir string) bool {
	for p := dir; ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return !errors.Is(err, os.ErrPermission) && os.IsNotExist(err)
		}
		if info.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == "/" {
			return true
		}
	}
}

func (c *Cluster) initdb(ctx context.Context) error {
	err := c.run(ctx, "initdb", "--no-instructions", "--no-sync", "-D", c.dataDir(),
		"-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C")
	if err != nil {
		return fmt.Errorf("create cluster in %s: %w", c.dir, err)
	}
	return nil
}

// runningPort reports the port of a postmaster already serving this
// directory, as recorded in its postmaster.pid.
func (c *Cluster) runningPort(ctx context.Context) (int, bool) {
	if c.run(ctx, "pg_ctl", "status", "-D", c.dataDir()) != nil {
		return 0, false
	}
	pid, err := os.ReadFile(c.dataDir("postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(pid), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	return port, err == nil
}

func (c *Cluster) start(ctx context.Context, opts Options) error {
	c.opts = opts
	kept := 0
	if opts.KeepPort {
		if b, err := os.ReadFile(filepath.Join(c.dir, PortFile)); err == nil {
			if kept, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil || kept <= 0 || kept > 65535 {
				return fmt.Errorf("%s holds no port number; delete it to let the cluster choose a new port", filepath.Join(c.dir, PortFile))
			}
			if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(kept))); err != nil {
				return fmt.Errorf("the cluster in %s listens on port %d, kept so that connection strings handed out before keep working, "+
					"but another program holds that port now: stop it, or delete %s to let the cluster choose a new port",
					c.dir, kept, filepath.Join(c.dir, PortFile))
			} else {
				l.Close()
			}
		}
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		if kept > 0 {
			port = kept
		}
		if lastErr = c.startOn(ctx, port); lastErr == nil {
			c.port = port
			if opts.KeepPort && kept == 0 {
				return os.WriteFile(filepath.Join(c.dir, PortFile), []byte(strconv.Itoa(port)+"\n"), 0o644)
			}
			return nil
		}
		if kept > 0 {
			break
		}
	}
	return fmt.Errorf("start cluster in %s (log: %s): %w", c.dir, filepath.Join(c.dir, "postgres.log"), lastErr)
}

// Resume starts a cluster that Stop stopped again, on the port it had, so
// that connection strings made for it reach it again: for tests of what a
// server does while its database restarts.
func (c *Cluster) Resume(ctx context.Context) error {
	if err := c.startOn(ctx, c.port); err != nil {
		return fmt.Errorf("start cluster in %s again (log: %s): %w", c.dir, filepath.Join(c.dir, "postgres.log"), err)
	}
	return nil
}

// startOn starts the postmaster on port and waits until it accepts
// connections.
func (c *Cluster) startOn(ctx context.Context, port int) error {
	settings := []string{
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
		"-c", "max_connections=200",
	}
	if c.opts.Ephemeral {
		settings = append(settings, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	return c.run(ctx, "pg_ctl", "start", "-s", "-w", "-t", "60", "-D", c.dataDir(),
		"-l", filepath.Join(c.dir, "postgres.log"), "-o", strings.Join(settings, " "))
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// Binaries returns the directory of the PostgreSQL server binaries a
// cluster starts from (initdb, pg_ctl, and beside them psql), found as
// Start finds them.
func Binaries() (string, error) { return findBinaries() }

// findBinaries looks in PLUMBLINE_PG_BIN when it is set, else next to initdb
// on PATH, then in Debian's versioned directories, newest first.
func findBinaries() (string, error) {
	if d := os.Getenv("PLUMBLINE_PG_BIN"); d != "" {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
		return "", fmt.Errorf("PLUMBLINE_PG_BIN=%s holds no initdb and pg_ctl: %w", d, ErrNoBinaries)
	}
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(versioned, func(i, j int) bool { return pgVersion(versioned[i]) > pgVersion(versioned[j]) })
	dirs = append(dirs, versioned...)
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// runAs returns the credential of the postgres user when this process is
// root, and nil otherwise.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("PostgreSQL refuses to run as root and there is no postgres user to run it as: " +
			"install the server package (it creates the user) or run as an ordinary user")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
