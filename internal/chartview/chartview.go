package chartview

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"

	"plumbline/catalog"
)

// Extension is the MCP Apps extension's identifier.
const Extension = "io.modelcontextprotocol/ui"

// MIMEType is the content type of an MCP Apps HTML view.
const MIMEType = "text/html;profile=mcp-app"

//go:embed dist/view.html
var chartHTML string

// View is one UI resource.
type View struct {
	URI         string
	Name        string
	Title       string
	Description string
	HTML        string
}

// Chart is the chart view. Its URI ends in the first 12 hex digits of the
// SHA-256 of its HTML.
var Chart = &View{
	URI:   "ui://plumbline/chart/" + digest(chartHTML),
	Name:  "chart",
	Title: "plumbline chart",
	Description: "Draws a report's figures (by day or week), team_weeks and league as charts, " +
		"with each definition, data_through, the period, the counting basis and the notes beneath.",
	HTML: chartHTML,
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// Canned reports the chart draws beside the catalogue's own reports.
const (
	toolTeamWeeks = "team_weeks"
	toolLeague    = "league"
)

// For returns the view that draws a tool's answers, if one does: the chart
// for every report the catalogue declares (a chart when grouped by day or
// week, a table otherwise), for team_weeks and for league.
func For(cat *catalog.Catalog, tool string) (*View, bool) {
	if tool == toolTeamWeeks || tool == toolLeague {
		return Chart, true
	}
	if _, ok := cat.Report(tool); ok {
		return Chart, true
	}
	return nil, false
}

// ResourceMeta is the resource's _meta: the content security policy the host
// is to enforce (no domains at all: the view fetches nothing, scripts and
// styles are inline) and a request for a visible border.
func ResourceMeta() map[string]any {
	return map[string]any{
		"ui": map[string]any{
			"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
			"prefersBorder": true,
		},
	}
}

// ToolMeta is the _meta a tool carries to name the view that draws its
// answers: ui.resourceUri, the form the MCP Apps extension settled on (its
// earlier flat ui/resourceUri key is left out, to keep the tool list lean).
func (v *View) ToolMeta() map[string]any {
	return map[string]any{"ui": map[string]any{"resourceUri": v.URI}}
}
