package terminal

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/snapshot"
)

// Check prints plumbline check's findings as a person reads them, or, with
// GitHub set, as GitHub Actions workflow commands (annotations on the
// files and lines at fault).
type Check struct {
	W      io.Writer
	GitHub bool
}

// CatalogError prints one problem of a catalogue.
func (c Check) CatalogError(e *catalog.Error) {
	if !c.GitHub {
		fmt.Fprintln(c.W, e.Error())
		return
	}
	msg := e.Msg
	if e.Hint != "" {
		msg += " (hint: " + e.Hint + ")"
	}
	fmt.Fprintf(c.W, "::error file=%s,line=%d,col=%d,title=plumbline check::%s\n",
		escapeProperty(e.File), e.Line, e.Column, escapeData(msg))
}

// Problems prints the database's problems and reports whether there were
// any.
func (c Check) Problems(problems []string) bool {
	for _, p := range problems {
		if c.GitHub {
			fmt.Fprintf(c.W, "::error title=plumbline check --db::%s\n", escapeData(p))
		} else {
			fmt.Fprintln(c.W, "database: "+p)
		}
	}
	return len(problems) > 0
}

// AllowList prints the analyst's allow-list: each relation with its grain,
// its review and the columns it grants.
func (c Check) AllowList(gs []*grants.Grant, role string) {
	fmt.Fprintf(c.W, "analyst allow-list (%d relations, read by %s through the analyst's door):\n", len(gs), role)
	tw := tabwriter.NewWriter(c.W, 2, 4, 2, ' ', 0)
	for _, g := range gs {
		cols := "every column"
		if g.Columns != nil {
			cols = strings.Join(g.Columns, ", ")
		}
		fmt.Fprintf(tw, "  %s\tgrain %s\treviewed by %s on %s\t%s\n", g.Relation, g.Grain, g.ReviewedBy, g.ReviewedOn.Format(time.DateOnly), cols)
	}
	tw.Flush()
}

// Contract prints the changes of the tools' contract from the snapshot in
// file, breaking ones apart from additive ones, and, for a person, how to
// take the additive ones into the snapshot.
func (c Check) Contract(file string, changes []snapshot.Change) {
	var breaking, additive []snapshot.Change
	for _, ch := range changes {
		if ch.Breaking {
			breaking = append(breaking, ch)
		} else {
			additive = append(additive, ch)
		}
	}
	if c.GitHub {
		for _, ch := range changes {
			level, title := "notice", "additive contract change"
			if ch.Breaking {
				level, title = "error", "breaking contract change"
			}
			fmt.Fprintf(c.W, "::%s file=%s,title=%s::%s\n", level, escapeProperty(file), title, escapeData(ch.String()))
		}
		return
	}
	if len(changes) == 0 {
		fmt.Fprintf(c.W, "contract: no changes from %s\n", file)
	}
	if len(breaking) > 0 {
		fmt.Fprintf(c.W, "Breaking contract changes (%d): clients that cached the tools of %s will fail\n", len(breaking), file)
		for _, ch := range breaking {
			fmt.Fprintln(c.W, "  "+ch.String())
		}
	}
	if len(additive) > 0 {
		fmt.Fprintf(c.W, "Additive contract changes (%d): cached clients keep working\n", len(additive))
		for _, ch := range additive {
			fmt.Fprintln(c.W, "  "+ch.String())
		}
		if len(breaking) == 0 {
			fmt.Fprintf(c.W, "Update the snapshot once the change is agreed: plumbline contract DIR -o %s\n", file)
		}
	}
}

// Tokens prints access tokens as plumbline token list shows them, a row
// each: never the token itself, which plumbline does not keep. A client id
// is the client's own text, shown as oauth.DisplayText makes it.
func Tokens(w io.Writer, tokens []oauth.TokenInfo) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tWHO\tCLIENT\tSCOPE\tCREATED\tEXPIRES\tREVOKED")
	for _, t := range tokens {
		revoked := "-"
		if t.Revoked != nil {
			revoked = t.Revoked.Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Kind, t.Subject, oauth.DisplayText(t.ClientID), strings.Join(t.Scope, ","),
			t.Created.Format(time.DateTime), t.Expires.Format(time.DateOnly), revoked)
	}
	return tw.Flush()
}

// GitHub's workflow command escaping: data escapes %, CR and LF; properties
// also escape : and ,.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
