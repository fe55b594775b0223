package bench_test

import (
	"context"
	"testing"

	"plumbline/internal/bench"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
	"plumbline/internal/servetest"
)

// A bytes run measures every call in each of its modes over a real server:
// the figures are the same in every mode, so are their bytes, while the
// text a model reads shrinks with compact and known_definitions; the wire
// carries both blocks.
func TestMeasureBytes(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	// The wire is measured as a client on another machine gets it.
	served := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, _ *servetest.Floor) { o.Compress = mcpserver.CompressAlways }})
	cat := served.Engine.Catalog()
	res, err := bench.MeasureBytes(ctx, served.URL(t), "", db.Now, cat.Zone())
	if err != nil {
		t.Fatal(err)
	}
	if res.ToolsList < 1000 || res.ToolsListWire >= res.ToolsList/2 {
		t.Errorf("tools/list: %d bytes, %d on the wire", res.ToolsList, res.ToolsListWire)
	}
	byCall := map[string]map[string]*bench.CallBytes{}
	for _, c := range res.Calls {
		if byCall[c.Label] == nil {
			byCall[c.Label] = map[string]*bench.CallBytes{}
		}
		byCall[c.Label][c.Mode] = c
		// A response of 1 KiB or more goes compressed, a smaller one as it is.
		if c.Text == 0 || c.Structured == 0 || c.Response <= c.Structured+c.Text ||
			c.Response >= 1024 && c.Wire >= c.Response || c.Response < 1024 && c.Wire != c.Response {
			t.Errorf("%s (%s): text %d, structured %d, response %d, wire %d", c.Label, c.Mode, c.Text, c.Structured, c.Response, c.Wire)
		}
	}
	for _, call := range bench.ByteCalls {
		modes := byCall[call.Label]
		first := modes[bench.ModeFirst]
		if first == nil || call.Modes != (len(modes) == 3) || !call.Modes && len(modes) != 1 {
			t.Errorf("%s: measured in modes %v", call.Label, modes)
			continue
		}
		// Freshness dates count as figures of the structured content; its
		// text states them in sentences, not in a table.
		figures := call.Tool != "health" && call.Tool != "metric_definitions"
		textFigures := figures && call.Tool != "freshness"
		if textFigures != (first.TextFigures > 0) || figures != (first.StructuredFigures > 0) {
			t.Errorf("%s: %d figure bytes of text, %d of structured content", call.Label, first.TextFigures, first.StructuredFigures)
		}
		for _, mode := range []string{bench.ModeCompact, bench.ModeKnown} {
			if m := modes[mode]; m != nil && (m.TextFigures != first.TextFigures || m.StructuredFigures != first.StructuredFigures || m.Text >= first.Text) {
				t.Errorf("%s %s: text %d (figures %d), structured figures %d; first call text %d (figures %d), structured figures %d",
					call.Label, mode, m.Text, m.TextFigures, m.StructuredFigures, first.Text, first.TextFigures, first.StructuredFigures)
			}
		}
	}
}

// The figures of a text block are the lines of its tables below their
// headers, with each ratio's parts folded into its cell.
func TestTextFigureBytes(t *testing.T) {
	structured := []byte(`{"columns":["team","close_rate","close_rate_numerator","close_rate_denominator"],"rows":[["a",0.5,1,2],["b",null,0,0]],
		"sections":[{"columns":["week","n"],"rows":[["w1",3]],"total":["total",3]}],"people":[{"agent_key":"x","name":"X"}]}`)
	text := "sales for the floor\nteam,close_rate\na,0.5 (1/2)\nb,null (0/0)\nSection s\nweek,n\nw1,3\ntotal,3\nagent_key,name,email\nx,X,null\n"
	if got, want := bench.TextFigureBytes(text, structured), len("a,0.5 (1/2)\nb,null (0/0)\nw1,3\ntotal,3\nx,X,null\n"); got != want {
		t.Errorf("%d figure bytes, want %d", got, want)
	}
}
