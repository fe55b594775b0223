package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// FileFlag is the flag that names the configuration file.
const FileFlag = "config"

// Kind is the layer a setting's value came from.
type Kind int

// The layers, lowest first: each overrides those before it.
const (
	Default Kind = iota
	File
	Env
	Flag
)

// Source is where a setting's value came from.
type Source struct {
	Kind Kind
	// Where names the flag (--addr), the variable ($PLUMBLINE_ADDR) or
	// the file and line (plumbline.yaml:4) that set it.
	Where string
	// Over is the file and line whose value a flag or variable overrode.
	Over string
}

func (s Source) String() string {
	switch {
	case s.Kind == Default:
		return "default"
	case s.Over != "":
		return s.Where + ", over " + s.Over
	}
	return s.Where
}

// Sources are each setting's source, by flag name.
type Sources map[string]Source

// secrets are the settings never shown: connection strings, which may
// hold a password, and keys. Each may also be read from a file.
var secrets = map[string]bool{
	"db": true, "reports-dsn": true, "analyst-db": true, // connection strings
	"log-secret": true, "oidc-client-secret": true,
}

// lists are the comma-separated settings, which the file may also give as
// a YAML sequence.
var lists = map[string]bool{"allow-hosts": true, "allow-origins": true, "client-domains": true}

// IsSecret reports whether the setting name is a secret.
func IsSecret(name string) bool { return secrets[name] }

// Layers resolves a parsed flag set's remaining values from the
// environment and the configuration file.
type Layers struct {
	// EnvName names the environment variable that may set a flag, or
	// returns "" for a flag that neither a variable nor the file sets.
	EnvName func(*flag.Flag) string
	// LookupEnv reads the environment; nil reads the process's.
	LookupEnv func(string) (string, bool)
}

// Resolve sets every flag of fs that the command line left unset from its
// environment variable, then from the configuration file (the FileFlag
// flag's value, from the command line or its variable), and returns
// where each value came from. Call it after fs.Parse. Every bad value is
// named in the error, with its file and line, and none that is a secret
// is repeated.
func (l Layers) Resolve(fs *flag.FlagSet) (Sources, error) {
	lookup := l.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	src := Sources{}
	fs.VisitAll(func(f *flag.Flag) { src[f.Name] = Source{Kind: Default} })
	fs.Visit(func(f *flag.Flag) { src[f.Name] = Source{Kind: Flag, Where: "--" + f.Name} })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := l.EnvName(f)
		if env == "" || src[f.Name].Kind == Flag {
			return
		}
		value, ok := lookup(env)
		where := "$" + env
		if path, fromFile := lookup(env + "_FILE"); fromFile && secrets[f.Name] {
			if ok {
				errs = append(errs, fmt.Errorf("$%s and $%s_FILE both set --%s; keep one", env, env, f.Name))
				return
			}
			var err error
			if value, err = readSecret(path); err != nil {
				errs = append(errs, fmt.Errorf("$%s_FILE: %v", env, err))
				return
			}
			ok, where = true, "$"+env+"_FILE"
		}
		if !ok {
			return
		}
		if err := set(f, value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", where, err))
			return
		}
		src[f.Name] = Source{Kind: Env, Where: where}
	})
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if f := fs.Lookup(FileFlag); f != nil && f.Value.String() != "" {
		if err := l.applyFile(fs, f.Value.String(), src[FileFlag].Where, src); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// applyFile sets the flags that neither the command line nor the
// environment set from the YAML file at path (which namedBy, a flag or a
// variable, named), a mapping of flag names to values, and records where
// each came from in src.
func (l Layers) applyFile(fs *flag.FlagSet, path, namedBy string, src Sources) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", namedBy, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return yamlError(path, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: the configuration is a mapping of settings to values, such as \"addr: 0.0.0.0:8080\"", path, top.Line)
	}
	var keys []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != FileFlag && l.EnvName(f) != "" {
			keys = append(keys, f.Name)
		}
	})
	seen := map[string]int{}
	var errs []error
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		at := fmt.Sprintf("%s:%d", path, k.Line)
		name, fromFile := k.Value, false
		if base, ok := strings.CutSuffix(k.Value, "-file"); ok && secrets[base] {
			name, fromFile = base, true
		}
		if !slices.Contains(keys, name) {
			errs = append(errs, fmt.Errorf("%s: unknown setting %q%s; the settings are: %s", at, k.Value, suggest(k.Value, keys), strings.Join(keys, ", ")))
			continue
		}
		if first, dup := seen[name]; dup {
			errs = append(errs, fmt.Errorf("%s: %s is set again (first at line %d); keep one", at, name, first))
			continue
		}
		seen[name] = k.Line
		value, err := scalar(v, lists[name])
		if err == nil && fromFile {
			secretPath := value
			if !filepath.IsAbs(secretPath) {
				secretPath = filepath.Join(filepath.Dir(path), secretPath)
			}
			value, err = readSecret(secretPath)
		}
		f := fs.Lookup(name)
		if err == nil {
			err = check(f, value)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %v", at, k.Value, err))
			continue
		}
		if s := src[name]; s.Kind != Default {
			s.Over = at
			src[name] = s
			continue
		}
		if err := set(f, value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %v", at, k.Value, err))
			continue
		}
		src[name] = Source{Kind: File, Where: at}
	}
	return errors.Join(errs...)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError words a YAML syntax error as path:line.
