package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// runBench runs the command with args against buffers.
func runBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// serverDir holds the plumbline binary buildServer built, if a test asked
// for it; the test binary removes it when it is done.
var serverDir string

// buildServer builds plumbline, the server measured, once for the tests
// that measure one.
var buildServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "plumbline-bench-bin-")
	if err != nil {
		return "", err
	}
	serverDir = dir
	bin := filepath.Join(dir, "plumbline")
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "../plumbline").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if serverDir != "" {
		os.RemoveAll(serverDir)
	}
	os.Exit(code)
}

// --help opens with the usage and lists every flag, the baseline among
// them; arguments or a bad flag are usage errors that point to it; and
// with no --bin and no plumbline beside the command, it says what to do
// before it starts anything.
func TestHelpAndUsage(t *testing.T) {
	code, out, _ := runBench(t, "--help")
	if code != 0 || !strings.HasPrefix(out, "Usage: plumbline-bench [flags]") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	for _, flag := range []string{"agents", "baseline", "bin", "bytes", "cache-mib", "soak", "soak-rate", "json", "charts"} {
		if !strings.Contains(out, "\n  -"+flag+" ") && !strings.Contains(out, "\n  -"+flag+"\n") {
			t.Errorf("--help lists no -%s:\n%s", flag, out)
		}
	}
	for _, args := range [][]string{{"serve"}, {"--frobnicate"}, {"--levels", "0"}} {
		if code, _, errOut := runBench(t, args...); code != 2 || !strings.Contains(errOut, `Run "plumbline-bench --help" for usage.`) {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	if code, _, errOut := runBench(t, "--rounds", "1"); code != 2 || !strings.Contains(errOut, "no plumbline binary beside this one") || !strings.Contains(errOut, "--bin") {
		t.Errorf("no server to measure: exit %d, %s", code, errOut)
	}
}
