package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// commands are plumbline's subcommands, by name; each one's help text
// and code live in its own file.
var commands = map[string]command{
	"access":    {summary: "grant, revoke and list who may see which teams (reach)", help: helpText("access"), run: accessCmd},
	"ask":       {summary: "call a report from the terminal and print it as a table", help: helpText("ask"), run: askCommand},
	"config":    {summary: "print the settings serve would run with, each with where it came from", help: helpText("config"), run: configCmd},
	"check":     {summary: "check a catalogue directory against the rules", help: helpText("check"), run: check},
	"contract":  {summary: "write the tools' contract (names, schemas, instructions) as JSON", help: helpText("contract"), run: writeContract},
	"demo":      {summary: "serve the demo floor on a private PostgreSQL (start here)", help: helpText("demo"), run: demo},
	"docs":      {summary: "render the catalogue as a static HTML site", help: helpText("docs"), run: docs},
	"explain":   {summary: "show the resolved request and the SQL a report call compiles to", help: helpText("explain"), run: explain},
	"members":   {summary: "import the directory's members from a CSV or JSON export", help: helpText("members"), run: membersCmd},
	"guard":     {summary: "list what plumbline's database login can reach beyond its grants", help: helpText("guard"), run: runGuard},
	"health":    {summary: "ask a server on this machine for /healthz (the image's health check)", help: helpText("health"), run: health},
	"prune-log": {summary: "delete request-log calls older than the audit horizon, and spent sign-in state", help: helpText("prune-log"), run: pruneLog},
	"serve":     {summary: "serve the reports over MCP (Streamable HTTP or stdio)", help: helpText("serve"), run: serve},
	"scim":      {summary: "create, list and revoke the SCIM endpoint's tokens", help: helpText("scim"), run: scimCmd},
	"setup":     {summary: "create plumbline's roles and login and apply the grants (as an administrator)", help: helpText("setup"), run: setup},
	"token":     {summary: "create, list and revoke access tokens (service identities)", help: helpText("token"), run: tokenCmd},
	"version":   {summary: "print the version, commit and catalogue version", help: helpText("version"), run: version},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}
