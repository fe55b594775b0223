package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
