package terminal_test

import (
	"bytes"
	"testing"

	"plumbline/catalog"
	"plumbline/internal/terminal"
)

// A GitHub annotation escapes what would end its properties or its line:
// ':' and ',' in the file's name, '%' and newlines anywhere.
func TestGitHubEscaping(t *testing.T) {
	var b bytes.Buffer
	e := catalog.Error{Pos: catalog.Pos{File: "a:b,c.yaml", Line: 3, Column: 7}, Msg: "50% off\nsecond line", Hint: "fix it"}
	terminal.Check{W: &b, GitHub: true}.CatalogError(&e)
	if want := "::error file=a%3Ab%2Cc.yaml,line=3,col=7,title=plumbline check::50%25 off%0Asecond line (hint: fix it)\n"; b.String() != want {
		t.Errorf("escaped annotation = %q, want %q", b.String(), want)
	}
}
