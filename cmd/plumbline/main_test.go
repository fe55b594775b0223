package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/terminal"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// syncBuffer is a buffer a running command and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb syncBuffer
	code = run(context.Background(), args, &streams{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != 0 || !strings.Contains(out, "plumbline demo") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	for _, cmd := range []string{"serve", "check", "demo", "guard", "setup", "token"} {
		code, out, _ := runCLI(t, "help", cmd)
		if code != 0 || !strings.Contains(out, "Usage: plumbline "+cmd) || !strings.Contains(out, "$PLUMBLINE_") {
			t.Errorf("help %s: exit %d\n%s", cmd, code, out)
		}
	}
	if code, _, errOut := runCLI(t, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("an unknown command: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "serve"); code != 2 || !strings.Contains(errOut, "--db is required") {
		t.Errorf("serve without --db: exit %d, %s", code, errOut)
	}
}

// check prints every problem with file:line:column and exits 1; a good
// catalogue exits 0. The golden files are the catalog package's.
func TestCheck(t *testing.T) {
	t.Chdir("../..")
	code, out, _ := runCLI(t, "check", "catalog/demo")
	if code != 0 || !strings.Contains(out, "catalog/demo: ok") {
		t.Errorf("check catalog/demo: exit %d\n%s", code, out)
	}
	code, out, errOut := runCLI(t, "check", "testdata/check/broken")
	want, _ := os.ReadFile("testdata/check/broken.want")
	if code != 1 || out != string(want) || !strings.Contains(errOut, "problem(s)") {
		t.Errorf("check broken: exit %d\n%s\nwant:\n%s", code, out, want)
	}
	code, out, _ = runCLI(t, "check", "--format", "github", "testdata/check/broken")
	annotation := regexp.MustCompile(`^::error file=testdata/check/broken/\w+\.yaml,line=\d+,col=\d+,title=plumbline check::[^\n]+$`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != strings.Count(string(want), "\n") {
		t.Errorf("check --format github: exit %d, %d annotations", code, len(lines))
	}
	for _, l := range lines {
		if !annotation.MatchString(l) {
			t.Errorf("not a GitHub annotation: %s", l)
		}
	}
	if code, _, _ := runCLI(t, "check", "--format", "xml", "catalog/demo"); code != 2 {
		t.Errorf("an unknown format: exit %d", code)
	}
}

// binDir holds the binary buildBinary built, if a test asked for it; the
// test binary removes it when it is done.
var binDir string

// buildBinary builds plumbline once for tests that run it as a process.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "plumbline-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "plumbline")
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// A client that starts plumbline itself talks to it over stdio.
func TestServeOverStdio(t *testing.T) {
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.NewDB(t)
	// Without a token, stdio refuses to start.
	cmd := exec.Command(bin, "serve", "--transport", "stdio", "--db", db.AppDSN, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "PLUMBLINE_TOKEN=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "needs a token in $PLUMBLINE_TOKEN") {
		t.Errorf("stdio without a token: %v\n%s", err, out)
	}
	cmd = exec.Command(bin, "serve", "--transport", "stdio", "--db", db.AppDSN, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "PLUMBLINE_TOKEN=plb_not-a-token")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "is not a valid token") {
		t.Errorf("stdio with a bad token: %v\n%s", err, out)
	}
	code, token, errOut := runCLI(t, "token", "create", "--service", "stdio-test", "--db", db.AppDSN)
	if code != 0 || !strings.HasPrefix(token, "plb_") {
		t.Fatalf("token create: exit %d\n%s%s", code, token, errOut)
	}
	cmd = exec.Command(bin, "serve", "--transport", "stdio", "--db", db.AppDSN, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "PLUMBLINE_TOKEN="+strings.TrimSpace(token))
	var warnings syncBuffer
	cmd.Stderr = &warnings
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 5 {
		t.Fatalf("tools/list over stdio: %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales",
		Arguments: json.RawMessage(`{"who":{"floor":true},"period":{"start":"2026-11-02","end":"2026-11-08"},"group_by":"team"}`)})
	if err != nil || res.IsError {
		t.Fatalf("sales over stdio: %v %v", res, err)
	}
	var a struct {
		Rows    [][]any
		Metrics map[string]struct{ Definition string }
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &a)
	if len(a.Rows) < 3 || a.Metrics["close_rate"].Definition == "" {
		t.Errorf("sales over stdio answered %s", b)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"},"extra":1}`)})
	if err != nil || !res.IsError {
		t.Errorf("an unknown field over stdio: %v %v", res, err)
	}
	// No one signs in over stdio, so nothing warns of sign-in.
	if strings.Contains(warnings.String(), "sign-in") {
		t.Errorf("stdio warns of the sign-in it does not use:\n%s", warnings.String())
	}
}

// `plumbline demo` starts its own PostgreSQL, loads the floor, prints how to
// connect and serves until interrupted; a second run reuses the cluster, on
// the same port, with the same token, so that the first run's printed
// configurations (the HTTP token, the Claude Desktop entry over stdio)
// still work on the second. The banner goes to stdout, the logs to stderr.
// The printed token is the Falcons' lead's, who sees that team alone, and
// says so; the floor manager's, kept beside it, sees the floor, and a third
// run with --as floor-manager prints theirs, the one kept.
func TestDemo(t *testing.T) {
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The cluster runs as the postgres user when tests run as root, so its
	// directory must not sit inside the test's private temporary directory.
	dir, err := os.MkdirTemp("", "plumbline-demo-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	addr := freeAddr(t)
	var first struct{ url, token, desktop, metrics, floorToken string }
	for run := 1; run <= 3; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb syncBuffer
		done := make(chan int)
		args := []string{"demo", "--dir", dir, "--addr", addr, "--now", "2026-11-18T14:30:00-05:00"}
		if run == 3 {
			args = append(args, "--as", "floor-manager")
		}
		go func() { done <- runWith(ctx, args, &out, &errb) }()
		url := waitFor(t, &out, regexp.MustCompile(`MCP endpoint \(Streamable HTTP\): (\S+)`), done)
		token := waitFor(t, &out, regexp.MustCompile(`--header "Authorization: Bearer (plb_\S+)"`), done)
		desktop := waitFor(t, &out, regexp.MustCompile(`(?s)\n(\{\n  "mcpServers".*?\n\})\n`), done)
		metricsURL := waitFor(t, &out, regexp.MustCompile(`Metrics \(Prometheus\): +(\S+)`), done)
		floorToken, err := os.ReadFile(filepath.Join(dir, "floor-manager-token"))
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 {
			first.url, first.token, first.desktop, first.metrics = url, token, desktop, metricsURL
			first.floorToken = strings.TrimSpace(string(floorToken))
		} else if strings.TrimSpace(string(floorToken)) != first.floorToken {
			t.Errorf("run %d replaced the floor manager's kept token", run)
		}
		if run == 3 {
			if url != first.url || token != first.floorToken {
				t.Errorf("run 3, --as floor-manager, printed %s %s, not the first run's endpoint and the floor manager's kept token %s", url, token, first.floorToken)
			}
			for _, want := range []string{"Access token, for Dana Whitfield (dana.whitfield@floor.example)",
				"Dana Whitfield is the floor manager, so this token sees the whole floor: a\n  call that leaves out who is about the floor.",
				"the lead of the\nFalcons, Brandon Myers (brandon.myers@floor.example)",
				`export PLUMBLINE_TOKEN="$(cat ` + filepath.Join(dir, "demo-token") + `)"`,
				"plumbline demo without --as prints these configurations with theirs."} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("run 3 does not print %q:\n%s", want, out.String())
				}
			}
		} else if url != first.url || token != first.token || desktop != first.desktop || metricsURL != first.metrics {
			t.Errorf("run 2 printed another configuration:\n%s %s %s\n%s\nthan run 1:\n%s %s %s\n%s", url, token, metricsURL, desktop,
				first.url, first.token, first.metrics, first.desktop)
		}
		if kept, err := os.ReadFile(filepath.Join(dir, "demo-token")); err != nil || strings.TrimSpace(string(kept)) != first.token {
			t.Errorf("run %d: %s holds %q (%v), not the lead's token printed first", run, filepath.Join(dir, "demo-token"), kept, err)
		}
		// Without the token the endpoint answers 401; with the first run's,
		// the printed configuration connects.
		tr := &mcp.StreamableClientTransport{Endpoint: first.url, MaxRetries: -1}
		if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, tr, nil); err == nil {
			t.Error("the demo answered without a token")
		}
		tr = &mcp.StreamableClientTransport{Endpoint: first.url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: oauth.BearerTransport(first.token, http.DefaultTransport)}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("run %d: the first run's token over HTTP: %v", run, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(`{"who":{"team":"falcons"},"period":{"named":"yesterday"}}`)})
		if err != nil || res.IsError {
			t.Fatalf("run %d: sales on the demo: %v %v", run, res, err)
		}
		cs.Close()
		// The first run's Claude Desktop entry, run as Claude Desktop runs
		// it (with this build of plumbline for the command).
		callDesktopEntry(t, ctx, bin, first.desktop)
		fams := scrape(t, metricsURL)
		if v, _ := value(fams, `plumbline_tool_calls_total{tool="sales",outcome="ok"}`); v != 1 {
			t.Errorf("run %d: the demo's metrics count %v sales calls, want 1", run, v)
		}
		for _, want := range []string{"claude mcp add --transport http plumbline " + url + ` --header "Authorization: Bearer ` + token + `"`,
			`"mcpServers"`, `"PLUMBLINE_TOKEN": "` + token + `"`, "Database, for psql:",
			"signed in as plumbline_app", `"postgres://plumbline_app@127.0.0.1:`,
			"npx -y @modelcontextprotocol/inspector@" + terminal.InspectorVersion + " --cli " + url,
			"MCP Inspector " + terminal.InspectorVersion + " (needs Node.js " + terminal.InspectorNode + " or newer)"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("run %d: the demo does not print %q", run, want)
			}
		}
		if strings.Contains(out.String(), `"level":`) || !strings.Contains(errb.String(), `"level":"INFO"`) {
			t.Errorf("run %d: the logs are not on stderr alone, as JSON lines:\nstdout:\n%s\nstderr:\n%s", run, out.String(), errb.String())
		}
		if run > 1 && strings.Contains(out.String(), "Applied") {
			t.Errorf("run %d applied migrations again", run)
		}
		if run == 1 {
			for _, want := range []string{"Access token, for Brandon Myers (brandon.myers@floor.example)",
				"Brandon Myers leads the Falcons, so this token sees the Falcons and the\n  floor's totals: a call that leaves out who is about the Falcons",
				"manager, Dana Whitfield (dana.whitfield@floor.example), sees every team",
				`export PLUMBLINE_TOKEN="$(cat ` + filepath.Join(dir, "floor-manager-token") + `)"`,
				"plumbline demo --as floor-manager prints these configurations with theirs.",
				" access list --db postgres://plumbline_app@"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the demo does not print %q:\n%s", want, out.String())
				}
			}
			// The lead's token: a call without who is about the Falcons, and
			// one about the Hawks is refused; the floor manager's sees the floor.
			for _, c := range []struct{ token, args, who string }{
				{first.token, `{"period":{"named":"yesterday"}}`, `{"key":"falcons","kind":"team","name":"Falcons"}`},
				{first.token, `{"who":{"team":"Hawks"},"period":{"named":"yesterday"}}`, "forbidden"},
				{first.floorToken, `{"period":{"named":"yesterday"}}`, `{"kind":"floor","name":"the floor"}`},
			} {
				if got := salesWho(t, ctx, url, c.token, c.args); got != c.who {
					t.Errorf("sales %s with the %s token: who %s, want %s", c.args, map[bool]string{true: "lead's", false: "floor manager's"}[c.token == first.token], got, c.who)
				}
			}
		}
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("run %d: demo exited %d\n%s\n%s", run, code, out.String(), errb.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the demo did not stop on interrupt")
		}
		if !strings.Contains(out.String(), "Stopping PostgreSQL") {
			t.Errorf("run %d did not stop PostgreSQL", run)
		}
	}
}

