package terminal_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/internal/oauth"
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

// plumbline token list shows each token's client id, which a client chose
// (a metadata document's URL): a terminal escape or a direction override
// in it never reaches the terminal, and its place is marked.
func TestTokenListNeutralisesClientIDs(t *testing.T) {
	var b bytes.Buffer
	at := time.Date(2026, 11, 18, 9, 0, 0, 0, time.UTC)
	err := terminal.Tokens(&b, []oauth.TokenInfo{{ID: 7, Kind: oauth.KindPerson, Subject: "p-dana",
		ClientID: "https://app.example.com/\u202egnp.exe\x1b[2J", Scope: []string{"reports:read"}, Created: at, Expires: at}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\u202e\x1b") || !strings.Contains(out, "https://app.example.com/\ufffdgnp.exe\ufffd[2J") {
		t.Errorf("token list printed %q", out)
	}
}
