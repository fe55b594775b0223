package bench_test

import (
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"plumbline/internal/bench"
)

// bar is one bar of a chart as drawn.
type bar struct {
	series      int
	value       float64
	top, height float64
	title       string
}

// chartBars reads the bars of an SVG chart, failing the test unless the
// file is well-formed XML.
func chartBars(t *testing.T, file string) []bar {
	t.Helper()
	var doc struct {
		XMLName xml.Name `xml:"svg"`
		Rects   []struct {
			Series string `xml:"data-series,attr"`
			Value  string `xml:"data-value,attr"`
			Y      string `xml:"y,attr"`
			Height string `xml:"height,attr"`
			Title  string `xml:"title"`
		} `xml:"rect"`
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s is not SVG: %v", file, err)
	}
	var out []bar
	for _, r := range doc.Rects {
		if r.Series == "" {
			continue // the background and the legend's swatches
		}
		var b bar
		var errs [4]error
		b.series, errs[0] = strconv.Atoi(r.Series)
		b.value, errs[1] = strconv.ParseFloat(r.Value, 64)
		b.top, errs[2] = strconv.ParseFloat(r.Y, 64)
		b.height, errs[3] = strconv.ParseFloat(r.Height, 64)
		for _, err := range errs {
			if err != nil {
				t.Fatalf("%s: a bar %+v: %v", file, r, err)
			}
		}
		b.title = r.Title
		out = append(out, b)
	}
	return out
}

// checkChart checks that a chart draws want[series][group], every value a
// bar in its place, every bar's height in one proportion to its value, the
// positive ones standing on the zero line and the negative ones hanging
// from it.
func checkChart(t *testing.T, file string, want [][]float64) {
	t.Helper()
	bars := chartBars(t, file)
	n := 0
	for _, s := range want {
		n += len(s)
	}
	if len(bars) != n {
		t.Fatalf("%s: %d bars, want %d", file, len(bars), n)
	}
	// The scale and the zero line are read off the longest bar, whose
	// rounding moves them least.
	var scale, zero, longest float64
	for _, b := range bars {
		if math.Abs(b.value) > longest {
			longest, scale, zero = math.Abs(b.value), b.height/math.Abs(b.value), b.top+b.height
			if b.value < 0 {
				zero = b.top
			}
		}
	}
	next := make([]int, len(want)) // the next group of each series, bars in group order
	for i, b := range bars {
		if b.series < 0 || b.series >= len(want) || next[b.series] >= len(want[b.series]) {
			t.Fatalf("%s: bar %d of series %d is not one of the figures", file, i, b.series)
		}
		if v := want[b.series][next[b.series]]; math.Abs(b.value-v) > 1e-9 {
			t.Errorf("%s: series %d, group %d: a bar of %v, want %v", file, b.series, next[b.series], b.value, v)
		}
		next[b.series]++
		if b.value == 0 {
			continue
		}
		// Drawn to 0.01 units, so a bar may be off by that.
		if math.Abs(b.height-scale*math.Abs(b.value)) > 0.02 {
			t.Errorf("%s: the bar of %v is %.2f high, want %.2f (%.4f a ms, as the longest)", file, b.value, b.height, scale*math.Abs(b.value), scale)
		}
		// A positive bar stands on the zero line, a negative one hangs
		// from it.
		base := b.top + b.height
		if b.value < 0 {
			base = b.top
		}
		if math.Abs(base-zero) > 0.02 {
			t.Errorf("%s: the bar of %v rests at %.2f, not at the zero line at %.2f", file, b.value, base, zero)
		}
	}
}

// The charts draw every figure of every report tool to one scale, an added
// time below zero under the zero line; tools that run no report are left
// out.
func TestChartsDrawEveryFigureToScale(t *testing.T) {
	res := &bench.Result{Servers: []string{"plumbline", "baseline <b>"}}
	for _, tt := range []struct {
		tool       string
		statements int
		raw        float64
		p50, added [2]float64
	}{
		{"sales", 1, 2.9, [2]float64{4.26, 4.44}, [2]float64{1.36, 1.54}},
		{"roster", 0, 0, [2]float64{0.8, 0.9}, [2]float64{0, 0}},
		{"league", 2, 41.72, [2]float64{40.95, 42.09}, [2]float64{-0.77, 0.37}},
		{"hours", 1, 0.96, [2]float64{2.54, 2.67}, [2]float64{1.58, 1.71}},
	} {
		tr := &bench.ToolResult{Call: bench.Call{Tool: tt.tool}, Statements: tt.statements, RawP50: tt.raw}
		for i := range 2 {
			tr.Servers = append(tr.Servers, &bench.ServerResult{Server: res.Servers[i], P50: tt.p50[i], Added: tt.added[i]})
		}
		res.Tools = append(res.Tools, tr)
	}
	files, err := bench.Charts(res, t.TempDir())
	if err != nil || len(files) != 2 || filepath.Base(files[0]) != "latency.svg" || filepath.Base(files[1]) != "overhead.svg" {
		t.Fatalf("charts: %v %v", files, err)
	}
	checkChart(t, files[0], [][]float64{{2.9, 41.72, 0.96}, {4.26, 40.95, 2.54}, {4.44, 42.09, 2.67}})
	checkChart(t, files[1], [][]float64{{1.36, -0.77, 1.58}, {1.54, 0.37, 1.71}})
	// A server's name is text in the chart, not markup.
	var named bool
	for _, b := range chartBars(t, files[1]) {
		named = named || b.title == "baseline <b>: 1.54 ms"
	}
	if !named {
		t.Errorf("no bar is titled with the second server's name as written")
	}

	// Nothing added at all still draws an axis, and bars of nothing.
	for _, tr := range res.Tools {
		for _, s := range tr.Servers {
			s.Added = 0
		}
	}
	files, err = bench.Charts(res, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkChart(t, files[1], [][]float64{{0, 0, 0}, {0, 0, 0}})
	if raw, _ := os.ReadFile(files[1]); strings.Contains(string(raw), "NaN") || strings.Contains(string(raw), "Inf") {
		t.Errorf("a chart of nothing added draws at no number: %s", raw)
	}
}
