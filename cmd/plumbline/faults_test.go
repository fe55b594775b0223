package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
)

// faultClients is how many clients call in a loop while a fault strikes.
const faultClients = 16

// faultCall is what every client calls: a report that runs SQL over
// metrics.agent_time_daily, which the tests lock to hold calls up.
const faultCall = `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"}`

// faultFloor is the demo floor on a private cluster of its own, which a
// test may stop and start, and a service token for it.
type faultFloor struct {
	cluster *pgcluster.Cluster
	appDSN  string
	public  string
	token   string
}

func newFaultFloor(t *testing.T) *faultFloor {
	t.Helper()
	ctx := context.Background()
	// The cluster runs as the postgres user when tests run as root, so its
	// directory must not sit inside the test's private temporary directory.
	dir, err := os.MkdirTemp("", "plumbline-faults-")
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cluster.Destroy()
		os.RemoveAll(dir)
	})
	roles := grants.DefaultRoles()
	gs, err := grants.Dirs{}.Load()
	if err != nil {
		t.Fatal(err)
	}
	ags, err := grants.Dirs{}.LoadAnalyst()
	if err != nil {
		t.Fatal(err)
	}
	if err := provision.Demo(ctx, cluster, demofloor.Options{Now: time.Now()}, roles, grants.DefaultLimits(), append(gs, ags...), io.Discard); err != nil {
		t.Fatal(err)
	}
	f := &faultFloor{cluster: cluster, appDSN: cluster.LoginDSN(roles.App, provision.DemoDatabase), public: "http://" + freeAddr(t)}
	code, token, errOut := runCLI(t, "token", "create", "--service", "faults", "--db", f.appDSN, "--public-url", f.public)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	f.token = strings.TrimSpace(token)
	return f
}

// exec runs statements as the superuser, on a connection of their own.
func (f *faultFloor) exec(t *testing.T, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.cluster.DSN(provision.DemoDatabase))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// lock holds an exclusive lock on the table faultCall reads until the
// returned func is called: every report call blocks on it meanwhile.
func (f *faultFloor) lock(t *testing.T) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.cluster.DSN(provision.DemoDatabase))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, "LOCK TABLE metrics.agent_time_daily IN ACCESS EXCLUSIVE MODE")
	}
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		tx.Commit(ctx)
		conn.Close(ctx)
	}
}

// serve runs plumbline serve on the floor with flags, until the returned
// stop is called (as SIGTERM does, by cancelling its context); stop
// returns its exit code.
func (f *faultFloor) serve(t *testing.T, flags ...string) (endpoint, metrics string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Both addresses are chosen here: a metrics listener on port 0 could
	// take the serving address between its check and serve's listen.
	addrs := freeAddrs(t, 2)
	addr := addrs[0]
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, append([]string{"serve", "--db", f.appDSN, "--addr", addr, "--public-url", f.public,
			"--cache-mib", "0", "--calls-per-minute", "0", "--metrics-addr", addrs[1]}, flags...), &out, &logs)
	}()
	metrics = waitFor(t, &logs, regexp.MustCompile(`"metrics_url":"([^"]+)"`), done)
	waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done)
	code, stopped := 0, false
	stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("plumbline serve did not stop within 30 s of its signal")
			}
			if strings.Contains(logs.String(), "panic") {
				t.Errorf("plumbline serve panicked:\n%s", logs.String())
			}
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return "http://" + addr + "/mcp", metrics, stop
}

// counted checks that the server's metrics count what the clients saw:
// every answer with figures, and at least every refusal of each code the
// clients read (the server may count more: a call it refused whose answer
// gave way to a 503 when its token could not be checked either). It
// returns the value of a series, for checks of a fault's own.
func (f *faultFloor) counted(t *testing.T, url string, l *load) (series func(string) float64) {
	t.Helper()
	fams := scrape(t, url)
	m := func(s string) float64 {
		v, _ := value(fams, s)
		return v
	}
	if got := m(`plumbline_tool_calls_total{outcome="ok",tool="hours"}`); int(got) != len(l.answered) {
		t.Errorf("the metrics count %v calls answered, the clients %d", got, len(l.answered))
	}
	for code, n := range l.refused {
		if strings.Contains(code, " ") {
			continue // not a tool's refusal: the HTTP request failed
		}
		calls, refusals := m(`plumbline_tool_calls_total{outcome="`+code+`",tool="hours"}`), m(`plumbline_refusals_total{argument="",code="`+code+`"}`)
		t.Logf("metrics: %v calls refused %s, %v refusals %s (clients saw %d)", calls, code, refusals, code, n)
		if int(calls) < n || int(refusals) < n {
			t.Errorf("the metrics count %v calls and %v refusals %s, the clients saw %d", calls, refusals, code, n)
		}
	}
	return m
}

