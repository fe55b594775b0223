package grants

import (
	"fmt"
	"regexp"
	"strings"
)

// Roles names plumbline's database roles.
type Roles struct {
	Reader string // NOLOGIN: reads the granted relations; every report runs as it
	Logger string // NOLOGIN: writes the request log
	Auth   string // NOLOGIN: keeps the token store
	App    string // the login plumbline signs in as; a member of the three
	// Analyst is NOLOGIN: reads the analyst grants; every statement of the
	// analyst's door runs as it.
	Analyst string
	// Agent is the login the analyst's door signs in as; a member of the
	// analyst alone.
	Agent string
}

// DefaultRoles returns the default role names.
func DefaultRoles() Roles {
	return Roles{Reader: "plumbline_reader", Logger: "plumbline_logger", Auth: "plumbline_auth", App: "plumbline_app",
		Analyst: "plumbline_analyst", Agent: "plumbline_agent"}
}

// Held lists the roles the login is a member of: the reader, the logger and
// auth.
func (r Roles) Held() []string { return []string{r.Reader, r.Logger, r.Auth} }

// MemberData matches column names that look like member data (phone,
// member, address, birth date, transcript, recording, SSN, Medicare
// number). The reader must never be able to read such a column.
var MemberData = regexp.MustCompile(`phone|member|address|birth|dob|transcript|recording|ssn|medicare`)

var roleName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Check reports a role name that is not a plain lower-case SQL identifier,
// or two roles given the same name.
func (r Roles) Check() error {
	seen := map[string]string{}
	for _, role := range []struct{ what, name string }{
		{"reader", r.Reader}, {"logger", r.Logger}, {"auth", r.Auth}, {"app login", r.App},
		{"analyst", r.Analyst}, {"agent login", r.Agent},
	} {
		if !roleName.MatchString(role.name) || strings.HasPrefix(role.name, "pg_") {
			return fmt.Errorf("the %s role's name %q must be a lower-case SQL identifier (a-z, 0-9 and _, not starting with a digit or pg_, at most 63 characters)", role.what, role.name)
		}
		if other, dup := seen[role.name]; dup {
			return fmt.Errorf("the %s and the %s role are both named %q; give each its own name", other, role.what, role.name)
		}
		seen[role.name] = role.what
	}
	return nil
}

var placeholder = regexp.MustCompile(`\{\{(\w+)\}\}`)

// render replaces the role placeholders in a SQL file with the names. The
// names are checked identifiers, so they need no quoting.
func (r Roles) render(file, text string) (string, error) {
	names := map[string]string{"reader": r.Reader, "logger": r.Logger, "auth": r.Auth, "app": r.App,
		"analyst": r.Analyst, "agent": r.Agent}
	var unknown string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		key := placeholder.FindStringSubmatch(m)[1]
		if name, ok := names[key]; ok {
			return name
		}
		unknown = m
		return m
	})
	if unknown != "" {
		return "", fmt.Errorf("%s: unknown placeholder %s; the role placeholders are {{reader}}, {{logger}}, {{auth}}, {{app}}, {{analyst}} and {{agent}}", file, unknown)
	}
	return out, nil
}
