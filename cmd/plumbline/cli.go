package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"plumbline/internal/config"
	"plumbline/internal/grants"
	"plumbline/internal/server"
)

// streams are a command's standard streams, so tests can run commands
// against buffers.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand: its one-line summary, its help text and what
// it does with its arguments.
type command struct {
	summary string
	help    string
	run     func(ctx context.Context, args []string, s *streams) error
}

const usage = `plumbline: governed sales-floor reports for AI clients, over MCP.

A sales manager adds plumbline to the AI client they already use and asks how
their team did. Every figure plumbline answers with carries its definition,
how far its data runs, its counting basis and a partial flag.

Usage:
  plumbline <command> [flags] [arguments]

Commands:
%s
Run "plumbline help <command>" for a command's flags. Every flag can also be
set with the PLUMBLINE_* environment variable its help names.

Start here:
  plumbline demo     serve the demo floor at http://127.0.0.1:8080/mcp

plumbline --version prints the version, commit and catalogue version.
`

func mainHelp() string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", name, commands[name].summary)
	}
	return fmt.Sprintf(usage, b.String())
}

// errUsage marks an error in how a command was called; it exits with 2.
// It is the server's own mark of a bad setting, so that a flag the server
// refuses is a usage error too.
var errUsage = server.ErrUsage

// exitError carries a specific exit code.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func run(ctx context.Context, args []string, s *streams) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		fmt.Fprint(s.out, mainHelp())
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name, rest := args[0], args[1:]
	if name == "--version" || name == "-version" {
		name = "version"
	}
	if name == "help" {
		name, rest = rest[0], []string{"-h"}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(s.err, "plumbline: unknown command %q\n\n%s", name, mainHelp())
		return 2
	}
	err := cmd.run(ctx, rest, s)
	var exit exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &exit):
		return exit.code
	case errors.Is(err, errUsage):
		fmt.Fprintf(s.err, "plumbline %s: %v\nRun \"plumbline help %s\" for usage.\n", name, err, name)
		return 2
	default:
		fmt.Fprintf(s.err, "plumbline %s: %v\n", name, err)
		return 1
	}
}

// flags is a command's flag set; every flag may come from the environment.
// Environment values are applied after parsing, to the flags the command
// line left unset, so --help shows the real defaults and never a value
// (a password in a connection string, say) taken from the environment.
type flags struct {
	*flag.FlagSet
	s *streams
	// sources say where each flag's value came from, once parsed.
	sources config.Sources
}

func newFlags(name, help string, s *streams) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() {
		fmt.Fprint(s.out, strings.TrimLeft(help, "\n"))
		fmt.Fprintln(s.out, "\nFlags:")
		fs.SetOutput(s.out)
		fs.PrintDefaults()
		fs.SetOutput(s.err)
	}
	return &flags{FlagSet: fs, s: s}
}

// envName is the environment variable a flag may be set by.
func envName(flagName string) string {
	return "PLUMBLINE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func withEnv(name, usage string) string { return usage + " ($" + envName(name) + ")" }

func (f *flags) string(name, def, usage string) *string {
	return f.String(name, def, withEnv(name, usage))
}

func (f *flags) duration(name string, def time.Duration, usage string) *time.Duration {
	return f.Duration(name, def, withEnv(name, usage))
}

func (f *flags) int(name string, def int, usage string) *int {
	return f.Int(name, def, withEnv(name, usage))
}

func (f *flags) boolean(name string, def bool, usage string) *bool {
	return f.Bool(name, def, withEnv(name, usage))
}

// choice is a string flag that takes only one of choices.
func (f *flags) choice(name, def, usage string, choices ...string) *string {
	p := new(string)
	f.Var(config.NewChoice(p, def, choices...), name, withEnv(name, usage))
	return p
}

// register lets a package register its flags on the command's set (as
// server.Settings does), each then settable from its environment variable
// like the command's own.
func (f *flags) register(add func(*flag.FlagSet)) {
	known := map[string]bool{}
	f.VisitAll(func(fl *flag.Flag) { known[fl.Name] = true })
	add(f.FlagSet)
	f.VisitAll(func(fl *flag.Flag) {
		if !known[fl.Name] && !strings.Contains(fl.Usage, "$"+envName(fl.Name)) {
			fl.Usage = withEnv(fl.Name, fl.Usage)
		}
	})
}

// parse parses args, then sets every flag the command line left unset from
// its environment variable, then from the configuration file (for a
// command with --config), and returns the positional arguments.
func (f *flags) parse(args []string) ([]string, error) {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	sources, err := f.layers().Resolve(f.FlagSet)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	f.sources = sources
	return f.Args(), nil
}

// layers are what sets a flag below the command line: its environment
// variable, for the flags whose usage names one, and the file.
func (f *flags) layers() config.Layers {
	return config.Layers{EnvName: func(fl *flag.Flag) string {
		if !strings.Contains(fl.Usage, "$"+envName(fl.Name)) {
			return ""
		}
		return envName(fl.Name)
	}}
}

// logger writes logs to w (stderr) at a level named by a flag: as text a
// person reads when w is a terminal, as JSON lines otherwise (a file, a
// pipe, a log collector).
func logger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("%w: --log-level must be debug, info, warn or error", errUsage)
	}
	opts := &slog.HandlerOptions{Level: l}
	if isTerminal(w) {
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return slog.New(slog.NewJSONHandler(w, opts)), nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// grantFlags are the flags of the commands that apply or check the grants:
// the grant files, the roles and the analyst's limits.
type grantFlags struct {
	dirs   grants.Dirs
	roles  grants.Roles
	limits grants.Limits
}

// addGrantFlags adds the grants' flags; with logins, the logins' names too.
func addGrantFlags(f *flags, logins bool) *grantFlags {
	g := &grantFlags{}
	f.register(func(fs *flag.FlagSet) {
		g.dirs.RegisterFlags(fs)
		g.roles.RegisterFlags(fs, logins)
		g.limits.RegisterFlags(fs)
	})
	return g
}

// load checks the role names and loads the reader's grant files.
func (g *grantFlags) load() ([]*grants.Grant, error) {
	if err := checkRoles(g.roles); err != nil {
		return nil, err
	}
	return g.dirs.Load()
}

// checkRoles checks the role names the flags gave; a bad one is a usage
// error.
func checkRoles(r grants.Roles) error {
	if err := r.Check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