// faultGuard is how long a test waits for what must come to pass before
// it fails, saying what it waited for: a guard against a hang, far beyond
// what any step takes on a busy machine, never a measure of speed.
const faultGuard = time.Minute

// load is what the clients saw.
type load struct {
	mu       sync.Mutex
	made     int
	answers  []time.Time // when each answer with figures came
	answered []string    // their request ids
	refused  map[string]int
	ranSQL   []string // request ids of refusals that ran report SQL (timeouts)
	unfit    []string // refusals that do not teach, or echo
	longest  time.Duration
	// byClient counts, for each client, its answers with figures ("ok")
	// and its refusals by kind.
	byClient [faultClients]map[string]int
	// changed gets a value when a call ends, for until to look again.
	changed chan struct{}
	// stop ends the clients' calls and waits until they have ended.
	stop func()
}

// drive has faultClients real go-sdk clients call faultCall in a loop at
// endpoint until l.stop is called (at the latest when the test ends).
func (f *faultFloor) drive(t *testing.T, endpoint string) (l *load) {
	t.Helper()
	l = &load{refused: map[string]int{}, changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	l.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	t.Cleanup(l.stop)
	for i := range faultClients {
		l.byClient[i] = map[string]int{}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("fault-%d", i), Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
				HTTPClient: &http.Client{Transport: oauth.BearerTransport(f.token, http.DefaultTransport)}}, nil)
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cs.Close()
			for ctx.Err() == nil {
				callCtx, cancelCall := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				start := time.Now()
				res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "hours", Arguments: json.RawMessage(faultCall)})
				cancelCall()
				l.record(i, res, err, time.Since(start))
				if err != nil {
					// A refused connection or a 503: pause as a client
					// would before it calls again.
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	return l
}

// until waits, looking again each time a client's call ends, until cond
// holds of what the clients saw (cond runs with l locked); past faultGuard
// the test fails, saying what it waited for.
func (l *load) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	guard := time.NewTimer(faultGuard)
	defer guard.Stop()
	for {
		l.mu.Lock()
		ok := cond()
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-l.changed:
		case <-guard.C:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("waited %s for %s; each client saw %v", faultGuard, what, l.byClient)
		}
	}
}

// each reports whether every client saw kind at least n times.
func (l *load) each(kind string, n int) func() bool {
	return func() bool {
		for _, c := range l.byClient {
			if c[kind] < n {
				return false
			}
		}
		return true
	}
}

// total reports whether the clients saw kind at least n times in all.
func (l *load) total(kind string, n int) func() bool {
	return func() bool {
		got := 0
		for _, c := range l.byClient {
			got += c[kind]
		}
		return got >= n
	}
}

// over marks the end of a fault and waits until a client is answered with
// figures again; how long that took is logged.
func (l *load) over(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	mark, end := len(l.answers), time.Now()
	l.mu.Unlock()
	l.until(t, "an answer with figures after the fault ended", func() bool { return len(l.answers) > mark })
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("first answer %s after the fault ended", l.answers[mark].Sub(end).Round(time.Millisecond))
}

// echoed are texts a refusal must never carry: the database's own error
// text, or anything of the call's arguments.
var echoed = regexp.MustCompile(`(?i)sqlstate|pgx|permission denied|request_log|canceling statement|connection refused|last_week|floor":`)

