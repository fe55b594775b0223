package mutants_test

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var enabled = flag.Bool("mutants", false, "apply each mutant under testdata/mutants to a copy of the module and require the tests it names to fail")

// mutant is a patch that breaks one rule of the engine, and the go test
// commands that must fail with it applied.
type mutant struct {
	name, path, why string
	catches         [][]string // each command's words after "go test"
	args            []string   // follows each command
}

// Each mutant under testdata/mutants, applied alone to a copy of the
// module's tracked files, makes each go test command it names fail, where
// each passes without it. The copy is one directory, each mutant applied
// and taken back in turn, so that Go's build cache keeps what a mutant
// does not touch.
func TestMutantsAreCaught(t *testing.T) {
	if !*enabled {
		t.Skip("the mutants run only with -mutants (make mutants)")
	}
	root := moduleRoot(t)
	mutants := readMutants(t, filepath.Join(root, "testdata", "mutants"))
	dir := copyTracked(t, root)

	// A command that fails without any mutant shows nothing about one.
	passes := map[string]bool{}
	for _, m := range mutants {
		for _, c := range m.commands() {
			key := strings.Join(c, " ")
			if _, ran := passes[key]; ran {
				continue
			}
			start := time.Now()
			out, err := goTest(dir, c)
			if passes[key] = err == nil; err != nil {
				t.Errorf("without a mutant, go test %s fails (%v):\n%s", key, time.Since(start).Round(time.Second), tail(out))
				continue
			}
			t.Logf("without a mutant, go test %s passes (%v)", key, time.Since(start).Round(time.Second))
		}
	}

	for _, m := range mutants {
		takenBack := true
		t.Run(m.name, func(t *testing.T) {
			if out, err := gitApply(dir, m.path); err != nil {
				t.Fatalf("%s does not apply to the tree: %v\n%s", m.path, err, out)
			}
			defer func() {
				if out, err := gitApply(dir, "-R", m.path); err != nil {
					takenBack = false
					t.Errorf("%s cannot be taken back: %v\n%s", m.path, err, out)
				}
			}()
			for _, c := range m.commands() {
				key := strings.Join(c, " ")
				if !passes[key] {
					t.Errorf("go test %s fails without the mutant, so it cannot show that it catches it", key)
					continue
				}
				start := time.Now()
				out, err := goTest(dir, c)
				took := time.Since(start).Round(time.Second)
				caught := failedTests(out)
				switch {
				case err == nil:
					t.Errorf("survives: go test %s passes with it (%v); it breaks this: %s", key, took, m.why)
				case len(caught) == 0:
					t.Errorf("go test %s fails with it, but no test fails: does it build?\n%s", key, tail(out))
				default:
					t.Logf("caught by %s in %v (go test %s)", strings.Join(caught, ", "), took, key)
				}
			}
		})
		if !takenBack {
			t.Fatalf("the copy still holds %s; the mutants after it would run on it", m.name)
		}
	}
}

// commands are the mutant's go test commands with its args, each run with
// -count=1 so that no cached result stands for a run.
func (m mutant) commands() [][]string {
	var out [][]string
	for _, c := range m.catches {
		out = append(out, slices.Concat([]string{"-count=1"}, c, m.args))
	}
	return out
}

// moduleRoot is the directory of the go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// readMutants reads every mutant's header, by name.
func readMutants(t *testing.T, dir string) []mutant {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no mutants in %s (%v)", dir, err)
	}
	var out []mutant
	for _, path := range paths {
		m, err := readMutant(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

// readMutant reads a mutant's comment lines.
func readMutant(path string) (mutant, error) {
	m := mutant{name: strings.TrimSuffix(filepath.Base(path), ".patch"), path: path}
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	var prose []string // comment lines of no key
	lines := bufio.NewScanner(f)
	for lines.Scan() && strings.HasPrefix(lines.Text(), "#") {
		text := strings.TrimSpace(strings.TrimPrefix(lines.Text(), "#"))
		key, value, _ := strings.Cut(text, ":")
		value = strings.TrimSpace(value)
		switch key {
		case "catches":
			words, err := shellWords(value)
			if err != nil {
				return m, err
			}
			if len(words) < 3 || words[0] != "go" || words[1] != "test" {
				return m, fmt.Errorf("catches %q is not a go test command of a package", value)
			}
			m.catches = append(m.catches, words[2:])
		case "args":
			if m.args, err = shellWords(value); err != nil {
				return m, err
			}
		case "why":
			m.why = value
		default:
			if text != "" {
				prose = append(prose, text)
			}
		}
	}
	if err := lines.Err(); err != nil {
		return m, err
	}
	if m.why == "" {
		// A mutant may say what it breaks in comment lines of its own.
		m.why = strings.Join(prose, " ")
	}
	if len(m.catches) == 0 || m.why == "" {
		return m, errors.New("a mutant needs a '# catches:' line, and a '# why:' line (or comment lines) saying what it breaks, before its diff")
	}
	return m, nil
}

// shellWords splits a command line as a shell does words that are plain or
// in single quotes, which is all a catches line needs.
func shellWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t'):
			if inWord {
				words = append(words, word.String())
				word.Reset()
			}
			inWord = false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("an unclosed quote in %q", s)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// copyTracked copies the files git tracks in the module (as they are in the
// working tree) into a temporary directory.
func copyTracked(t *testing.T, root string) string {
	t.Helper()
	list, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		from, to := filepath.Join(root, name), filepath.Join(dir, name)
		info, err := os.Lstat(from)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err == nil {
			err = os.MkdirAll(filepath.Dir(to), 0o755)
		}
		if err == nil {
			err = copyFile(from, to, info)
		}
		if err != nil {
			t.Fatalf("copy %s: %v", name, err)
		}
	}
	return dir
}

// copyFile copies a file, or a symbolic link as a link.
func copyFile(from, to string, info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, info.Mode().Perm())
}

// gitApply runs git apply in dir, a directory outside any repository: git
// must not look for one above it.
func gitApply(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"apply"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return cmd.CombinedOutput()
}

// goTest runs go test with args in dir.
func goTest(dir string, args []string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests names the tests a go test output says failed.
func failedTests(out []byte) []string {
	var names []string
	for _, m := range failLine.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// tail is the end of a command's output, enough to see why it failed.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-40):], "\n")
}
