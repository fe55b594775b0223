package docsite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"plumbline/catalog"
	"plumbline/internal/contract"
	"plumbline/internal/docsite"
	"plumbline/reports"
)

// grantsDir holds grant files with a full review, a one-line review and no
// review at all.
const grantsDir = "../../testdata/grants"

func TestReadGrants(t *testing.T) {
	grants, err := docsite.ReadGrants(grantsDir)
	if err != nil {
		t.Fatal(err)
	}
	sales := grants["metrics.agent_sales_daily"]
	want := docsite.Grant{Dir: grantsDir, File: "metrics.agent_sales_daily.sql", Relation: "metrics.agent_sales_daily",
		Grain: "agent (one row per agent per day)", ReviewedBy: "Dana Whitfield (data protection)", ReviewedOn: "2026-10-30",
		Why: "the sales reports sum submitted, lost and approved applications; the relation holds counts only, no member data."}
	if sales == nil || *sales != want {
		t.Errorf("sales grant = %+v\nwant %+v", sales, want)
	}
	if h := grants["metrics.agent_time_daily"]; h == nil || h.Grain != "agent" || !h.Reviewed() ||
		h.Review != "Sam Okafor, 2026-10-28: hours reports need logged, available and talk hours per agent-day." {
		t.Errorf("one-line review = %+v", h)
	}
	if a := grants["analytics.dim_agent"]; a == nil || a.Reviewed() || a.Grain != "agent" {
		t.Errorf("a grant without a review (relation from the file name) = %+v", a)
	}
	if len(grants) != 3 {
		t.Errorf("%d grants, want 3", len(grants))
	}
	none, err := docsite.ReadGrants(filepath.Join(t.TempDir(), "absent"))
	if err != nil || len(none) != 0 {
		t.Errorf("a missing grants directory: %v, %v", none, err)
	}
}

