package layout

import (
	"bytes"
	"flag"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's layout section from the package docs")

// The README's layout section lies between these two lines.
const (
	begin = "<!-- The rows below are the opening clause of each package's doc; `go test ./internal/layout -update` rewrites them. -->"
	end   = "<!-- end of the rows from the package docs -->"
)

// pkg is one package of the module: its directory from the module root,
// the doc comment of its files and the files that hold one.
type pkg struct {
	dir, name, doc string
	docFiles       []string
}

// packages reads every package of the module under root, as the go command
// finds them: directories named testdata, or starting with "." or "_", and
// node_modules are not searched; test files do not count.
func packages(t *testing.T, root string) []pkg {
	t.Helper()
	var out []pkg
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil {
			return err
		}
		var found pkg
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			found.name = file.Name.Name
			if file.Doc != nil {
				found.doc += file.Doc.Text()
				found.docFiles = append(found.docFiles, filepath.Base(f))
			}
		}
		if found.name == "" {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		found.dir = filepath.ToSlash(rel)
		out = append(out, found)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.dir, b.dir) })
	return out
}

// moduleRoot is the directory holding go.mod, two levels up from here.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the module root: %v", err)
	}
	return root
}

// opening is how a package's doc must begin: "Package x " for a library,
// "Command x " for a command, named after its directory.
func opening(p pkg) string {
	if p.name == "main" {
		return "Command " + path.Base(p.dir) + " "
	}
	return "Package " + p.name + " "
}

func TestEveryPackageHasADocComment(t *testing.T) {
	ps := packages(t, moduleRoot(t))
	if len(ps) < 2 {
		t.Fatalf("found %d packages; the walk of the module is broken", len(ps))
	}
	for _, p := range ps {
		if !strings.HasPrefix(p.doc, opening(p)) {
			t.Errorf("%s: the package doc must open %q; it is %q", p.dir, opening(p), firstLine(p.doc))
		}
		if !slices.Equal(p.docFiles, []string{"doc.go"}) {
			t.Errorf("%s: the package doc must be in doc.go alone, where a reader looks for it; it is in %v", p.dir, p.docFiles)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// section renders the README's layout rows: one per package, its directory
// and the opening clause of its doc (clause).
func section(ps []pkg) string {
	var b strings.Builder
	b.WriteString(begin + "\n\n| path | the package |\n|---|---|\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "| `%s/` | %s |\n", p.dir, strings.ReplaceAll(clause(p), "|", `\|`))
	}
	b.WriteString("\n" + end)
	return b.String()
}

// clause is the opening of a package's doc as the README's layout shows it:
// its first sentence without the "Package x " or "Command x " that opens it,
// up to the first colon, where the doc turns from what the package is to
// its details, and without the closing period. The rest stays in the doc,
// where go doc shows it.
func clause(p pkg) string {
	s := strings.TrimPrefix(new(doc.Package).Synopsis(p.doc), opening(p))
	s, _, _ = strings.Cut(s, ": ")
	return strings.TrimSuffix(s, ".")
}

func TestREADMELayoutIsThePackageDocs(t *testing.T) {
	root := moduleRoot(t)
	readme := filepath.Join(root, "README.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(text, []byte(begin)), bytes.Index(text, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("README.md has no layout section between the lines %q and %q", begin, end)
	}
	want := section(packages(t, root))
	got := string(text[i : j+len(end)])
	if got == want {
		return
	}
	if *update {
		out := slices.Concat(text[:i], []byte(want), text[j+len(end):])
		if err := os.WriteFile(readme, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's layout section is not the package docs; run go test ./internal/layout -update.\ngot:\n%s\nwant:\n%s", got, want)
}
