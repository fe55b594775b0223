package config_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"plumbline/internal/config"
)

// settings is a small command's flags: every kind of value the layers set.
type settings struct {
	fs                         *flag.FlagSet
	addr, db, secret, compress *string
	hosts, local, configFile   *string
	timeout                    *time.Duration
	perMinute                  *int
	registration               *bool
}

func newSettings() *settings {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := &settings{fs: fs,
		configFile:   fs.String(config.FileFlag, "", "file"),
		addr:         fs.String("addr", "127.0.0.1:8080", "address"),
		db:           fs.String("db", "", "database"),
		secret:       fs.String("log-secret", "", "secret"),
		hosts:        fs.String("allow-hosts", "", "hosts"),
		local:        fs.String("local", "", "a flag neither the environment nor the file sets"),
		timeout:      fs.Duration("statement-timeout", 30*time.Second, "timeout"),
		perMinute:    fs.Int("calls-per-minute", 60, "calls"),
		registration: fs.Bool("registration", false, "registration"),
		compress:     new(string),
	}
	fs.Var(config.NewChoice(s.compress, "remote", "remote", "always", "never"), "compress", "compression")
	return s
}

// layers reads the environment env, in which every flag but local has its
// PLUMBLINE_ variable.
func layers(env map[string]string) config.Layers {
	return config.Layers{
		EnvName: func(f *flag.Flag) string {
			if f.Name == "local" {
				return ""
			}
			return "PLUMBLINE_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		},
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A flag overrides the environment, which overrides the file, which
// overrides the default; each value says where it came from, and a secret
// read from a file is never shown.
func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "log-secret.txt", "0123456789abcdef0123\n")
	file := writeFile(t, dir, "plumbline.yaml", `# plumbline serve
addr: 0.0.0.0:8443
statement-timeout: 20s
calls-per-minute: 100
registration: true
compress: never
allow-hosts: [a.example.com, b.example.com]
log-secret-file: log-secret.txt
db: postgres://app:filepassword@db/floor
`)
	s := newSettings()
	if err := s.fs.Parse([]string{"--config", file, "--addr", "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	src, err := layers(map[string]string{
		"PLUMBLINE_STATEMENT_TIMEOUT": "7s",
		"PLUMBLINE_DB":                "postgres://app:envpassword@db/floor",
		"PLUMBLINE_ADDR":              "127.0.0.1:8",
	}).Resolve(s.fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, got, want, source string
	}{
		{"addr", *s.addr, "127.0.0.1:9", "--addr, over " + file + ":2"},
		{"statement-timeout", s.timeout.String(), "7s", "$PLUMBLINE_STATEMENT_TIMEOUT, over " + file + ":3"},
		{"calls-per-minute", strconv.Itoa(*s.perMinute), "100", file + ":4"},
		{"registration", strconv.FormatBool(*s.registration), "true", file + ":5"},
		{"compress", *s.compress, "never", file + ":6"},
		{"allow-hosts", *s.hosts, "a.example.com,b.example.com", file + ":7"},
		{"log-secret", *s.secret, "0123456789abcdef0123", file + ":8"},
		{"db", *s.db, "postgres://app:envpassword@db/floor", "$PLUMBLINE_DB, over " + file + ":9"},
		{"local", *s.local, "", "default"},
	} {
		if c.got != c.want || src[c.name].String() != c.source {
			t.Errorf("%s = %q from %q, want %q from %q", c.name, c.got, src[c.name], c.want, c.source)
		}
	}

	var out bytes.Buffer
	if err := layers(nil).Write(&out, s.fs, src); err != nil {
		t.Fatal(err)
	}
	shown := out.String()
	for _, secret := range []string{"0123456789abcdef0123", "envpassword", "filepassword"} {
		if strings.Contains(shown, secret) {
			t.Errorf("the settings shown hold a secret:\n%s", shown)
		}
	}
	for _, line := range []string{
		"db: postgres://app:****@db/floor", "log-secret: '****'", "calls-per-minute: 100 ", "registration: true ",
		"# $PLUMBLINE_STATEMENT_TIMEOUT, over " + file + ":3\n",
	} {
		if !strings.Contains(shown, line) {
			t.Errorf("the settings shown lack %q:\n%s", line, shown)
		}
	}
	if strings.Contains(shown, "\nlocal:") || strings.Contains(shown, "\nconfig:") {
		t.Errorf("the settings shown hold a flag the file cannot set:\n%s", shown)
	}
}

// A bad file is refused whole, before anything starts: every unknown key,
// repeated key and bad value with its file and line, an unknown key with
// the settings there are, a bad value with what would do, and never a
// secret's value.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "plumbline.yaml", `adr: 0.0.0.0:8443
compress: sometimes
statement-timeout: 30
calls-per-minute: many
registration: maybe
local: x
db: [postgres://app:hunter2@db/floor]
log-secret-file: missing.txt
compress: always
`)
	s := newSettings()
	if err := s.fs.Parse([]string{"--config", file}); err != nil {
		t.Fatal(err)
	}
	_, err := layers(nil).Resolve(s.fs)
	if err == nil {
		t.Fatal("a bad file was taken")
	}
	got := err.Error()
	for _, want := range []string{
		file + `:1: unknown setting "adr" (did you mean addr?); the settings are: addr, allow-hosts, calls-per-minute, compress, db, log-secret, registration, statement-timeout` + "\n",
		file + `:2: compress: "sometimes" is not valid; the choices are remote, always, never` + "\n",
		file + `:3: statement-timeout: "30" is not valid; write a duration such as 30s, 2m or 1h30m` + "\n",
		file + `:4: calls-per-minute: "many" is not valid; write a whole number, such as 60` + "\n",
		file + `:5: registration: "maybe" is not valid; write true or false` + "\n",
		file + `:6: unknown setting "local"`,
		file + `:7: db: write a single value`,
		file + `:8: log-secret-file: stat ` + filepath.Join(dir, "missing.txt") + `: no such file or directory`,
		file + `:9: compress is set again (first at line 2); keep one`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hunter2") {
		t.Errorf("the refusal repeats a secret:\n%s", got)
	}
	if *s.addr != "127.0.0.1:8080" {
		t.Errorf("a refused file still set addr to %q", *s.addr)
	}

	for _, c := range []struct{ text, want string }{
		{"addr: [\n", file + ":1: did not find expected node content"},
		{"- addr\n", file + ":1: the configuration is a mapping of settings to values"},
	} {
		writeFile(t, dir, "plumbline.yaml", c.text)
		if _, err := layers(nil).Resolve(newParsed(t, file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := layers(map[string]string{"PLUMBLINE_CONFIG": filepath.Join(dir, "none.yaml")}).Resolve(newParsed(t, "")); err == nil ||
		!strings.HasPrefix(err.Error(), "$PLUMBLINE_CONFIG: open ") {
		t.Errorf("a missing file named by the environment: %v", err)
	}
}

// newParsed returns the settings parsed with --config file, if file is set.
func newParsed(t *testing.T, file string) *flag.FlagSet {
	t.Helper()
	s := newSettings()
	var args []string
	if file != "" {
		args = []string{"--config", file}
	}
	if err := s.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return s.fs
}

// A bad value in the environment is refused naming its variable; a secret
// may come from a file named by NAME_FILE, but not from both.
func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	secretFile := writeFile(t, dir, "db", "postgres://app:hunter2@db/floor\n")
	s := newSettings()
	if err := s.fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	src, err := layers(map[string]string{"PLUMBLINE_DB_FILE": secretFile}).Resolve(s.fs)
	if err != nil || *s.db != "postgres://app:hunter2@db/floor" || src["db"].String() != "$PLUMBLINE_DB_FILE" {
		t.Errorf("db from $PLUMBLINE_DB_FILE: %q from %v, %v", *s.db, src["db"], err)
	}
	for env, want := range map[string]string{
		"PLUMBLINE_COMPRESS":          `$PLUMBLINE_COMPRESS: "sometimes" is not valid; the choices are remote, always, never`,
		"PLUMBLINE_STATEMENT_TIMEOUT": `$PLUMBLINE_STATEMENT_TIMEOUT: "sometimes" is not valid; write a duration`,
	} {
		_, err := layers(map[string]string{env: "sometimes"}).Resolve(newParsed(t, ""))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=sometimes: %v", env, err)
		}
	}
	_, err = layers(map[string]string{"PLUMBLINE_DB_FILE": secretFile, "PLUMBLINE_DB": "postgres://x"}).Resolve(newParsed(t, ""))
	if err == nil || !strings.Contains(err.Error(), "$PLUMBLINE_DB and $PLUMBLINE_DB_FILE both set --db; keep one") {
		t.Errorf("both $PLUMBLINE_DB and $PLUMBLINE_DB_FILE: %v", err)
	}
}

// Show masks secret keys whole and a connection string's passwords, in
// either form.
func TestShow(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"addr", "0.0.0.0:8080", "0.0.0.0:8080"},
		{"log-secret", "0123456789abcdef", "****"},
		{"oidc-client-secret", "s", "****"},
		{"db", "postgres://app:hunter2@db:5432/floor?sslmode=require", "postgres://app:****@db:5432/floor?sslmode=require"},
		{"reports-dsn", "postgresql://app@db/floor?password=hunter2", "postgresql://app@db/floor?password=****"},
		{"analyst-db", "host=db user=agent password='hun ter2' dbname=floor", "host=db user=agent password=**** dbname=floor"},
		{"db", "", ""},
	} {
		if got := config.Show(c.name, c.value); got != c.want {
			t.Errorf("Show(%s, %q) = %q, want %q", c.name, c.value, got, c.want)
		}
	}
}
