package views_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
	"plumbline/internal/store"
	"plumbline/internal/views"
	"plumbline/reports"
)

// host is plumbline on a demo floor, served over Streamable HTTP, and a
// go-sdk client that tells it it renders MCP Apps views.
func host(t *testing.T) *mcp.ClientSession {
	t.Helper()
	db := pgtest.NewDB(t)
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), db.DSN, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := reports.New(cat, st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet})
	ts := httptest.NewServer(mcpserver.HTTPHandler(mcpserver.New(engine, &mcpserver.Options{Logger: quiet})))
	t.Cleanup(ts.Close)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "0"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
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
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(900, 6000)) // tall: a frame paints only what is on screen
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
	frame  context.Context // the view's own frame, a separate target
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
		Metric string  `json:"metric"`
		Title  string  `json:"title"`
		Points []point `json:"points"`
		Floor  *struct {
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
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Fill   string  `json:"fill"`
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
  for (const svg of document.querySelectorAll("svg[data-metric]")) {
    const floor = svg.querySelector(".floor");
    f.panels.push({ metric: svg.dataset.metric, title: (svg.querySelector(":scope > title") || {}).textContent || "",
      points: [...svg.querySelectorAll(".point")].map((g) => { const r = g.querySelector("rect.bar"); const b = r ? r.getBBox() : { width: 0, height: 0 };
        return { key: g.dataset.key, state: g.dataset.state, value: g.dataset.value, bars: g.querySelectorAll("rect").length,
          width: b.width, height: b.height, fill: r ? r.getAttribute("fill") || "" : "" }; }),
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

	var before []target.ID
	for _, f := range frames(t, ctx) {
		before = append(before, f.TargetID)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("plumblineHost.load("+string(load)+")", chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("%s: load the view: %v", name, err)
	}
	// The view's document lives in a frame of its own (a sandboxed,
	// opaque-origin iframe is a separate target); once the host has
	// delivered the result, the frame's target is the view's for good.
	deadline := time.Now().Add(20 * time.Second)
	for v.frame == nil {
		status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames(t, ctx) {
			if status == "delivered" && f.URL == "about:srcdoc" && !slices.Contains(before, f.TargetID) {
				// Not cancelled: that would close the frame's target. The
				// browser's context ends it with the page.
				// The first action attaches, for the life of the context it
				// runs on, so it runs on the frame's own context.
				v.frame, _ = chromedp.NewContext(ctx, chromedp.WithTargetID(f.TargetID))
				if err := chromedp.Do(v.frame); err != nil {
					t.Fatalf("%s: attach to the view's frame: %v", name, err)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the view's frame never appeared (host: %s)", name, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wait, cancel := context.WithTimeout(v.frame, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.WaitReady(chromedp.CSS("#app[data-rendered]"))); err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
		page, _ := chromedp.Run(v.frame, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: the view drew nothing (host: %s; view: %.300q): %v", name, status, page, err)
	}
	v.read(t)
	if v.facts.Rendered == "failed" {
		page, _ := chromedp.Run(wait, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: %s", name, page)
	}
	return v
}

func (v *view) read(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(v.frame, 20*time.Second)
	defer cancel()
	f, err := chromedp.Run(ctx, chromedp.Evaluate[facts](readFacts))
	if err != nil {
		t.Fatalf("%s: read the page: %v", v.name, err)
	}
	v.facts = f
}

// frames lists the iframe targets open now.
func frames(t *testing.T, ctx context.Context) []*target.Info {
	t.Helper()
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(infos, func(i *target.Info) bool { return i.Type != "iframe" })
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
	ctx, cancel := context.WithTimeout(v.frame, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelector("button.toggle").click()`)); err != nil {
		t.Fatalf("%s: open the table: %v", v.name, err)
	}
	v.read(t)
}

func contains(s []string, v string) bool { return slices.Contains(s, v) }
