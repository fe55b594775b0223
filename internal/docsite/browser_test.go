package docsite_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The site in a real headless Chromium, opened from disk as an analyst
// would: every page loads with no console error, every link and asset
// resolves, and the search box finds a metric. Screenshots are left for a
// person to look at.
func TestSiteInABrowser(t *testing.T) {
	chrome := chromium(t)
	dir, cat := buildDemo(t)
	shots := screenshotDir(t)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	opts = append(opts, chromedp.DefaultExecAllocatorOptions[:]...)
	// This machine's network is closed: Chromium must not try to reach out.
	for _, f := range []string{"no-sandbox", "disable-gpu", "disable-quic", "no-first-run", "disable-background-networking",
		"disable-component-update", "disable-sync"} {
		opts = append(opts, chromedp.Flag(f, true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium (%s): %v", chrome, err)
	}

	// Console errors and warnings, uncaught exceptions and the browser's
	// own log (a stylesheet or script that failed to load) are problems.
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("console %s: %s (%s)", m.Type, m.Text, m.URL))
				mu.Unlock()
			}
		}
	}()
	drain := func(where string) {
		// Messages arrive on their own goroutine; let the last ones land.
		chromedp.Do(ctx, chromedp.Sleep(50*time.Millisecond))
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("%s: %s", where, p)
		}
		problems = nil
	}

	var pages []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".html") {
			pages = append(pages, path)
		}
		return err
	})
	if want := len(cat.Metrics()) + 3; len(pages) != want {
		t.Fatalf("%d pages, want %d", len(pages), want)
	}
	checked := 0
	for _, page := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(fileURL(page)), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
			t.Fatalf("load %s: %v", page, err)
		}
		links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("a[href]")].map(a => a.href)
			.concat([...document.querySelectorAll("link[href]")].map(l => l.href))
			.concat([...document.querySelectorAll("script[src]")].map(s => s.src))`))
		if err != nil {
			t.Fatalf("read the links of %s: %v", page, err)
		}
		for _, link := range links {
			if problem := resolve(link); problem != "" {
				t.Errorf("%s: %s", rel(dir, page), problem)
			}
			checked++
		}
		styled, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header")).display`))
		if err != nil || styled != "flex" {
			t.Errorf("%s: the stylesheet did not apply (header display %q, %v)", rel(dir, page), styled, err)
		}
		drain(rel(dir, page))
	}
	t.Logf("%d pages, %d links and assets resolved", len(pages), checked)

	// Search from the index: typing two words of a label finds the metric,
	// and following the first result opens its page.
	first := chromedp.CSS("#search-results li:first-child a")
	err := chromedp.Do(ctx,
		chromedp.Navigate(fileURL(filepath.Join(dir, "index.html"))),
		chromedp.WaitReady(chromedp.CSS("#search")),
		chromedp.SendKeys(chromedp.CSS("#search"), "close rate"),
		chromedp.WaitVisible(first),
	)
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	href, err := chromedp.Run(ctx, chromedp.AttributeValue(first, "href"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(first))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(href.Value, "metrics/close_rate.html") || !strings.Contains(text, "Close rate") {
		t.Errorf("searching \"close rate\" finds %q (%s) first, want the close_rate page", text, href.Value)
	}
	save(t, ctx, shots, "index-search.png")

	if err := chromedp.Do(ctx, chromedp.Click(first), chromedp.WaitVisible(chromedp.CSS("article.metric"))); err != nil {
		t.Fatalf("follow the search result: %v", err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	if err != nil {
		t.Fatal(err)
	}
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(location, "metrics/close_rate.html") || !strings.Contains(heading, "Close rate") {
		t.Errorf("the search result opened %s with heading %q", location, heading)
	}
	save(t, ctx, shots, "metric-close_rate.png")

	// Words only a definition holds find their metric from a metric page,
	// whose result links reach back up to the site's root.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#search"), "carrier approved"),
		chromedp.WaitVisible(chromedp.CSS("#search-results a")),
	)
	if err != nil {
		t.Fatalf("search from a metric page: %v", err)
	}
	results, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#search-results a")].map(a => a.href)`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(results, func(u string) bool { return strings.HasSuffix(u, "/metrics/approved_sales.html") }) {
		t.Errorf("searching \"carrier approved\" from a metric page finds %v, want approved_sales", results)
	}
	drain("searching")
}

// chromium finds Debian's Chromium, or $PLUMBLINE_CHROMIUM. There is no
// skip: without a browser the test fails and says how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PLUMBLINE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium for the docs site's browser test: install Debian's chromium (apt-get install chromium; .ci/run does) " +
		"or set PLUMBLINE_CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// screenshotDir is where screenshots are kept after the test:
// $PLUMBLINE_SCREENSHOTS, else plumbline-docsite under the temporary
// directory.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("PLUMBLINE_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "plumbline-docsite")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// save writes a screenshot of the whole page.
func save(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG; less is JPEG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func fileURL(path string) string {
	abs, _ := filepath.Abs(path)
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return r
}

// resolve checks that a link stays on disk and reaches an existing file
// and, for a fragment, an element with that id. It returns the problem.
func resolve(link string) string {
	u, err := url.Parse(link)
	switch {
	case err != nil:
		return "an unreadable link " + link
	case u.Scheme != "file":
		return "a link off the site: " + link
	}
	body, err := os.ReadFile(filepath.FromSlash(u.Path))
	if err != nil {
		return "a broken link: " + link
	}
	if u.Fragment != "" && !strings.Contains(string(body), `id="`+u.Fragment+`"`) {
		return "a link to a missing anchor: " + link
	}
	return ""
}
