package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Charts draws the median latency of each report tool over MCP and as raw
// SQL, and the overhead share, at the first level of concurrency, as PNG
// files in dir. It returns the files it wrote.
func Charts(res *Result, dir string) ([]string, error) {
	var names []string
	var mcpP50, sqlP50, overhead plotter.Values
	level := res.Levels[0]
	for _, t := range res.Tools {
		o, ok := t.Overhead(level)
		if !ok {
			continue
		}
		names = append(names, t.Tool)
		mcpP50 = append(mcpP50, t.MCP[0].P50)
		sqlP50 = append(sqlP50, t.SQL[0].P50)
		overhead = append(overhead, 100*o)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no report tool was measured, so there is nothing to chart")
	}
	latency := plot.New()
	latency.Title.Text = fmt.Sprintf("Median latency at %d client(s)", level)
	latency.Y.Label.Text = "ms"
	w := vg.Points(14)
	bars := func(v plotter.Values, offset vg.Length, c color.Color, label string) error {
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return err
		}
		b.Offset, b.Color, b.LineStyle.Width = offset, c, 0
		latency.Add(b)
		latency.Legend.Add(label, b)
		return nil
	}
	if err := bars(mcpP50, -w/2, color.RGBA{R: 46, G: 92, B: 168, A: 255}, "whole MCP call over HTTP"); err != nil {
		return nil, err
	}
	if err := bars(sqlP50, w/2, color.RGBA{R: 224, G: 130, B: 20, A: 255}, "same SQL with pgx"); err != nil {
		return nil, err
	}
	latency.Legend.Top, latency.Legend.Left = true, true
	latency.NominalX(names...)
	latency.X.Min, latency.X.Max = -0.6, float64(len(names))-0.4
	latency.Y.Min, latency.Y.Max = 0, 1.35*max(floats.Max(mcpP50), floats.Max(sqlP50))

	share := plot.New()
	share.Title.Text = fmt.Sprintf("Overhead over the raw SQL at %d client(s)", level)
	share.Y.Label.Text = "% of the MCP call"
	b, err := plotter.NewBarChart(overhead, w)
	if err != nil {
		return nil, err
	}
	b.Color = color.RGBA{R: 46, G: 92, B: 168, A: 255}
	share.Add(b)
	share.NominalX(names...)
	share.Y.Min, share.Y.Max = 0, 100

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, chart := range []struct {
		name string
		plot *plot.Plot
	}{{"latency.png", latency}, {"overhead.png", share}} {
		file := filepath.Join(dir, chart.name)
		if err := chart.plot.Save(8*vg.Inch, 4*vg.Inch, file); err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return files, nil
}