func (l *load) record(client int, res *mcp.CallToolResult, err error, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() {
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}()
	l.made++
	l.longest = max(l.longest, took)
	switch {
	case err != nil:
		kind := "transport error"
		switch msg := err.Error(); {
		case strings.Contains(msg, "503") || strings.Contains(msg, "Service Unavailable"):
			kind = "HTTP 503"
		case strings.Contains(msg, "connection refused"):
			kind = "connection refused"
		case errors.Is(err, context.Canceled):
			kind = "cancelled by the client"
		}
		l.refused[kind]++
		l.byClient[client][kind]++
		return
	}
	var a struct {
		RequestID string          `json:"request_id"`
		Rows      json.RawMessage `json:"rows"`
		Error     *struct {
			Code, Argument, Rule string
		} `json:"error"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &a)
	switch {
	case res.IsError && a.Error != nil:
		l.refused[a.Error.Code]++
		l.byClient[client][a.Error.Code]++
		if a.Error.Code == "timeout" {
			l.ranSQL = append(l.ranSQL, a.RequestID)
		}
		// What happened and what to do: a code, and a rule that says
		// when to try again or how to narrow the call.
		teaches := a.Error.Code != "" && a.RequestID != "" &&
			regexp.MustCompile(`try again|ask for|narrow`).MatchString(a.Error.Rule)
		if !teaches || echoed.Match(b) {
			l.unfit = append(l.unfit, string(b))
		}
	case !res.IsError && a.RequestID != "" && len(a.Rows) > 2:
		l.answers = append(l.answers, time.Now())
		l.answered = append(l.answered, a.RequestID)
		l.byClient[client]["ok"]++
	default:
		l.refused["an answer without figures"]++
		l.byClient[client]["an answer without figures"]++
		l.unfit = append(l.unfit, string(b))
	}
}

// report logs the figures and checks what holds for every fault: refusals
// teach, and every call that ran report SQL is on record. Call it once the
// clients have stopped.
func (f *faultFloor) report(t *testing.T, l *load, wantRefused ...string) {
	t.Helper()
	var kinds []string
	for k, n := range l.refused {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("calls made %d, answered with figures %d, refused: %s", l.made, len(l.answered), strings.Join(kinds, ", "))
	for _, k := range wantRefused {
		if l.refused[k] == 0 {
			t.Errorf("no call was refused %q during the fault: %v", k, l.refused)
		}
	}
	for _, u := range l.unfit {
		t.Errorf("a refusal that does not teach, or echoes: %s", u)
	}
	if len(l.answered) == 0 {
		t.Error("no call was answered at all")
	}
	ids := append(append([]string{}, l.answered...), l.ranSQL...)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.cluster.DSN(provision.DemoDatabase))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var logged int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM plumbline.request_log WHERE request_id = ANY($1)", ids).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	t.Logf("request-log rows for the %d calls that ran report SQL: %d", len(ids), logged)
	if logged != len(ids) {
		t.Errorf("%d of %d calls that ran report SQL have no request-log row", len(ids)-logged, len(ids))
	}
}

// outcomes counts the calls of ids whose outcome is on record as ok.
func (f *faultFloor) outcomes(t *testing.T, ids []string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.cluster.DSN(provision.DemoDatabase))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM plumbline.calls WHERE request_id = ANY($1) AND outcome = 'ok'", ids).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waiting waits until at least n statements wait on a lock, each for
// longer than d, as PostgreSQL sees them; past faultGuard the test fails.
func (f *faultFloor) waiting(t *testing.T, n int, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultGuard)
	defer cancel()
	conn, err := pgx.Connect(ctx, f.cluster.DSN(provision.DemoDatabase))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for got := 0; got < n; {
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND clock_timestamp() - query_start > make_interval(secs => $1)`, d.Seconds()).Scan(&got); err != nil {
			t.Fatalf("waited %s for %d statements held up by the lock for %s: %v", faultGuard, n, d, err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

// refusing waits until the server at endpoint refuses new connections, as
// it does from the moment it begins to shut down; past faultGuard the test
// fails.
func refusing(t *testing.T, endpoint string) {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	guard := time.After(faultGuard)
	for {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			return
		}
		conn.Close()
		select {
		case <-guard:
			t.Fatalf("the server still takes connections %s after its signal", faultGuard)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// With 16 clients calling in a loop, each fault: no crash, refusals that
// teach and echo nothing, every call that ran report SQL on record, and
// service back after the fault's end. Each fault lasts until the clients
// have seen it, and ends once they are answered again.
func TestFaults(t *testing.T) {
	f := newFaultFloor(t)

	t.Run("PostgreSQL restarted", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t)
		l := f.drive(t, endpoint)
		l.until(t, "an answer for every client before the fault", l.each("ok", 1))
		if err := f.cluster.Stop(); err != nil {
			t.Fatal(err)
		}
		// What a client reads while the database is away: 503, when to
		// retry, the challenge, and a description that echoes nothing.
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hours","arguments":`+faultCall+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+f.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+f.public+`/.well-known/oauth-protected-resource/mcp"`) ||
			!strings.Contains(string(body), "database is out of reach; try again") || echoed.Match(body) {
			t.Errorf("a call while the database is away: %d, Retry-After %q, WWW-Authenticate %q\n%s",
				resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"), body)
		}
		l.until(t, "a 503 for each client's worth of calls while the database is away", l.total("HTTP 503", faultClients))
		if err := f.cluster.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		l.over(t)
		l.stop()
		f.report(t, l, "HTTP 503")
		m := f.counted(t, metrics, l)
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
		// Outcomes are written after their calls, in batches: those that
		// were due while the database was away are lost (logged, and
		// counted in the metrics), never the calls' rows.
		kept := f.outcomes(t, l.answered)
		failed := m(`plumbline_request_log_failures_total{write="outcome"}`) + m(`plumbline_request_log_failures_total{write="outcome_dropped"}`)
		t.Logf("outcomes on record for %d of the %d answered calls; the metrics count %v outcome writes failed", kept, len(l.answered), failed)
		if int(failed) < len(l.answered)-kept {
			t.Errorf("%d answered calls lost their outcome, the metrics count %v", len(l.answered)-kept, failed)
		}
	})

	t.Run("request log unwritable", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t)
		l := f.drive(t, endpoint)
		l.until(t, "an answer for every client before the fault", l.each("ok", 1))
		f.exec(t, "REVOKE INSERT ON plumbline.request_log FROM plumbline_logger")
		l.until(t, "a refusal as unavailable for each client's worth of calls", l.total("unavailable", faultClients))
		f.exec(t, "GRANT INSERT (request_id, person, client, tool, arguments, software) ON plumbline.request_log TO plumbline_logger")
		l.over(t)
		l.stop()
		f.report(t, l, "unavailable")
		m := f.counted(t, metrics, l)
		if failed := m(`plumbline_request_log_failures_total{write="call"}`); int(failed) < l.refused["unavailable"] {
			t.Errorf("the metrics count %v request-log writes failed, the clients saw %d calls refused for it", failed, l.refused["unavailable"])
		} else {
			t.Logf("metrics: %v calls' rows could not be written", failed)
		}
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	t.Run("pool exhausted", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t, "--max-conns", "2", "--acquire-timeout", "200ms")
		l := f.drive(t, endpoint)
		l.until(t, "an answer for every client before the fault", l.each("ok", 1))
		release := f.lock(t)
		l.until(t, "a refusal as busy for each client's worth of calls", l.total("busy", faultClients))
		release()
		l.over(t)
		l.stop()
		f.report(t, l, "busy")
		f.counted(t, metrics, l)
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	t.Run("statement past its timeout", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t, "--statement-timeout", "300ms", "--max-conns", "20")
		l := f.drive(t, endpoint)
		l.until(t, "an answer for every client before the fault", l.each("ok", 1))
		// Each client has a connection of its own, so no call waits for
		// one: while the table stays locked, every call ends at its
		// statement timeout, refused as a timeout, and so does the next
		// one each client makes, on a connection opened after another
		// timed out. A call that waited for the lock instead would hold
		// its client until the lock is released, and this would never
		// come to pass.
		release := f.lock(t)
		l.until(t, "two timeouts for every client while the table is locked", l.each("timeout", 2))
		release()
		l.over(t)
		l.stop()
		f.report(t, l, "timeout")
		f.counted(t, metrics, l)
		t.Logf("the longest call took %s", l.longest.Round(time.Millisecond))
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	// Not a fault but the timeouts' other side: a call that runs longer
	// than the body timeout, once its body is in, is answered. Each
	// client has a connection of its own, so every call waits on the
	// lock, and PostgreSQL says when each has waited past the body
	// timeout.
	t.Run("a call longer than the body timeout", func(t *testing.T) {
		const bodyTimeout = 300 * time.Millisecond
		endpoint, metrics, stop := f.serve(t, "--mcp-body-timeout", bodyTimeout.String(), "--max-conns", "20")
		release := f.lock(t)
		l := f.drive(t, endpoint)
		f.waiting(t, faultClients, bodyTimeout)
		release()
		l.over(t)
		l.stop()
		f.report(t, l)
		f.counted(t, metrics, l)
		t.Logf("the longest call took %s", l.longest.Round(time.Millisecond))
		if len(l.refused) > 0 {
			t.Errorf("calls held up past a body timeout of %s were refused: %v", bodyTimeout, l.refused)
		}
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	t.Run("SIGTERM mid-call", func(t *testing.T) {
		endpoint, _, stop := f.serve(t, "--max-conns", "20") // its metrics end with it
		release := f.lock(t)
		l := f.drive(t, endpoint)
		f.waiting(t, faultClients, 0) // every client's call is in flight, held by the lock
		stopped := make(chan int, 1)
		go func() { stopped <- stop() }()
		refusing(t, endpoint)
		release()
		code := <-stopped
		l.until(t, "a connection refused once the server stopped", l.total("connection refused", 1))
		l.stop()
		f.report(t, l, "connection refused")
		if code != 0 {
			t.Errorf("plumbline serve exited %d after SIGTERM", code)
		}
		if len(l.answered) < faultClients {
			t.Errorf("%d calls were answered; the %d in flight at SIGTERM must all be", len(l.answered), faultClients)
		}
		// The calls in flight were drained: answered, and their outcomes
		// written before the server stopped.
		if done := f.outcomes(t, l.answered); done != len(l.answered) {
			t.Errorf("%d of %d answered calls have their outcome on record after SIGTERM", done, len(l.answered))
		}
	})
}