// buildDemo renders the demo catalogue with the fixture grants.
func buildDemo(t *testing.T) (string, *catalog.Catalog) {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	grants, err := docsite.ReadGrants(grantsDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := docsite.Build(&docsite.Site{Catalog: cat, Tools: contract.Tools(reports.New(cat, nil, nil)), Grants: grants}, dir); err != nil {
		t.Fatal(err)
	}
	return dir, cat
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A metric's page states everything the catalogue says about it.
func TestMetricPage(t *testing.T) {
	dir, cat := buildDemo(t)
	for _, m := range cat.Metrics() {
		if _, err := os.Stat(filepath.Join(dir, "metrics", m.ID+".html")); err != nil {
			t.Errorf("no page for %s: %v", m.ID, err)
		}
	}
	page := read(t, filepath.Join(dir, "metrics", "close_rate.html"))
	for _, want := range []string{
		"Close rate", "<dt>Unit</dt><dd>share</dd>",
		"Share of sales conversations that ended in a submitted application",
		"sum(submitted) / sum(submitted &#43; lost)",
		"<code>metrics.agent_sales_daily</code></a> (grain agent_day, nightly)",
		"Submitted (nightly CRM build)</a>: Applications submitted in the CRM",
		"a day is whole the next day at 06:00",
		`href="../index.html#report-sales"`,
		"Dana Whitfield (data protection), 2026-10-30",
		"the relation holds counts only, no member data.",
		"<dt>Canned reports</dt><dd><code>team_day</code>, <code>team_weeks</code>, <code>league</code></dd>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("close_rate's page lacks %q", want)
		}
	}
	// A ratio across two sources shows both, and the review of each.
	sph := read(t, filepath.Join(dir, "metrics", "sales_per_hour.html"))
	for _, want := range []string{
		"sum(metrics.agent_sales_daily: submitted) / sum(metrics.agent_time_daily: logged_hours)",
		"Sam Okafor, 2026-10-28: hours reports need logged",
	} {
		if !strings.Contains(sph, want) {
			t.Errorf("sales_per_hour's page lacks %q", want)
		}
	}
	// approved settles by its basis's rule; the board has no grant file.
	if p := read(t, filepath.Join(dir, "metrics", "approved_sales.html")); !strings.Contains(p, "a day is whole 14 days later at 06:00") {
		t.Errorf("approved_sales does not settle by the approved basis's rule")
	}
	if p := read(t, filepath.Join(dir, "metrics", "board_sales.html")); !strings.Contains(p, "No grant file yet") {
		t.Errorf("board_sales's source has no grant file, and its page does not say so")
	}
}

func TestIndexSourcesConceptsAndSearch(t *testing.T) {
	dir, cat := buildDemo(t)
	index := read(t, filepath.Join(dir, "index.html"))
	for _, rep := range cat.Reports() {
		if !strings.Contains(index, `id="report-`+rep.ID+`"`) {
			t.Errorf("the index has no section for report %s", rep.ID)
		}
		for _, m := range rep.Metrics {
			if !strings.Contains(index, `href="metrics/`+m.ID+`.html"`) {
				t.Errorf("the index does not link %s under %s", m.ID, rep.ID)
			}
		}
	}
	for _, tool := range []string{"metric_definitions", "health"} {
		if !strings.Contains(index, "<code>"+tool+"</code>") {
			t.Errorf("the index does not list the tool %s", tool)
		}
	}
	sources := read(t, filepath.Join(dir, "sources.html"))
	for _, want := range []string{`id="source-sales_board"`, "a day is whole the next day at 00:00", `id="basis-approved"`,
		"Null hours mean the day&#39;s hours have not come in yet", "the grant file names no review", "analytics.dim_agent"} {
		if !strings.Contains(sources, want) {
			t.Errorf("sources.html lacks %q", want)
		}
	}
	if c := read(t, filepath.Join(dir, "concepts.html")); !strings.Contains(c, `id="concept-talk_share"`) ||
		!strings.Contains(c, `href="metrics/talk_share.html"`) {
		t.Errorf("concepts.html does not list talk_share with its metric")
	}
	if c := read(t, filepath.Join(dir, "concepts.html")); !strings.Contains(c, `id="period-aep"`) || !strings.Contains(c, "From 10-15 to 12-07 every year.") {
		t.Errorf("concepts.html does not list the named period aep with its days")
	}
	js := read(t, filepath.Join(dir, "search-index.js"))
	var entries []struct{ Kind, ID, URL string }
	if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(js, "window.plumblineSearch = "), ";\n")), &entries); err != nil {
		t.Fatalf("search-index.js: %v", err)
	}
	if len(entries) == 0 || entries[0].Kind != "metric" {
		t.Fatalf("the search index does not start with metrics: %v", entries)
	}
	found := false
	for _, e := range entries {
		found = found || e.ID == "close_rate" && e.URL == "metrics/close_rate.html"
	}
	if !found {
		t.Errorf("the search index has no entry for close_rate")
	}
	for _, page := range []string{index, sources} {
		if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
			t.Errorf("a page refers to an external address")
		}
	}
}

// The analyst's allow-list has a page of its own: every relation of the
// analyst grant files with its grain and review, linked from every page.
func TestAnalystAllowList(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	allowList, err := docsite.ReadGrants("../../sql/analyst")
	if err != nil || len(allowList) != 8 {
		t.Fatalf("%d analyst grants (%v)", len(allowList), err)
	}
	dir := t.TempDir()
	if _, err := docsite.Build(&docsite.Site{Catalog: cat, Tools: contract.Tools(reports.New(cat, nil, nil)), Analyst: allowList}, dir); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(dir, "analyst.html"))
	for _, want := range []string{
		`id="relation-analytics.dim_agent"`, "<code>../../sql/analyst/analytics.dim_agent.sql</code>", "<dt>Grain</dt><dd>agent</dd>",
		"Dana Okafor, data platform; Sam Whitfield, compliance, 2026-12-01", "the agent dimension without the work email",
		`id="relation-metrics.agent_sales_daily"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("analyst.html lacks %q", want)
		}
	}
	if strings.Count(page, "<section id=\"relation-") != 8 || strings.Contains(page, "crm.member_calls") {
		t.Errorf("analyst.html lists %d relations", strings.Count(page, "<section id=\"relation-"))
	}
	if !strings.Contains(read(t, filepath.Join(dir, "index.html")), `href="analyst.html"`) {
		t.Error("the index does not link the analyst's allow-list")
	}
}
