package chartview_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/chartview"
	"plumbline/internal/pgtest"
	"plumbline/internal/servetest"
)

// host is plumbline on a demo floor, served over Streamable HTTP, and a
// go-sdk client that tells it it renders MCP Apps views.
func host(t *testing.T) *mcp.ClientSession {
	t.Helper()
	url := servetest.New(t, pgtest.NewDB(t), nil).URL(t)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(chartview.Extension, map[string]any{"mimeTypes": []string{chartview.MIMEType}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "0"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// browser starts Debian's chromium headless on a fresh profile and opens the
// test host page. It fails, saying what to install, when chromium is missing.
func browser(t *testing.T, harness string) context.Context {
	t.Helper()
	exe := os.Getenv("PLUMBLINE_CHROMIUM")
	if exe == "" {
		var err error
		if exe, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("chromium is not on PATH: install Debian's chromium (apt-get install chromium chromium-driver; .ci/run does) or set PLUMBLINE_CHROMIUM")
		}
	}
	page, err := os.ReadFile(harness)
	if err != nil {
		t.Fatalf("the test host page was not built: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	t.Cleanup(srv.Close)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(900, 6000), // tall: a frame paints only what is on screen
		// The view's sandboxed iframe stays in the page's process, so the
		// test reads it through the page's own DevTools session. Chromium
		// would otherwise give it a process and a target of its own, and
		// chromedp's attach to an existing target (WithTargetID) races: it
		// fills in the frame's node map on the caller's goroutine while its
		// event loop reads that map unlocked (v0.23.0, target.go domEvent).
		chromedp.Flag("disable-features", "IsolateSandboxedIframes"))
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("start chromium (%s): %v", exe, err)
	}
	return ctx
}

// view is one tool result drawn by the chart view in the test host.
type view struct {
	name   string
	answer answer
	page   context.Context            // the host page
	world  runtime.ExecutionContextID // the test's own world in the view's frame
	facts  facts
}

// answer is the part of a tool's structured content the checks read.
type answer struct {
	Request struct {
		Tool    string `json:"tool"`
		GroupBy string `json:"group_by"`
	} `json:"request"`
	Columns  []string  `json:"columns"`
	Rows     [][]any   `json:"rows"`
	Sections []section `json:"sections"`
	Metrics  map[string]struct {
		Label, Unit, Definition, SalesBasis string
		DefinitionRef                       string `json:"definition_ref"`
		DataThrough                         struct {
			RunsTo          *string `json:"runs_to"`
			CompleteThrough *string `json:"complete_through"`
		} `json:"data_through"`
	} `json:"metrics"`
	Period struct {
		Start, End string
		TimeZone   string `json:"time_zone"`
	} `json:"period"`
	DataThrough map[string]struct {
		RunsTo          *string `json:"runs_to"`
		CompleteThrough *string `json:"complete_through"`
	} `json:"data_through"`
	Notes          []string `json:"notes"`
	NoteRefs       []string `json:"note_refs"`
	PartialMetrics []string `json:"partial_metrics"`
}

type section struct {
	ID      string   `json:"id"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Total   []any    `json:"total"`
}

// facts is what the rendered page shows, read from its DOM.
type facts struct {
	Rendered string `json:"rendered"`
	Theme    string `json:"theme"`
	Bg       string `json:"bg"`
	Panels   []struct {
		Metric   string   `json:"metric"`
		Title    string   `json:"title"`
		Points   []point  `json:"points"`
		Previous []point  `json:"previous"` // the hollow bars of the previous figures
		Targets  []target `json:"targets"`
		Base     struct { // the baseline: a horizontal line at y1 for columns, a vertical one at x1 for a ranking
			X1 float64 `json:"x1"`
			Y1 float64 `json:"y1"`
		} `json:"base"`
		Floor *struct {
			Value string `json:"value"`
			Line  bool   `json:"line"`
			Text  string `json:"text"`
		} `json:"floor"`
	} `json:"panels"`
	Metrics  map[string]string `json:"metrics"` // visible text of each metric's entry
	Sources  map[string]string `json:"sources"` // visible text of each source's data_through row
	Period   string            `json:"period"`
	Basis    string            `json:"basis"`
	Notes    string            `json:"notes"`
	NoteRefs string            `json:"noteRefs"`
	Legend   string            `json:"legend"`
	Governed bool              `json:"governed"` // the governed section is on screen
	Tables   []int             `json:"tables"`   // body rows of each visible table
}

type point struct {
	Key    string  `json:"key"`
	State  string  `json:"state"`
	Value  string  `json:"value"`
	Bars   int     `json:"bars"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Fill   string  `json:"fill"`
	Title  string  `json:"title"` // what the mark says to a pointer or a screen reader
}

// target is a target's mark: a line, at Pos x1, x2, y1, y2.
type target struct {
	Key   string    `json:"key"`
	Value string    `json:"value"`
	Lines int       `json:"lines"`
	Pos   []float64 `json:"pos"`
	Title string    `json:"title"`
}

// readFacts collects what the view shows; innerText holds only what is
// rendered, so hidden text does not count.
const readFacts = `(() => {
  const text = (el) => el ? el.innerText : "";
  const box = (el) => { const r = el && el.getBoundingClientRect(); return !!r && r.width > 0 && r.height > 0; };
  const f = { rendered: document.getElementById("app").dataset.rendered || "", theme: document.documentElement.dataset.theme || "",
    bg: getComputedStyle(document.body).backgroundColor, panels: [], metrics: {}, sources: {},
    period: text(document.querySelector(".governed .period")), basis: text(document.querySelector(".governed .basis")),
    notes: text(document.querySelector(".governed .notes")), noteRefs: text(document.querySelector(".governed .note-refs")),
    legend: text(document.querySelector(".legend")),
    governed: box(document.querySelector(".governed")), tables: [] };
  const marks = (svg, sel) => [...svg.querySelectorAll(sel)].map((g) => { const r = g.querySelector("rect"); const b = r ? r.getBBox() : { x: 0, y: 0, width: 0, height: 0 };
    return { key: g.dataset.key, state: g.dataset.state, value: g.dataset.value, bars: g.querySelectorAll("rect").length,
      x: b.x, y: b.y, width: b.width, height: b.height, fill: r ? r.getAttribute("fill") || "" : "",
      title: (g.querySelector("title") || {}).textContent || "" }; });
  for (const svg of document.querySelectorAll("svg[data-metric]")) {
    const floor = svg.querySelector(".floor");
    const base = svg.querySelector("line.baseline");
    f.panels.push({ metric: svg.dataset.metric, title: (svg.querySelector(":scope > title") || {}).textContent || "",
      points: marks(svg, ".point"), previous: marks(svg, ".previous"),
      targets: [...svg.querySelectorAll(".target")].map((g) => { const l = g.querySelector("line");
        return { key: g.dataset.key, value: g.dataset.value, lines: g.querySelectorAll("line").length,
          pos: l ? ["x1", "x2", "y1", "y2"].map((a) => l[a].baseVal.value) : [], title: (g.querySelector("title") || {}).textContent || "" }; }),
      base: { x1: base ? base.x1.baseVal.value : 0, y1: base ? base.y1.baseVal.value : 0 },
      floor: floor ? { value: floor.dataset.value, line: !!floor.querySelector(".floor-line"), text: floor.textContent } : null });
  }
  for (const m of document.querySelectorAll(".governed .metric")) f.metrics[m.dataset.metric] = text(m);
  for (const r of document.querySelectorAll(".governed tr[data-source]")) f.sources[r.dataset.source] = text(r);
  for (const t of document.querySelectorAll("table.figures")) if (box(t)) f.tables.push(t.tBodies[0].rows.length);
  return f;
})()`

// show loads the view named by a tool's _meta into the test host, delivers
// the tool's result for args, waits for the view to draw it, and reads what
// it shows.
func show(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tools map[string]*mcp.Tool, name, tool, args, theme string) *view {
	t.Helper()
	ui, _ := tools[tool].Meta["ui"].(map[string]any)
	uri, _ := ui["resourceUri"].(string)
	if uri == "" {
		t.Fatalf("tool %s names no view", tool)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	v := &view{name: name}
	sc, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(sc, &v.answer); err != nil {
		t.Fatal(err)
	}
	csp := rr.Contents[0].Meta["ui"].(map[string]any)["csp"]
	load, _ := json.Marshal(map[string]any{"html": rr.Contents[0].Text, "csp": csp, "tool": tools[tool], "input": json.RawMessage(args), "result": res, "theme": theme})

	before := map[cdp.FrameID]bool{}
	for _, f := range frames(t, ctx) {
		before[f.ID] = true
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("plumblineHost.load("+string(load)+")", chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("%s: load the view: %v", name, err)
	}
	// Once the host has delivered the result, the new srcdoc frame is the
	// view's for good. Its document is read through a world of the test's
	// own in that frame: the view's DOM, not its scripts.
	deadline := time.Now().Add(20 * time.Second)
	for v.world == 0 {
		status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames(t, ctx) {
			if status == "delivered" && f.URL == "about:srcdoc" && !before[f.ID] {
				v.page = ctx
				world, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (page.CreateIsolatedWorldResult, error) {
					return cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f.ID, WorldName: "plumbline-test"})
				})
				if err != nil {
					t.Fatalf("%s: reach the view's frame: %v", name, err)
				}
				v.world = world.ExecutionContextID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the view's frame never appeared (host: %s)", name, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for rendered := false; !rendered; time.Sleep(50 * time.Millisecond) {
		v.eval(t, `!!document.querySelector("#app[data-rendered]")`, &rendered)
		if !rendered && time.Now().After(deadline) {
			status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
			var page string
			v.eval(t, `document.body.innerText`, &page)
			t.Fatalf("%s: the view drew nothing (host: %s; view: %.300q)", name, status, page)
		}
	}
	v.read(t)
	if v.facts.Rendered == "failed" {
		var page string
		v.eval(t, `document.body.innerText`, &page)
		t.Fatalf("%s: %s", name, page)
	}
	return v
}

// eval evaluates expression in the view's frame and decodes its value into
// out (nil: the value is dropped).
func (v *view) eval(t *testing.T, expression string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(v.page, 20*time.Second)
	defer cancel()
	yes := true
	res, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (runtime.EvaluateResult, error) {
		return cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, ContextID: v.world,
			ReturnByValue: &yes, AwaitPromise: &yes})
	})
	if err == nil && res.ExceptionDetails != nil {
		err = fmt.Errorf("%s", res.ExceptionDetails.Text)
	}
	if err == nil && out != nil {
		err = json.Unmarshal(res.Result.Value, out)
	}
	if err != nil {
		t.Fatalf("%s: evaluate in the view: %v", v.name, err)
	}
}

func (v *view) read(t *testing.T) {
	t.Helper()
	v.facts = facts{}
	v.eval(t, readFacts, &v.facts)
}

// frames lists the page's frames below the top one.
func frames(t *testing.T, ctx context.Context) []*cdp.Frame {
	t.Helper()
	tree, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (page.GetFrameTreeResult, error) {
		return cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []*cdp.Frame
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		for _, c := range ft.ChildFrames {
			out = append(out, c.Frame)
			walk(c)
		}
	}
	walk(tree.FrameTree)
	return out
}

// screenshot writes the host page with the view in it as a PNG, to a path
// that stays the same from run to run ($PLUMBLINE_SCREENSHOTS, or
// plumbline-views under the temporary directory), and logs the path.
func (v *view) screenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	dir := os.Getenv("PLUMBLINE_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "plumbline-views")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("iframe")))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", v.name, err)
	}
	path := filepath.Join(dir, v.name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", v.name, path)
}

// tables opens the table behind the toggle.
func (v *view) tables(t *testing.T) {
	t.Helper()
	v.eval(t, `document.querySelector("button.toggle").click()`, nil)
	v.read(t)
}

func contains(s []string, v string) bool { return slices.Contains(s, v) }
