package terminal

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
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
	Login                     string // the database login the server signs in as
	URL, BaseURL              string // the MCP endpoint and the public base URL
	AdminDSN, AppDSN          string // the superuser's connection, for psql, and the login's
	MetricsURL                string // empty when no metrics are served
	ManagerName, ManagerEmail string // whom the token is for
	Token                     string
	TokenTTL                  time.Duration
	TokenEnv                  string   // where the stdio transport reads its token from
	Exe                       string   // this plumbline binary, absolute
	StdioArgs                 []string // serve's arguments for a stdio client
	KeptIn                    string   // the cluster's directory
}

// Write prints the banner to w.
func (b DemoBanner) Write(w io.Writer) error {
	desktop, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"plumbline": map[string]any{"command": b.Exe, "args": b.StdioArgs, "env": map[string]string{b.TokenEnv: b.Token}},
	}}, "", "  ")
	if err != nil {
		return err
	}
	return demoTemplate.Execute(w, struct {
		DemoBanner
		Desktop, Valid, InspectorVersion, InspectorNode string
	}{b, string(desktop), durationWords(b.TokenTTL), InspectorVersion, InspectorNode})
}

// durationWords says a token lifetime in days or hours.
func durationWords(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	return d.String()
}
