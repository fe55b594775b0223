package bench

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
)

// Charts draws, for each report tool, the median latency of the raw SQL and
// of each server's MCP call in the paired rounds, and each server's added
// time over the raw SQL, as SVG files in dir. It returns the files it
// wrote.
//
// The charts are written as SVG by hand: a plotting library would bring its
// fonts into the binary, and with them several MiB of every server's
// resident memory, for two bar charts a browser draws as well.
func Charts(res *Result, dir string) ([]string, error) {
	var names []string
	p50 := make([][]float64, len(res.Servers)+1) // raw first
	added := make([][]float64, len(res.Servers))
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
	colors := []string{"#e08214", "#2e5ca8", "#8c8c8c", "#5aa05a"}
	labels := []string{"same SQL with pgx"}
	for _, s := range res.Servers {
		labels = append(labels, s+": whole MCP call over HTTP")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, c := range []struct {
		file, title string
		series      [][]float64
		labels      []string
		colors      []string
	}{
		{"latency.svg", "Median latency, paired rounds, one call at a time", p50, labels, colors},
		{"overhead.svg", "Added time over the raw SQL (median of paired differences)", added, res.Servers, colors[1:]},
	} {
		file := filepath.Join(dir, c.file)
		if err := os.WriteFile(file, barChart(c.title, names, c.series, c.labels, c.colors), 0o644); err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return files, nil
}

// The size of a chart and its margins, in SVG user units (pixels).
const (
	chartWidth, chartHeight         = 800, 400
	marginLeft, marginRight         = 60, 20
	marginTop, marginBottom         = 50, 40
	barWidth                        = 16
	plotWidth, plotHeight   float64 = chartWidth - marginLeft - marginRight, chartHeight - marginTop - marginBottom
)

// barChart draws series (one value per group, each series a bar in every
// group) as grouped bars over a labelled axis in milliseconds. Every bar
// carries its value as data-value, and its series as data-series.
func barChart(title string, groups []string, series [][]float64, labels, colors []string) []byte {
	lo, hi := 0.0, 0.0
	for _, s := range series {
		for _, v := range s {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	step := niceStep((hi - lo) / 5)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi*1.3/step)*step // room for the legend
	hi = max(hi, lo+step)                                          // all zero: an axis still
	y := func(v float64) float64 { return marginTop + plotHeight*(hi-v)/(hi-lo) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", chartWidth, chartHeight)
	fmt.Fprintf(&b, `<text x="%d" y="24" text-anchor="middle" font-size="15">%s</text>`+"\n", chartWidth/2, html.EscapeString(title))
	fmt.Fprintf(&b, `<text transform="translate(16 %.1f) rotate(-90)" text-anchor="middle">ms</text>`+"\n", marginTop+plotHeight/2)
	for k := 0.0; lo+k*step <= hi+step/2; k++ {
		v := math.Round((lo+k*step)/step) * step
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", marginLeft, marginLeft+plotWidth, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", marginLeft-6, y(v), tick(v, step))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", marginLeft, marginLeft+plotWidth, y(0), y(0))
	slot := plotWidth / float64(len(groups))
	for g, name := range groups {
		mid := marginLeft + slot*(float64(g)+0.5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", mid, chartHeight-marginBottom+18, html.EscapeString(name))
		for i, s := range series {
			v := s[g]
			x := mid + (float64(i)-float64(len(series))/2)*barWidth
			top, bottom := y(max(v, 0)), y(min(v, 0))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.2f" width="%d" height="%.2f" fill="%s" data-series="%d" data-value="%g"><title>%s: %.2f ms</title></rect>`+"\n",
				x, top, barWidth, bottom-top, colors[i%len(colors)], i, v, html.EscapeString(labels[i]), v)
		}
	}
	for i, label := range labels {
		ly := marginTop + 8 + 18*float64(i)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="12" height="12" fill="%s"/>`+"\n", marginLeft+10, ly, colors[i%len(colors)])
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", marginLeft+28, ly+6, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceStep returns the axis step of 1, 2, 2.5 or 5 times a power of ten
// nearest above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// tick labels an axis value with as many decimals as the step has.
func tick(v, step float64) string {
	decimals := 0
	for scaled := step; decimals < 6 && math.Abs(scaled-math.Round(scaled)) > 1e-9; scaled *= 10 {
		decimals++
	}
	if v == 0 {
		v = 0 // not -0
	}
	return fmt.Sprintf("%.*f", decimals, v)
}