// salesWho calls sales over HTTP with a token and returns whom the answer
// is about (its request's who, as JSON), or the refusal's code.
func salesWho(t *testing.T, ctx context.Context, url, token, args string) string {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: oauth.BearerTransport(token, http.DefaultTransport)}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Request struct{ Who json.RawMessage }
		Error   struct{ Code string }
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		return body.Error.Code
	}
	return string(body.Request.Who)
}

// callDesktopEntry runs a printed Claude Desktop entry as Claude Desktop
// does, with bin for its command, and makes a call through it over stdio.
func callDesktopEntry(t *testing.T, ctx context.Context, bin, desktop string) {
	t.Helper()
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		}
	}
	if err := json.Unmarshal([]byte(desktop), &cfg); err != nil {
		t.Fatalf("the Claude Desktop entry is not JSON: %v\n%s", err, desktop)
	}
	entry, ok := cfg.MCPServers["plumbline"]
	if !ok || !filepath.IsAbs(entry.Command) {
		t.Fatalf("the Claude Desktop entry: %s", desktop)
	}
	cmd := exec.Command(bin, append(entry.Args, "--log-level", "warn")...)
	cmd.Env = os.Environ()
	for k, v := range entry.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("the Claude Desktop entry does not start: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hours", Arguments: json.RawMessage(`{"who":{"team":"falcons"},"period":{"named":"yesterday"}}`)})
	if err != nil || res.IsError {
		t.Errorf("a call through the Claude Desktop entry: %v %v", res, err)
	}
}

