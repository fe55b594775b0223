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

// Charts draws, for each report tool, the median latency of the raw SQL and
// of each server's MCP call in the paired rounds, and each server's added
// time over the raw SQL, as PNG files in dir. It returns the files it
// wrote.
func Charts(res *Result, dir string) ([]string, error) {
	var names []string
	p50 := make([]plotter.Values, len(res.Servers)+1) // raw first
	added := make([]plotter.Values, len(res.Servers))
	for _, t := range res.Tools {
		if t.Statements == 0 {
			continue
		}
		names = append(names, t.Tool)
		p50[0] = append(p50[0], t.RawP50)
		for i, s := range t.Servers {
			p50[i+1] = append(p50[i+1], s.P50)
			added[i] = append(added[i], s.Added)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no report tool was measured, so there is nothing to chart")
	}
	colors := []color.Color{color.RGBA{R: 224, G: 130, B: 20, A: 255}, color.RGBA{R: 46, G: 92, B: 168, A: 255},
		color.RGBA{R: 140, G: 140, B: 140, A: 255}, color.RGBA{R: 90, G: 160, B: 90, A: 255}}
	w := vg.Points(12)
	bars := func(p *plot.Plot, series []plotter.Values, labels []string, colors []color.Color) error {
		top := 0.0
		for i, v := range series {
			b, err := plotter.NewBarChart(v, w)
			if err != nil {
				return err
			}
			b.Offset = vg.Length(float64(i)-float64(len(series)-1)/2) * w
			b.Color, b.LineStyle.Width = colors[i%len(colors)], 0
			p.Add(b)
			p.Legend.Add(labels[i], b)
			top = max(top, floats.Max(v))
		}
		p.Legend.Top, p.Legend.Left = true, true
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
		p.Y.Min, p.Y.Max = 0, 1.35*top
		return nil
	}
	latency := plot.New()
	latency.Title.Text = "Median latency, paired rounds, one call at a time"
	latency.Y.Label.Text = "ms"
	labels := []string{"same SQL with pgx"}
	for _, s := range res.Servers {
		labels = append(labels, s+": whole MCP call over HTTP")
	}
	if err := bars(latency, p50, labels, colors); err != nil {
		return nil, err
	}
	share := plot.New()
	share.Title.Text = "Added time over the raw SQL (median of paired differences)"
	share.Y.Label.Text = "ms"
	if err := bars(share, added, res.Servers, colors[1:]); err != nil {
		return nil, err
	}

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
