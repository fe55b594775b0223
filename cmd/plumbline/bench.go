package main

import (
	"context"
	"fmt"
	"os"

	"plumbline/internal/bench"
)

func benchCmd(ctx context.Context, args []string, s *streams) error {
	f := newFlags("bench", helpText("bench"), s)
	var c bench.Config
	f.register(c.RegisterFlags)
	if _, err := f.parse(args); err != nil {
		return err
	}
	if err := c.Check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if c.Bin == "" {
		bin, err := os.Executable()
		if err != nil {
			return err
		}
		c.Bin = bin
	}
	return bench.Measure(ctx, &c, s.out, s.err)
}
