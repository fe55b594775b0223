package terminal

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"
	"time"
)

// The MCP Inspector the demo's printed command runs: the version plumbline's
// tests run (internal/clienttest/package.json) and the Node.js it needs (its
// engines field); a test holds them to the lockfile.
const (
	InspectorVersion = "2.12.0"
	InspectorNode    = "22.19"
)

//go:embed demo.tmpl
var demoText string

var demoTemplate = template.Must(template.New("demo").Parse(demoText))

// DemoBanner is what plumbline demo prints once it serves: how a newcomer
// points each kind of client at it, with the ready token in every
// configuration.
type DemoBanner struct {
	Login            string // the database login the server signs in as
	URL, BaseURL     string // the MCP endpoint and the public base URL
	AdminDSN, AppDSN string // the superuser's connection, for psql, and the login's
	MetricsURL       string // empty when no metrics are served
	// Lead leads Team and sees only it; FloorManager sees the whole floor.
	// Token is the lead's, or the floor manager's when AsFloorManager.
	Lead, FloorManager DemoPerson
	Team               string
	AsFloorManager     bool
	Token              string
	TokenTTL           time.Duration
	TokenEnv           string   // where the stdio transport reads its token from
	Exe                string   // this plumbline binary, absolute
	StdioArgs          []string // serve's arguments for a stdio client
	KeptIn             string   // the cluster's directory
}

// DemoPerson is one of the demo's two people with a ready token.
type DemoPerson struct {
	Name, Email string
	TokenFile   string // where their token is kept
}

// Write prints the banner to w.
func (b DemoBanner) Write(w io.Writer) error {
	desktop, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"plumbline": map[string]any{"command": b.Exe, "args": b.StdioArgs, "env": map[string]string{b.TokenEnv: b.Token}},
	}}, "", "  ")
	if err != nil {
		return err
	}
	who, other := b.Lead, b.FloorManager
	run := "--as floor-manager"
	sees := fmt.Sprintf("%s leads the %s, so this token sees the %s and the floor's totals: a call that leaves out who is about the %s, {\"floor\": true} gives the floor's totals, and a call about another team is refused.",
		who.Name, b.Team, b.Team, b.Team)
	others := fmt.Sprintf("Each team lead sees their own team and the floor's totals, and the floor manager, %s (%s), sees every team. The floor manager's token is kept beside this one; for plumbline ask:",
		other.Name, other.Email)
	if b.AsFloorManager {
		who, other = b.FloorManager, b.Lead
		run = "without --as"
		sees = fmt.Sprintf("%s is the floor manager, so this token sees the whole floor: a call that leaves out who is about the floor.", who.Name)
		others = fmt.Sprintf("Each team lead sees their own team and the floor's totals: the lead of the %s, %s (%s), has a token kept beside this one; for plumbline ask:",
			b.Team, other.Name, other.Email)
	}
	return demoTemplate.Execute(w, struct {
		DemoBanner
		Who, Other                                      DemoPerson
		Sees, Others, Run                               string
		Desktop, Valid, InspectorVersion, InspectorNode string
	}{b, who, other, indent("  ", sees), strings.Join(wrap(others, 76), "\n"), run,
		string(desktop), durationWords(b.TokenTTL), InspectorVersion, InspectorNode})
}

// indent wraps text at 76 columns, each line after prefix.
func indent(prefix, text string) string {
	lines := wrap(text, 76-len(prefix))
	return prefix + strings.Join(lines, "\n"+prefix)
}

// durationWords says a token lifetime in days or hours.
func durationWords(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	return d.String()
}
