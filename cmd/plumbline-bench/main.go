package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"plumbline/internal/bench"
)

// help is the command's help text, kept as text so that it reads (and is
// reviewed) as the prose it is.
//
//go:embed help.txt
var help string

// errUsage marks an error in how the command was called; it exits with 2.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command with args, writing the results to out and progress
// and errors to errw, and returns its exit code: 0, 1 when the measurement
// failed (a soak's verdict among them), 2 for a usage error.
func run(ctx context.Context, args []string, out, errw io.Writer) int {
	err := measure(ctx, args, out, errw)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(errw, "plumbline-bench: %v\nRun \"plumbline-bench --help\" for usage.\n", err)
		return 2
	default:
		fmt.Fprintf(errw, "plumbline-bench: %v\n", err)
		return 1
	}
}

// measure parses args into a bench.Config, finds the server to measure
// and measures it.
func measure(ctx context.Context, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("plumbline-bench", flag.ContinueOnError)
	fs.SetOutput(errw)
	fs.Usage = func() {
		fmt.Fprint(out, help)
		fmt.Fprintln(out, "\nFlags:")
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(errw)
	}
	var c bench.Config
	c.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: takes no arguments, only flags", errUsage)
	}
	if err := c.Check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if c.Bin == "" {
		bin, err := serverBeside()
		if err != nil {
			return err
		}
		c.Bin = bin
	}
	return bench.Measure(ctx, &c, out, errw)
}

// serverBeside returns the plumbline binary in this one's directory, where
// make build and go install put both.
func serverBeside() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(filepath.Dir(self), "plumbline")
	if info, err := os.Stat(bin); err != nil || info.IsDir() {
		return "", fmt.Errorf("%w: no plumbline binary beside this one (%s) to measure: build both (make build) or name one with --bin", errUsage, bin)
	}
	return bin, nil
}
