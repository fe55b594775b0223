package config

import (
	"fmt"
	"slices"
	"strings"
)

// Choice is a string flag's value that takes only one of its choices, so
// that a bad one is refused where it was set, naming the choices.
type Choice struct {
	p       *string
	choices []string
}

// NewChoice returns a Choice storing into p, which it sets to def.
func NewChoice(p *string, def string, choices ...string) *Choice {
	*p = def
	return &Choice{p: p, choices: choices}
}

func (c *Choice) String() string {
	if c == nil || c.p == nil {
		return ""
	}
	return *c.p
}

// Set takes v if it is one of the choices.
func (c *Choice) Set(v string) error {
	if !slices.Contains(c.choices, v) {
		return fmt.Errorf("the choices are %s", strings.Join(c.choices, ", "))
	}
	*c.p = v
	return nil
}

// Get returns the value, as flag.Getter does.
func (c *Choice) Get() any { return *c.p }
