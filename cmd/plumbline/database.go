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
}

// addRoleFlags adds the role flags; login adds the login's name too, for
// commands that create it.
func addRoleFlags(f *flags, login bool) *roleFlags {
	d := grants.DefaultRoles()
	r := &roleFlags{
		reader: addReaderFlag(f),
		logger: f.string("logger-role", d.Logger, "`role` that writes the request log"),
		auth:   f.string("auth-role", d.Auth, "`role` that keeps the token store"),
	}
	if login {
		r.app = f.string("app-login", d.App, "the `login` plumbline signs in as, a member of the three roles")
	}
	return r
}

// addReaderFlag adds --reader-role, the role reports run as.
func addReaderFlag(f *flags) *string {
	return f.string("reader-role", grants.DefaultRoles().Reader, "`role` reports run as; reads the granted relations")
}

// roles returns the configured names, checked.
func (r *roleFlags) roles() (grants.Roles, error) {
	out := grants.Roles{Reader: *r.reader, Logger: *r.logger, Auth: *r.auth, App: grants.DefaultRoles().App}
	if r.app != nil {
		out.App = *r.app
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
	} {
		if f.value != f.def {
			out = append(out, f.name, f.value)
		}
	}
	return out
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
