package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"plumbline/catalog"
	"plumbline/internal/config"
	"plumbline/internal/grants"
	"plumbline/internal/mcpserver"
	"plumbline/internal/server"
	"plumbline/internal/telemetry"
)

// serverFlags are the flags serve and demo share: the server's own, which
// package server registers and reads, and those naming what cmd loads.
type serverFlags struct {
	server.Settings
	auth       server.Auth
	catalogDir *string
	grants     grants.Dirs
}

// addServerFlags adds the server's flags; demo adds the logins' names, for
// the demo, which creates them, and turns the metrics on by default.
func addServerFlags(f *flags, demo bool) *serverFlags {
	sf := &serverFlags{
		catalogDir: f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)"),
	}
	f.register(func(fs *flag.FlagSet) {
		sf.grants.RegisterFlags(fs)
		sf.Roles.RegisterFlags(fs, demo)
		sf.Settings.RegisterFlags(fs, demo)
		sf.auth.RegisterFlags(fs)
		sf.auth.RegisterPruneFlag(fs)
		sf.auth.RegisterSCIMFlags(fs)
	})
	return sf
}

// settings loads the catalogue and the grant files the flags name and
// completes the server's settings with them, the clock now and log.
func (sf *serverFlags) settings(now func() time.Time, log *slog.Logger) (*server.Settings, error) {
	cat, err := loadCatalog(*sf.catalogDir)
	if err != nil {
		return nil, fmt.Errorf("load catalogue:\n%w", err)
	}
	if err := checkRoles(sf.Roles); err != nil {
		return nil, err
	}
	if sf.Grants, err = sf.grants.Load(); err != nil {
		return nil, err
	}
	if sf.Analyst.DSN != "" {
		if sf.Analyst.Grants, err = sf.grants.LoadAnalyst(); err != nil {
			return nil, err
		}
	}
	sf.Catalog, sf.Now, sf.Log, sf.auth.Role = cat, now, log, sf.Roles.Auth
	sf.Build = telemetry.Build{Version: mcpserver.Version, Commit: commit()}
	return &sf.Settings, nil
}

// serveCmd is serve's flag set, which plumbline config resolves too.
type serveCmd struct {
	*flags
	db, transport *string
	sf            *serverFlags
}

// newServeCmd registers serve's flags, for the command name (serve or
// config).
func newServeCmd(name string, s *streams) *serveCmd {
	f := newFlags(name, helpText(name), s)
	f.string(config.FileFlag, "", "YAML `file` of settings keyed by these flags' names (secrets also as NAME-file: a file holding the value); "+
		"flags and $PLUMBLINE_* override it")
	c := &serveCmd{flags: f,
		db:        f.string("db", "", "PostgreSQL connection `string` (required)"),
		transport: f.choice("transport", "http", "`transport`: http or stdio", "http", "stdio"),
	}
	c.sf = addServerFlags(f, false)
	f.register(c.sf.RegisterTLSFlags)
	return c
}

func serve(ctx context.Context, args []string, s *streams) error {
	c := newServeCmd("serve", s)
	if _, err := c.parse(args); err != nil {
		return err
	}
	db, transport, sf := c.db, c.transport, c.sf
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	log, stopDebug, err := sf.logging(s.err)
	if err != nil {
		return err
	}
	defer stopDebug()
	settings, err := sf.settings(time.Now, log)
	if err != nil {
		return err
	}
	if *transport == "http" {
		return server.RunHTTP(ctx, *db, settings, &sf.auth, nil)
	}
	token := os.Getenv(server.TokenEnv)
	if token == "" {
		return fmt.Errorf("%w: the stdio transport needs a token in $%s; create one with: plumbline token create --service NAME", errUsage, server.TokenEnv)
	}
	return server.RunStdio(ctx, *db, settings, &sf.auth, token, "$"+server.TokenEnv, os.Stdin, os.Stdout)
}

// logging starts the log the flags ask for, on w, and the runtime figures
// listener if --debug-addr names one; stop closes that listener.
func (sf *serverFlags) logging(w io.Writer) (log *slog.Logger, stop func(), err error) {
	if log, err = logger(w, sf.LogLevel); err != nil {
		return nil, nil, err
	}
	if stop, err = server.ServeDebug(sf.DebugAddr, log); err != nil {
		return nil, nil, err
	}
	return log, stop, nil
}

// catalogArg loads the catalogue a command's arguments name: at most one
// directory, or none for the embedded demo catalogue. It returns the
// directory too, empty for the demo's.
func catalogArg(rest []string) (*catalog.Catalog, string, error) {
	if len(rest) > 1 {
		return nil, "", fmt.Errorf("%w: give at most one catalogue directory", errUsage)
	}
	dir := ""
	if len(rest) == 1 {
		dir = rest[0]
	}
	cat, err := loadCatalog(dir)
	if err != nil {
		return nil, "", fmt.Errorf("load catalogue:\n%w", err)
	}
	return cat, dir, nil
}

// loadCatalog loads the catalogue in dir, or the embedded demo catalogue.
func loadCatalog(dir string) (*catalog.Catalog, error) {
	if dir == "" {
		return catalog.Demo()
	}
	return catalog.LoadDir(dir)
}