func yamlError(path string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(msg, "yaml: "))
}

// scalar returns a YAML value as a flag takes it: a scalar as written, a
// sequence of scalars (for a list) joined with commas.
func scalar(v *yaml.Node, list bool) (string, error) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return "", nil
	case v.Kind == yaml.ScalarNode:
		return v.Value, nil
	case v.Kind == yaml.SequenceNode && list:
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return "", errors.New("a list holds plain values, such as [reports.example.com, reports.internal]")
			}
			items = append(items, item.Value)
		}
		return strings.Join(items, ","), nil
	case list:
		return "", errors.New("write a value or a list of values, such as [reports.example.com, reports.internal]")
	}
	return "", errors.New("write a single value, such as a string, a number or a duration (30s)")
}

// check says whether value suits the flag f, and what would, without
// setting it and without repeating a secret.
func check(f *flag.Flag, value string) error {
	var err error
	switch v := f.Value.(type) {
	case *Choice:
		if !slices.Contains(v.choices, value) {
			err = fmt.Errorf("the choices are %s", strings.Join(v.choices, ", "))
		}
	case flag.Getter:
		switch v.Get().(type) {
		case time.Duration:
			if _, perr := time.ParseDuration(value); perr != nil {
				err = errors.New("write a duration such as 30s, 2m or 1h30m")
			}
		case bool:
			if _, perr := strconv.ParseBool(value); perr != nil {
				err = errors.New("write true or false")
			}
		case int:
			if _, perr := strconv.Atoi(value); perr != nil {
				err = errors.New("write a whole number, such as 60")
			}
		}
	}
	if err == nil {
		return nil
	}
	if secrets[f.Name] {
		return fmt.Errorf("the value is not valid; %v", err)
	}
	return fmt.Errorf("%q is not valid; %v", value, err)
}

// set checks value for the flag f, then sets it.
func set(f *flag.Flag, value string) error {
	if err := check(f, value); err != nil {
		return err
	}
	if err := f.Value.Set(value); err != nil {
		if secrets[f.Name] {
			return errors.New("the value is not valid")
		}
		return fmt.Errorf("%q is not valid: %v", value, err)
	}
	return nil
}

// maxSecret bounds a secret file: a key or a connection string.
const maxSecret = 64 << 10

// readSecret reads a secret from the file at path, without the line end
// that editors and echo leave.
func readSecret(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Size() > maxSecret {
		return "", fmt.Errorf("%s holds %d bytes; a secret file holds one value, at most %d bytes", path, info.Size(), maxSecret)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return s, nil
}

// suggest names the key closest to an unknown one, if one is close.
func suggest(key string, keys []string) string {
	best, bestD := "", 3
	for _, k := range keys {
		if d := distance(strings.ReplaceAll(key, "_", "-"), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
