package config

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Mask is what a secret is shown as.
const Mask = "****"

// Show returns a setting's value as it may be shown: a secret key
// masked, a connection string with its password masked.
func Show(name, value string) string {
	switch {
	case !secrets[name] || value == "":
		return value
	case name == "log-secret" || name == "oidc-client-secret":
		return Mask
	}
	return maskDSN(value)
}

var passwordKeyword = regexp.MustCompile(`(?i)((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// maskDSN masks the passwords of a PostgreSQL connection string, a URL or
// keyword=value pairs.
func maskDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return passwordKeyword.ReplaceAllString(dsn, "${1}"+Mask)
	}
	q := u.Query()
	for _, k := range []string{"password", "sslpassword"} {
		if q.Has(k) {
			q.Set(k, Mask)
		}
	}
	u.RawQuery = strings.ReplaceAll(q.Encode(), url.QueryEscape(Mask), Mask)
	user, hasPassword := u.User, false
	if user != nil {
		_, hasPassword = user.Password()
	}
	if !hasPassword {
		return u.String()
	}
	// url.UserPassword would escape the mask.
	u.User = nil
	scheme, rest, _ := strings.Cut(u.String(), "://")
	return scheme + "://" + url.User(user.Username()).String() + ":" + Mask + "@" + rest
}

// Write prints the settings of fs that the layers resolve (those the
// environment and the file may set, but the file itself) as the YAML of a
// configuration file,
// each value shown as Show shows it, with its source as a comment.
func (l Layers) Write(w io.Writer, fs *flag.FlagSet, src Sources) error {
	type line struct{ value, source string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == FileFlag || l.EnvName(f) == "" {
			return
		}
		var value any = Show(f.Name, f.Value.String())
		if g, ok := f.Value.(flag.Getter); ok {
			switch v := g.Get().(type) {
			case bool, int:
				value = v
			}
		}
		b, _ := yaml.Marshal(map[string]any{f.Name: value})
		kv := strings.TrimSuffix(string(b), "\n")
		width = max(width, len(kv))
		lines = append(lines, line{kv, src[f.Name].String()})
	})
	for _, ln := range lines {
		if _, err := fmt.Fprintf(w, "%-*s  # %s\n", width, ln.value, ln.source); err != nil {
			return err
		}
	}
	return nil
}
