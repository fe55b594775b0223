package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// gated is the real store, but its reading of how far the quality source is
// loaded waits until the test opens the gate: a slow source.
type gated struct {
	ask.Store
	gate    chan struct{}
	waiting chan struct{}
}

func (g *gated) Coverage(ctx context.Context, sources []*catalog.Source) (map[string]ask.Coverage, error) {
	if slices.ContainsFunc(sources, func(s *catalog.Source) bool { return s.ID == "agent_quality_daily" }) {
		g.waiting <- struct{}{}
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Store.Coverage(ctx, sources)
}

// One slow source delays only the reports that read it: while the quality
// source's reading hangs, sales and hours answer, and so does quality once
// the reading comes back.
func TestASlowSourceDelaysOnlyItsReports(t *testing.T) {
	f := newFloor(t)
	g := &gated{Store: f.store, gate: make(chan struct{}), waiting: make(chan struct{}, 1)}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := reports.New(f.engine.Catalog(), g, &reports.Options{Now: func() time.Time { return f.db.Now }, Logger: quiet, Cache: reports.NewAnswerCache(0)})
	ctx := context.Background()
	args := json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"}}`)
	quality := make(chan *reports.Answer, 1)
	go func() { quality <- e.Call(ctx, someone, "quality", args) }()
	select {
	case <-g.waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the quality report never read its source")
	}
	for _, tool := range []string{"sales", "hours"} {
		done := make(chan *reports.Answer, 1)
		go func() { done <- e.Call(ctx, someone, tool, args) }()
		select {
		case a := <-done:
			if a.Refusal != nil {
				t.Errorf("%s while quality hangs: %+v", tool, a.Refusal)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s waited on the quality source's reading", tool)
		}
	}
	select {
	case <-quality:
		t.Fatal("the quality report answered before its source did")
	default:
	}
	close(g.gate)
	if a := <-quality; a.Refusal != nil {
		t.Errorf("quality once its source answers: %+v", a.Refusal)
	}
}
