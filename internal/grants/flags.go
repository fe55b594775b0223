package grants

import (
	"flag"
	"fmt"
)

// RegisterFlags registers the flags naming the roles on fs, each filling
// its field of r, which starts as DefaultRoles. With logins the logins'
// names are flags too, for the commands that create them; without, they
// keep their defaults.
func (r *Roles) RegisterFlags(fs *flag.FlagSet, logins bool) {
	*r = DefaultRoles()
	RegisterReaderFlag(fs, &r.Reader)
	fs.StringVar(&r.Logger, "logger-role", r.Logger, "`role` that writes the request log")
	fs.StringVar(&r.Auth, "auth-role", r.Auth, "`role` that keeps the token store")
	fs.StringVar(&r.Analyst, "analyst-role", r.Analyst, "`role` the analyst's door runs statements as; reads the analyst grants")
	if logins {
		fs.StringVar(&r.App, "app-login", r.App, "the `login` plumbline signs in as, a member of the three roles")
		fs.StringVar(&r.Agent, "agent-login", r.Agent, "the `login` the analyst's door signs in as, a member of the analyst role alone")
	}
}

// RegisterReaderFlag registers --reader-role alone, the role reports run
// as, filling *reader.
func RegisterReaderFlag(fs *flag.FlagSet, reader *string) {
	fs.StringVar(reader, "reader-role", DefaultRoles().Reader, "`role` reports run as; reads the granted relations")
}

// Args returns the role flags, logins aside, whose names differ from the
// defaults, to pass on to another plumbline command.
func (r Roles) Args() []string {
	d := DefaultRoles()
	var out []string
	for _, f := range []struct{ name, value, def string }{
		{"--reader-role", r.Reader, d.Reader}, {"--logger-role", r.Logger, d.Logger}, {"--auth-role", r.Auth, d.Auth},
		{"--analyst-role", r.Analyst, d.Analyst},
	} {
		if f.value != f.def {
			out = append(out, f.name, f.value)
		}
	}
	return out
}

// Dirs are the directories a command loads grant files from; empty for the
// demo floor's, embedded.
type Dirs struct {
	Reader, Analyst string
}

// RegisterFlags registers --grants and --analyst-grants on fs.
func (d *Dirs) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&d.Reader, "grants", "", "`directory` of grant files, one reviewed <schema>.<relation>.sql per relation the reader may read (default: the demo floor's, embedded)")
	fs.StringVar(&d.Analyst, "analyst-grants", "", "`directory` of analyst grant files, one reviewed <schema>.<relation>.sql per relation the analyst's door may read (default: the demo floor's, embedded)")
}

// Load loads the reader's grant files.
func (d Dirs) Load() ([]*Grant, error) {
	gs, err := LoadDir(d.Reader)
	if err != nil {
		return nil, fmt.Errorf("load grant files:\n%w", err)
	}
	return gs, nil
}

// LoadAnalyst loads the analyst's grant files.
func (d Dirs) LoadAnalyst() ([]*Grant, error) {
	gs, err := LoadAnalystDir(d.Analyst)
	if err != nil {
		return nil, fmt.Errorf("load analyst grant files:\n%w", err)
	}
	return gs, nil
}