func runWith(ctx context.Context, args []string, out, errw *syncBuffer) int {
	return run(ctx, args, &streams{in: strings.NewReader(""), out: out, err: errw})
}

func waitFor(t *testing.T, out *syncBuffer, re *regexp.Regexp, done chan int) string {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("the demo exited %d before serving:\n%s", code, out.String())
		case <-deadline:
			t.Fatalf("the demo did not start serving:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Flags come from the environment when the command line leaves them unset,
// and --help never shows a value taken from the environment.
func TestFlagsFromTheEnvironment(t *testing.T) {
	t.Setenv("PLUMBLINE_DB", "postgres://app:s3cretpassword@db/floor")
	t.Setenv("PLUMBLINE_STATEMENT_TIMEOUT", "7s")
	_, out, _ := runCLI(t, "help", "serve")
	if strings.Contains(out, "s3cretpassword") {
		t.Errorf("--help shows a value from the environment:\n%s", out)
	}
	f := newFlags("x", "", &streams{out: io.Discard, err: io.Discard})
	db := f.string("db", "", "database")
	timeout := f.duration("statement-timeout", time.Second, "timeout")
	addr := f.string("addr", "127.0.0.1:8080", "address")
	if _, err := f.parse([]string{"--addr", "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if *db != "postgres://app:s3cretpassword@db/floor" || *timeout != 7*time.Second || *addr != "127.0.0.1:9" {
		t.Errorf("db %q, timeout %v, addr %q", *db, *timeout, *addr)
	}
	t.Setenv("PLUMBLINE_STATEMENT_TIMEOUT", "soon")
	f = newFlags("x", "", &streams{out: io.Discard, err: io.Discard})
	f.duration("statement-timeout", time.Second, "timeout")
	if _, err := f.parse(nil); err == nil || !strings.Contains(err.Error(), "$PLUMBLINE_STATEMENT_TIMEOUT: \"soon\" is not valid; write a duration") {
		t.Errorf("a bad environment value: %v", err)
	}
	// A secret's bad value is not repeated.
	t.Setenv("PLUMBLINE_LOG_SECRET", "")
	if code, _, errOut := runCLI(t, "serve", "--db", "postgres://nowhere.invalid/x", "--log-secret", "tooshort"); code != 2 || strings.Contains(errOut, "tooshort") {
		t.Errorf("a short --log-secret: exit %d: %s", code, errOut)
	}
}

// serve teaches the choices of --text-content and --client-cache-ttl before it
// connects anywhere, and takes them from the environment too.
func TestTextContentAndCacheFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--db", "postgres://nowhere.invalid/x", "--text-content", "xml"},
		{"serve", "--db", "postgres://nowhere.invalid/x", "--client-cache-ttl", "0s"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, args[3][2:]) || !strings.Contains(errOut, "reader, json") && !strings.Contains(errOut, "must be positive") ||
			strings.Contains(errOut, "nowhere") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	t.Setenv("PLUMBLINE_TEXT_CONTENT", "xml")
	if code, _, errOut := runCLI(t, "serve", "--db", "postgres://nowhere.invalid/x"); code != 2 || !strings.Contains(errOut, "$PLUMBLINE_TEXT_CONTENT: \"xml\" is not valid; the choices are reader, json") {
		t.Errorf("PLUMBLINE_TEXT_CONTENT=xml: exit %d: %s", code, errOut)
	}
}

// plumbline version and --version print the version, the commit a build
// from a checkout records, and the catalogue's version.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	want := "plumbline " + mcpserver.Version + "\n"
	if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "\ncatalogue: "+catalogVersion(t)+" (the embedded demo catalogue)\n") {
		t.Errorf("version: exit %d\n%s", code, out)
	}
	if code, again, _ := runCLI(t, "--version"); code != 0 || again != out {
		t.Errorf("--version: exit %d\n%s", code, again)
	}
	if code, _, errOut := runCLI(t, "version", "--catalog", "../../testdata/check/broken"); code != 1 || !strings.Contains(errOut, "load catalogue") {
		t.Errorf("version of a broken catalogue: exit %d\n%s", code, errOut)
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	built, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := regexp.MustCompile(`\ncommit: (\S+)\n`).FindStringSubmatch(string(built))
	if commit == nil {
		t.Fatalf("the built binary's version names no commit:\n%s", built)
	}
	// Go records the commit of a checkout whose .git is a directory (not
	// of a git worktree, whose .git is a file).
	if info, err := os.Stat("../../.git"); err == nil && info.IsDir() {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		if h := strings.TrimSpace(string(head)); commit[1] != h && commit[1] != h+"-modified" {
			t.Errorf("the built binary names commit %s, the checkout is at %s", commit[1], h)
		}
	} else if commit[1] != "unknown" {
		t.Errorf("a build outside a checkout names commit %s", commit[1])
	}
}

// The Inspector command the demo prints pins the Inspector the tests run,
// and names the Node.js its lockfile says it needs.
func TestInspectorPin(t *testing.T) {
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string
			Engines map[string]string
		}
	}
	for file, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(filepath.Join("../../internal/clienttest", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if got := pkg.DevDependencies["@modelcontextprotocol/inspector"]; got != terminal.InspectorVersion {
		t.Errorf("the tests run the Inspector %s, the demo prints %s", got, terminal.InspectorVersion)
	}
	locked := lock.Packages["node_modules/@modelcontextprotocol/inspector"]
	if locked.Version != terminal.InspectorVersion || locked.Engines["node"] != ">="+terminal.InspectorNode+".0" {
		t.Errorf("the lockfile holds the Inspector %s needing Node.js %s; the demo prints %s needing %s",
			locked.Version, locked.Engines["node"], terminal.InspectorVersion, terminal.InspectorNode)
	}
}
