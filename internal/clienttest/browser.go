package clienttest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium starts a headless Chromium for a test, or fails the test with
// what to install. PLUMBLINE_CHROMIUM names the binary; otherwise chromium
// is looked for on PATH. The context it returns drives the browser for a
// minute; the browser is closed when the test ends.
func Chromium(t testing.TB) context.Context {
	t.Helper()
	path := os.Getenv("PLUMBLINE_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("this test needs Chromium: install Debian's chromium package (.ci/run does) or set PLUMBLINE_CHROMIUM")
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// The browser lives as long as the context of its first run, so that
	// one has no timeout; the actions after it do.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return tctx
}
