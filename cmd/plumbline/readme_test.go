package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// runnable finds the README's shell blocks marked runnable: a line
// "<!-- runnable -->" right before the block's opening fence.
var runnable = regexp.MustCompile("(?s)<!-- runnable -->\n```sh\n(.*?)```\n")

// Every README block marked runnable works as written, in bash and in
// zsh, run as a newcomer runs it: from the checkout (here a directory
// holding the binary where make build puts it and the catalogue), against
// plumbline demo serving on the README's address (here a free one, put in
// its place) with its cluster in .plumbline.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := runnable.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 3 {
		t.Fatalf("the README marks %d blocks runnable; the workbench, configuration and health blocks at least are", len(blocks))
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The cluster runs as the postgres user when tests run as root, so it
	// must not sit in the test's private temporary directory.
	work, err := os.MkdirTemp("", "plumbline-readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	catalog, _ := filepath.Abs("../../catalog")
	os.Mkdir(filepath.Join(work, "bin"), 0o755)
	for link, target := range map[string]string{"bin/plumbline": bin, "catalog": catalog} {
		if err := os.Symlink(target, filepath.Join(work, link)); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, []string{"demo", "--dir", filepath.Join(work, ".plumbline"), "--addr", addr, "--now", nowFlag}, &out, &logs)
	}()
	waitFor(t, &out, regexp.MustCompile(`MCP endpoint \(Streamable HTTP\): (\S+)`), done)

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "LANG=C.UTF-8"}
	for _, shell := range []string{"bash", "zsh"} {
		for i, b := range blocks {
			script := strings.ReplaceAll(b[1], "127.0.0.1:8080", addr)
			cmd := exec.CommandContext(ctx, shell, "-e", "-o", "pipefail", "-c", script)
			cmd.Dir, cmd.Env = work, env
			if got, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: the README's runnable block %d fails: %v\n%s\n--- output:\n%s", shell, i+1, err, b[1], got)
			}
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("the demo exited %d:\n%s", code, logs.String())
	}
}

// readmeLimit is the most the README may hold: it is a guide for users,
// and the detail they look up lives where the code generates it (plumbline
// help COMMAND, the site plumbline docs renders, the contract snapshot in
// testdata/contract), not in the README.
const readmeLimit = 40 << 10

// The README stays a guide: at most readmeLimit bytes.
func TestReadmeIsAGuide(t *testing.T) {
	info, err := os.Stat("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := info.Size(); n > readmeLimit {
		t.Errorf("README.md holds %d bytes, %d over the guide's %d: move reference detail to the help texts (cmd/plumbline/help), the docs site or the contract, and link it", n, n-readmeLimit, readmeLimit)
	}
}

// The worked example is the engine's answer, so it cannot go stale: the
// README's request, asked of the demo floor at the example's moment, gives
// the rows, the period, the partial metrics and the agent-days left out
// that the README shows.
func TestReadmeWorkedExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, ok := readmeSection(string(readme), "A worked example")
	if !ok {
		t.Fatal(`the README has no section "A worked example"`)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```\n").FindAllStringSubmatch(section, -1)
	if len(blocks) < 2 {
		t.Fatalf("the worked example has %d JSON blocks; it shows the request and its answer", len(blocks))
	}
	request, shown := blocks[0][1], blocks[1][1]

	db := pgtest.NewDB(t)
	code, out, errOut := runCLI(t, "ask", "--db", db.DSN, "--now", nowFlag, "--json", "sales", request)
	if code != 0 {
		t.Fatalf("the worked example's request: exit %d: %s", code, errOut)
	}
	var answer struct {
		Rows           any            `json:"rows"`
		Period         map[string]any `json:"period"`
		PartialMetrics any            `json:"partial_metrics"`
		Metrics        map[string]struct {
			LeftOut *int `json:"left_out"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		t.Fatalf("the answer is not JSON: %v\n%s", err, out)
	}
	for _, field := range []struct {
		name, pattern string
		want          any
	}{
		{"rows", `(?s)"rows": (\[\[.*?\]\]),`, answer.Rows},
		{"period", `"period": (\{[^}]*\})`, answer.Period},
		{"partial_metrics", `"partial_metrics": (\[[^]]*\])`, answer.PartialMetrics},
	} {
		m := regexp.MustCompile(field.pattern).FindStringSubmatch(shown)
		if m == nil {
			t.Errorf("the worked example does not show its %s", field.name)
			continue
		}
		var got any
		if err := json.Unmarshal([]byte(m[1]), &got); err != nil {
			t.Errorf("the worked example's %s is not JSON: %v", field.name, err)
			continue
		}
		if want, _ := json.Marshal(field.want); !jsonEqual(t, want, got) {
			t.Errorf("the worked example shows %s %s; the engine answers %s", field.name, m[1], want)
		}
	}
	for name, metric := range answer.Metrics {
		if metric.LeftOut != nil && !strings.Contains(section, fmt.Sprintf("%d agent-days", *metric.LeftOut)) {
			t.Errorf("%s leaves out %d agent-days, which the worked example does not say", name, *metric.LeftOut)
		}
	}
}

// readmeSection returns the README's section under the heading "## name",
// up to the next heading of its level.
func readmeSection(readme, name string) (string, bool) {
	_, section, ok := strings.Cut(readme, "\n## "+name+"\n")
	if !ok {
		return "", false
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i+1]
	}
	return section, true
}

// jsonEqual says whether the JSON want decodes to got.
func jsonEqual(t *testing.T, want []byte, got any) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(w, got)
}
