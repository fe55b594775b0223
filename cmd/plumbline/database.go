package main

import (
	"fmt"

	"plumbline/internal/grants"
)

// This file holds the flags every command that talks to plumbline's
// database roles shares.

// roleFlags name plumbline's database roles.
type roleFlags struct {
	reader, logger, auth, app *string
	analyst, agent            *string
}

// addRoleFlags adds the role flags; login adds the login's name too, for
// commands that create it.
func addRoleFlags(f *flags, login bool) *roleFlags {
	d := grants.DefaultRoles()
	r := &roleFlags{
		reader:  addReaderFlag(f),
		logger:  f.string("logger-role", d.Logger, "`role` that writes the request log"),
		auth:    f.string("auth-role", d.Auth, "`role` that keeps the token store"),
		analyst: f.string("analyst-role", d.Analyst, "`role` the analyst's door runs statements as; reads the analyst grants"),
	}
	if login {
		r.app = f.string("app-login", d.App, "the `login` plumbline signs in as, a member of the three roles")
		r.agent = f.string("agent-login", d.Agent, "the `login` the analyst's door signs in as, a member of the analyst role alone")
	}
	return r
}

// addReaderFlag adds --reader-role, the role reports run as.
func addReaderFlag(f *flags) *string {
	return f.string("reader-role", grants.DefaultRoles().Reader, "`role` reports run as; reads the granted relations")
}

// roles returns the configured names, checked.
func (r *roleFlags) roles() (grants.Roles, error) {
	d := grants.DefaultRoles()
	out := grants.Roles{Reader: *r.reader, Logger: *r.logger, Auth: *r.auth, App: d.App, Analyst: *r.analyst, Agent: d.Agent}
	if r.app != nil {
		out.App, out.Agent = *r.app, *r.agent
	}
	if err := out.Check(); err != nil {
		return out, fmt.Errorf("%w: %v", errUsage, err)
	}
	return out, nil
}

// args returns the role flags that differ from the defaults, to pass on to
// another plumbline command.
func (r *roleFlags) args() []string {
	d := grants.DefaultRoles()
	var out []string
	for _, f := range []struct{ name, value, def string }{
		{"--reader-role", *r.reader, d.Reader}, {"--logger-role", *r.logger, d.Logger}, {"--auth-role", *r.auth, d.Auth},
		{"--analyst-role", *r.analyst, d.Analyst},
	} {
		if f.value != f.def {
			out = append(out, f.name, f.value)
		}
	}
	return out
}

// addAnalystGrantsFlag adds --analyst-grants, the directory of the analyst's
// grant files.
func addAnalystGrantsFlag(f *flags) *string {
	return f.string("analyst-grants", "", "`directory` of analyst grant files, one reviewed <schema>.<relation>.sql per relation the analyst's door may read (default: the demo floor's, embedded)")
}

// loadAnalystGrants loads the analyst grant files in dir, or the embedded
// demo floor's.
func loadAnalystGrants(dir string) ([]*grants.Grant, error) {
	gs, err := grants.LoadAnalystDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load analyst grant files:\n%w", err)
	}
	return gs, nil
}

// addGrantsFlag adds --grants, the directory of grant files.
func addGrantsFlag(f *flags) *string {
	return f.string("grants", "", "`directory` of grant files, one reviewed <schema>.<relation>.sql per relation the reader may read (default: the demo floor's, embedded)")
}

// loadGrants loads the grant files in dir, or the embedded demo floor's.
func loadGrants(dir string) ([]*grants.Grant, error) {
	gs, err := grants.LoadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load grant files:\n%w", err)
	}
	return gs, nil
}
