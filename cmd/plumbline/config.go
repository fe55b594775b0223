package main

import (
	"context"
	"fmt"

	"plumbline/internal/config"
)

func configCmd(_ context.Context, args []string, s *streams) error {
	c := newServeCmd("config", s)
	if _, err := c.parse(args); err != nil {
		return err
	}
	file := "none"
	if src := c.sources[config.FileFlag]; src.Kind != config.Default {
		file = c.Lookup(config.FileFlag).Value.String() + " (" + src.String() + ")"
	}
	fmt.Fprintf(s.out, "# plumbline serve's settings: the command line, then $PLUMBLINE_*, then the\n"+
		"# configuration file, then the defaults; secrets masked.\n# configuration file: %s\n", file)
	return c.layers().Write(s.out, c.FlagSet, c.sources)
}
