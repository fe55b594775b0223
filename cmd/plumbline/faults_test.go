package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
}

// drive has faultClients real go-sdk clients call faultCall in a loop at
// endpoint until the returned func is called, which returns what they saw.
func (f *faultFloor) drive(t *testing.T, endpoint string) (stop func() *load) {
	t.Helper()
	l := &load{refused: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range faultClients {
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
				l.record(res, err, time.Since(start))
				if err != nil {
					// A refused connection or a 503: pause as a client
					// would before it calls again.
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	return func() *load {
		cancel()
		wg.Wait()
		return l
	}
}

// echoed are texts a refusal must never carry: the database's own error
// text, or anything of the call's arguments.
var echoed = regexp.MustCompile(`(?i)sqlstate|pgx|permission denied|request_log|canceling statement|connection refused|last_week|floor":`)

func (l *load) record(res *mcp.CallToolResult, err error, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	default:
		l.refused["an answer without figures"]++
		l.unfit = append(l.unfit, string(b))
	}
}

// recovery is how long after back the first answer with figures came.
func (l *load) recovery(back time.Time) (time.Duration, bool) {
	for _, at := range l.answers {
		if !at.Before(back) {
			return at.Sub(back), true
		}
	}
	return 0, false
}

// report logs the figures and checks what holds for every fault: refusals
// teach, every call that ran report SQL is on record, and (when back is
// set) answers came again within a second of back.
func (f *faultFloor) report(t *testing.T, l *load, back time.Time, wantRefused ...string) {
	t.Helper()
	var kinds []string
	for k, n := range l.refused {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("calls made %d, answered with figures %d, refused: %s", l.made, len(l.answered), strings.Join(kinds, ", "))
	if !back.IsZero() {
		rec, ok := l.recovery(back)
		if !ok {
			t.Errorf("no call was answered after the fault ended")
		} else {
			t.Logf("first answer %s after the fault ended", rec.Round(time.Millisecond))
			if rec > time.Second {
				t.Errorf("service came back %s after the fault ended, past a second", rec)
			}
		}
	}
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

// With 16 clients calling in a loop, each fault: no crash, refusals that
// teach and echo nothing, every call that ran report SQL on record, and
// service back within a second of the fault's end.
func TestFaults(t *testing.T) {
	f := newFaultFloor(t)

	t.Run("PostgreSQL restarted", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t)
		drive := f.drive(t, endpoint)
		time.Sleep(500 * time.Millisecond)
		if err := f.cluster.Stop(); err != nil {
			t.Fatal(err)
		}
		// What a client reads while the database is away: 503, when to
		// retry, the challenge, and a description that echoes nothing.
		downSince := time.Now()
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
		time.Sleep(time.Second - time.Since(downSince))
		if err := f.cluster.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		back := time.Now()
		time.Sleep(1500 * time.Millisecond)
		l := drive()
		f.report(t, l, back, "HTTP 503")
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
		drive := f.drive(t, endpoint)
		time.Sleep(500 * time.Millisecond)
		f.exec(t, "REVOKE INSERT ON plumbline.request_log FROM plumbline_logger")
		time.Sleep(time.Second)
		f.exec(t, "GRANT INSERT (request_id, person, client, tool, arguments, software) ON plumbline.request_log TO plumbline_logger")
		back := time.Now()
		time.Sleep(time.Second)
		l := drive()
		f.report(t, l, back, "unavailable")
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
		drive := f.drive(t, endpoint)
		time.Sleep(500 * time.Millisecond)
		release := f.lock(t)
		time.Sleep(time.Second)
		release()
		back := time.Now()
		time.Sleep(time.Second)
		l := drive()
		f.report(t, l, back, "busy")
		f.counted(t, metrics, l)
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	t.Run("statement past its timeout", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t, "--statement-timeout", "300ms", "--max-conns", "20")
		drive := f.drive(t, endpoint)
		time.Sleep(500 * time.Millisecond)
		release := f.lock(t)
		time.Sleep(2 * time.Second)
		release()
		back := time.Now()
		time.Sleep(time.Second)
		l := drive()
		f.report(t, l, back, "timeout")
		f.counted(t, metrics, l)
		// Each client has a connection of its own, so no call waits for
		// one: every call ends within its statement timeout, give or take
		// the time a call takes without the lock, even on a connection
		// opened after another timed out. A call that waited for the lock
		// instead would take the lock's 2 s; the bound leaves room for a
		// machine busy with other tests.
		t.Logf("the longest call took %s", l.longest.Round(time.Millisecond))
		if l.longest > 1800*time.Millisecond {
			t.Errorf("a call took %s with a statement timeout of 300ms, while the table was locked for 2s", l.longest)
		}
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	// Not a fault but the timeouts' other side: a call that runs longer
	// than the body timeout, once its body is in, is answered.
	t.Run("a call longer than the body timeout", func(t *testing.T) {
		endpoint, metrics, stop := f.serve(t, "--mcp-body-timeout", "300ms")
		release := f.lock(t)
		drive := f.drive(t, endpoint)
		time.Sleep(time.Second)
		release()
		back := time.Now()
		time.Sleep(500 * time.Millisecond)
		l := drive()
		f.report(t, l, back)
		f.counted(t, metrics, l)
		if len(l.refused) > 0 || l.longest < 900*time.Millisecond {
			t.Errorf("calls held up for a second with a body timeout of 300ms: refused %v, the longest took %s", l.refused, l.longest)
		}
		if code := stop(); code != 0 {
			t.Errorf("plumbline serve exited %d", code)
		}
	})

	t.Run("SIGTERM mid-call", func(t *testing.T) {
		endpoint, _, stop := f.serve(t) // its metrics end with it
		release := f.lock(t)
		drive := f.drive(t, endpoint)
		time.Sleep(500 * time.Millisecond) // every client's call is in flight, held by the lock
		stopped := make(chan int, 1)
		go func() { stopped <- stop() }()
		time.Sleep(300 * time.Millisecond)
		release()
		code := <-stopped
		l := drive()
		f.report(t, l, time.Time{}, "connection refused")
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
