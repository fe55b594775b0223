package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/server"
	"plumbline/internal/telemetry"
	"plumbline/reports"
)

// serverFlags are the flags serve and demo share: the server's own, which
// package server registers and reads, and those naming what cmd loads.
type serverFlags struct {
	server.Settings
	auth                                 server.Auth
	catalogDir, grantsDir, analystGrants *string
	roles                                *roleFlags
}

// addServerFlags adds the server's flags; demo adds the logins' names, for
// the demo, which creates them, and turns the metrics on by default.
func addServerFlags(f *flags, demo bool) *serverFlags {
	sf := &serverFlags{
		catalogDir:    f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)"),
		grantsDir:     addGrantsFlag(f),
		analystGrants: addAnalystGrantsFlag(f),
		roles:         addRoleFlags(f, demo),
	}
	f.register(func(fs *flag.FlagSet) {
		sf.Settings.RegisterFlags(fs, demo)
		sf.auth.RegisterFlags(fs)
		sf.auth.RegisterPruneFlag(fs)
	})
	return sf
}

// open loads the catalogue and the grant files the flags name, completes
// the settings with them, the clock now and log, and opens the server.
func (sf *serverFlags) open(ctx context.Context, dsn string, now func() time.Time, log *slog.Logger, callers server.Callers) (*server.Server, error) {
	cat, err := loadCatalog(*sf.catalogDir)
	if err != nil {
		return nil, fmt.Errorf("load catalogue:\n%w", err)
	}
	if sf.Roles, err = sf.roles.roles(); err != nil {
		return nil, err
	}
	if sf.Grants, err = loadGrants(*sf.grantsDir); err != nil {
		return nil, err
	}
	if sf.Analyst.DSN != "" {
		if sf.Analyst.Grants, err = loadAnalystGrants(*sf.analystGrants); err != nil {
			return nil, err
		}
	}
	sf.Catalog, sf.Now, sf.Log, sf.auth.Role = cat, now, log, sf.Roles.Auth
	sf.Build = telemetry.Build{Version: mcpserver.Version, Commit: commit()}
	return server.Open(ctx, dsn, &sf.Settings, callers)
}

func serve(ctx context.Context, args []string, s *streams) error {
	f := newFlags("serve", helpText("serve"), s)
	db := f.string("db", "", "PostgreSQL connection `string` (required)")
	transport := f.string("transport", "http", "`transport`: http or stdio")
	sf := addServerFlags(f, false)
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	if *transport != "http" && *transport != "stdio" {
		return fmt.Errorf("%w: --transport must be http or stdio", errUsage)
	}
	log, err := logger(s.err, sf.LogLevel)
	if err != nil {
		return err
	}
	stopDebug, err := server.ServeDebug(sf.DebugAddr, log)
	if err != nil {
		return err
	}
	defer stopDebug()
	if *transport == "stdio" {
		token := os.Getenv(tokenEnv)
		if token == "" {
			return fmt.Errorf("%w: the stdio transport needs a token in $%s; create one with: plumbline token create --service NAME", errUsage, tokenEnv)
		}
		var recheck mcp.Middleware
		closeAuth := func() {}
		srv, err := sf.open(ctx, *db, time.Now, log, func(tools []string, m *telemetry.Metrics) (func(*mcp.CallToolRequest) reports.Caller, error) {
			caller, mw, closeStore, err := sf.auth.StdioIdentity(ctx, *db, sf.Addr, token, "$"+tokenEnv, tools, log, m)
			if err != nil {
				return nil, err
			}
			recheck, closeAuth = mw, closeStore
			return func(*mcp.CallToolRequest) reports.Caller { return caller }, nil
		})
		if err != nil {
			return err
		}
		defer srv.Close()
		defer closeAuth()
		_, stopMetrics, err := srv.ServeMetrics()
		if err != nil {
			return err
		}
		defer stopMetrics()
		srv.MCP.AddReceivingMiddleware(recheck)
		log.Info("serving MCP on stdio")
		return srv.MCP.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout))
	}
	srv, err := sf.open(ctx, *db, time.Now, log, httpCallers)
	if err != nil {
		return err
	}
	defer srv.Close()
	_, stopMetrics, err := srv.ServeMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	return srv.ServeHTTP(ctx, *db, &sf.auth, nil)
}

// httpCallers names each call's caller from its verified token.
func httpCallers(tools []string, _ *telemetry.Metrics) (func(*mcp.CallToolRequest) reports.Caller, error) {
	return oauth.Caller(tools), nil
}

// loadCatalog loads the catalogue in dir, or the embedded demo catalogue.
func loadCatalog(dir string) (*catalog.Catalog, error) {
	if dir == "" {
		return catalog.Demo()
	}
	return catalog.LoadDir(dir)
}
