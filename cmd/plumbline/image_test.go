package main

import (
	"archive/tar"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
)

var imageFlag = flag.String("image", "", "the image to test, as make image writes it (a docker-archive tar)")

// imageConfig is what the test reads of an image's configuration.
type imageConfig struct {
	Config struct {
		User        string
		Env         []string
		Entrypoint  []string
		Healthcheck struct{ Test []string }
	} `json:"config"`
	Architecture string `json:"architecture"`
}

// unpackImage unpacks the docker-archive at path into dir, its layers in
// order, and returns its configuration.
func unpackImage(t *testing.T, path, dir string) imageConfig {
	t.Helper()
	files := map[string][]byte{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (make image-test builds the image first)", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
	}
	var manifest []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("the archive's manifest.json: %v", err)
	}
	var cfg imageConfig
	if err := json.Unmarshal(files[manifest[0].Config], &cfg); err != nil {
		t.Fatal(err)
	}
	for _, layer := range manifest[0].Layers {
		extract(t, files[layer], dir)
	}
	return cfg
}

// extract writes a layer's files, directories and links under dir.
func extract(t *testing.T, layer []byte, dir string) {
	t.Helper()
	tr := tar.NewReader(strings.NewReader(string(layer)))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(target, b, h.FileInfo().Mode().Perm())
			}
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, target)
		case tar.TypeLink:
			err = os.Link(filepath.Join(dir, filepath.Clean("/"+h.Linkname)), target)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The image holds what plumbline needs and nothing else, runs as a user
// of its own, and its entry point serves reports from its root file
// system alone: unpacked and run in a chroot (no C library, no shell),
// plumbline version answers, then serve answers a report over HTTP on a
// private PostgreSQL, and the image's health check passes.
func TestImage(t *testing.T) {
	if *imageFlag == "" {
		t.Fatal("no image: make image-test builds it and runs this test with -image")
	}
	if os.Geteuid() != 0 {
		t.Fatal("the image test runs the image in a chroot, which needs root")
	}
	root := t.TempDir()
	cfg := unpackImage(t, *imageFlag, root)
	c := cfg.Config
	if cfg.Architecture != "amd64" || c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/plumbline", "serve"}) ||
		!slices.Equal(c.Healthcheck.Test, []string{"CMD", "/plumbline", "health"}) {
		t.Fatalf("the image's configuration: %+v", cfg)
	}
	var size int64
	filepath.Walk(root, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	t.Logf("the image's files: %.1f MB", float64(size)/1e6)
	for _, f := range []string{"plumbline", "etc/ssl/certs/ca-certificates.crt", "usr/share/zoneinfo/America/New_York", "etc/passwd"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the image lacks /%s", f)
		}
	}
	for _, f := range []string{"bin/sh", "lib", "usr/lib"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("the image holds /%s; it needs nothing but plumbline's own files", f)
		}
	}

	// inImage runs a command in the image's root as its user, with its
	// environment and env after it.
	inImage := func(ctx context.Context, env []string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, "chroot", append([]string{"--userspec=" + c.User, root}, args...)...)
		cmd.Env = append(slices.Clone(c.Env), env...)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 30 * time.Second
		return cmd
	}
	out, err := inImage(context.Background(), nil, c.Entrypoint[0], "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "plumbline ") {
		t.Fatalf("plumbline version in the image: %v\n%s", err, out)
	}
	t.Logf("in the image: %s", strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", "; "))

	db := pgtest.NewDB(t)
	addr := freeAddr(t)
	env := []string{"PLUMBLINE_ADDR=" + addr, "PLUMBLINE_DB=" + db.AppDSN}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := inImage(ctx, env, c.Entrypoint...)
	var logs syncBuffer
	serve.Stderr = &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		serve.Wait()
		done <- serve.ProcessState.ExitCode()
	}()
	public := "http://" + addr
	if url := waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done); url != public+"/mcp" {
		t.Fatalf("the image serves %s, want %s", url, public+"/mcp")
	}
	if out, err := inImage(ctx, env, c.Healthcheck.Test[1:]...).CombinedOutput(); err != nil || !strings.HasSuffix(string(out), "/healthz: ok\n") {
		t.Errorf("the image's health check: %v\n%s", err, out)
	}
	code, token, errOut := runCLI(t, "token", "create", "--service", "image", "--db", db.AppDSN, "--public-url", public)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "image-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: public + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: oauth.BearerTransport(strings.TrimSpace(token), http.DefaultTransport)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales",
		Arguments: json.RawMessage(`{"who":{"team":"Falcons"},"period":{"named":"last_week"}}`)})
	if err != nil || res.IsError {
		t.Fatalf("a report from the image: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"time_zone":"America/New_York"`) {
		t.Errorf("the image's answer names no time zone:\n%s", b)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve in the image exited %d on SIGTERM:\n%s", code, logs.String())
	}
}
