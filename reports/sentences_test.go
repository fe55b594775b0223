package reports_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"plumbline/internal/contract"
	"plumbline/reports/ask"
)

// refusalSite is one place a refusal's text is written: its argument (empty
// for none) and its rule, as the source spells them, with what is worked
// out at run time (a date, a count, a list) standing in as a placeholder.
type refusalSite struct {
	at             string // file:line
	argument, rule string
	invalid        bool // an invalid_argument refusal
	choices        bool // written with choices
}

// The packages whose refusals reach a model, and the argument a refusal
// written there without one stands for (the analyst's statement checks are
// all about its sql argument).
var refusalPackages = map[string]string{
	".":                     "",
	"grammar":               "",
	"../internal/analyst":   "",
	"../internal/mcpserver": "",
	"../internal/oauth":     "",
	"../internal/sqlcheck":  "sql",
}

// refusalSites finds every place in those packages' sources where a
// refusal's rule is written: ask.Invalid(argument, rule, ...), lackingRule(
// argument, rule, ...), ask.Unavailable(code, rule), an ask.Refusal literal with a
// Rule, or an assignment to a refusal's Rule.
// A rule passed through from a parameter is checked where it is written.
func refusalSites(t *testing.T) []refusalSite {
	var sites []refusalSite
	for dir, sqlArg := range refusalPackages {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		consts := map[string]string{}
		var parsed []*ast.File
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, f)
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						vs := s.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if i < len(vs.Values) {
								if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
									consts[n.Name], _ = strconv.Unquote(lit.Value)
								}
							}
						}
					}
				}
			}
		}
		text := func(e ast.Expr) (string, bool) { return spelled(e, consts) }
		for _, f := range parsed {
			ast.Inspect(f, func(n ast.Node) bool {
				at := func() string {
					p := fset.Position(n.Pos())
					return filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line)
				}
				switch n := n.(type) {
				case *ast.CallExpr:
					name := exprName(n.Fun)
					if len(n.Args) < 2 {
						return true
					}
					switch name {
					case "lackingRule": // lists the metrics that have what it asks for
						arg, _ := text(n.Args[0])
						if rule, ok := text(n.Args[1]); ok {
							sites = append(sites, refusalSite{at: at(), argument: arg, rule: rule, invalid: true, choices: true})
						}
					case "invalid", "Invalid":
						arg, _ := text(n.Args[0])
						if rule, ok := text(n.Args[1]); ok {
							sites = append(sites, refusalSite{at: at(), argument: arg, rule: rule, invalid: true, choices: len(n.Args) > 2})
						}
					case "unavailable", "Unavailable":
						if rule, ok := text(n.Args[1]); ok {
							sites = append(sites, refusalSite{at: at(), rule: rule})
						}
					}
				case *ast.CompositeLit:
					if !isRefusal(n.Type) {
						return true
					}
					s := refusalSite{at: at(), argument: sqlArg, invalid: sqlArg != ""}
					found := false
					for _, el := range n.Elts {
						kv, ok := el.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						switch key := kv.Key.(*ast.Ident).Name; key {
						case "Argument":
							s.argument, _ = text(kv.Value)
						case "Rule":
							s.rule, found = text(kv.Value)
						case "Code":
							s.invalid = strings.HasSuffix(exprName(kv.Value), "CodeInvalidArgument")
						case "Choices":
							s.choices = !isEmptyList(kv.Value)
						}
					}
					if found {
						sites = append(sites, s)
					}
				case *ast.AssignStmt:
					s := refusalSite{at: at(), argument: sqlArg, invalid: true}
					if sqlArg == "" && dir == "../internal/analyst" {
						s.argument = "sql"
					}
					found := false
					for i, lhs := range n.Lhs {
						sel, ok := lhs.(*ast.SelectorExpr)
						if !ok || i >= len(n.Rhs) {
							continue
						}
						switch sel.Sel.Name {
						case "Argument":
							s.argument, _ = text(n.Rhs[i])
						case "Rule":
							s.rule, found = text(n.Rhs[i])
						case "Choices":
							s.choices = true
						}
					}
					if found {
						sites = append(sites, s)
					}
				}
				return true
			})
		}
	}
	return sites
}

func isRefusal(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Refusal"
	case *ast.SelectorExpr:
		return e.Sel.Name == "Refusal"
	}
	return false
}

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func isEmptyList(e ast.Expr) bool {
	c, ok := e.(*ast.CompositeLit)
	return ok && len(c.Elts) == 0
}

// spelled is an expression's text as the source spells it, with a
// placeholder for what is worked out at run time; ok is false when the
// text is a parameter passed through (written, and checked, elsewhere).
func spelled(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, _ := strconv.Unquote(e.Value)
			return s, true
		}
		return e.Value, true
	case *ast.ParenExpr:
		return spelled(e.X, consts)
	case *ast.BinaryExpr:
		a, okA := spelled(e.X, consts)
		b, okB := spelled(e.Y, consts)
		return a + b, okA || okB
	case *ast.Ident:
		if v, ok := consts[e.Name]; ok {
			return v, true
		}
		// A parameter or a variable: passed on whole, it is written (and
		// checked) elsewhere; within a text, it stands for a value.
		return "XYZ", false
	case *ast.CallExpr:
		if exprName(e.Fun) == "Sprintf" && len(e.Args) > 0 {
			format, ok := spelled(e.Args[0], consts)
			return verb.ReplaceAllStringFunc(format, func(v string) string {
				if strings.HasSuffix(v, "d") {
					return "7"
				}
				return "XYZ"
			}), ok
		}
		if exprName(e.Fun) == "itoa" || exprName(e.Fun) == "Itoa" {
			return "7", true
		}
		return "XYZ", true
	case *ast.SelectorExpr:
		// A field passed on, such as a check's rule: written elsewhere.
		return "XYZ", false
	}
	return "XYZ", true
}

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// predicate lists the words a rule about an argument may start with: it
// reads after the argument's name, so it starts with a verb.
var predicate = []string{"is", "are", "must", "matches", "has", "holds", "lists", "needs", "ends", "keeps", "orders",
	"compares", "sets", "chooses", "gives", "uses", "names", "reads", "nests", "changes", "locks", "casts", "covers",
	"takes", "fetches", "returns", "ran", "calls", "selects", "divides", "hit", "could", "mixes", "creates", "writes",
	"includes", "asks", "starts", "was", "cannot", "does", "do", "with"}

// sentenceFaults says what keeps a refusal's text from reading as a
// sentence a person would write.
func sentenceFaults(argument, rule string, invalid, choices bool) []string {
	var out []string
	text := rule
	if argument != "" {
		text = argument + " " + rule
		first, _, _ := strings.Cut(rule, " ")
		if !slices.Contains(predicate, first) {
			out = append(out, "the rule does not read after the argument's name (it starts "+strconv.Quote(first)+")")
		}
	} else if r, _ := utf8.DecodeRuneInString(rule); !unicode.IsUpper(r) {
		out = append(out, "a rule about no argument does not start with a capital")
	}
	if !strings.HasSuffix(text, ".") || strings.HasSuffix(text, "..") {
		out = append(out, "it does not end with one period")
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return unicode.IsSpace(r) })
	for i := 1; i < len(words); i++ {
		if words[i] == words[i-1] && unicode.IsLetter([]rune(words[i])[0]) {
			out = append(out, "it doubles the word "+strconv.Quote(words[i]))
		}
	}
	for _, bad := range []string{"  ", " ;", " ,", " .", ";;", ",,", "; .", ". ;"} {
		if strings.Contains(text, bad) {
			out = append(out, "it has "+strconv.Quote(bad))
		}
	}
	if invalid {
		if argument == "" {
			out = append(out, "an invalid argument refusal names no argument")
		}
		if !choices && !strings.ContainsAny(rule, ";:") && !strings.HasPrefix(rule, "must") {
			out = append(out, "it says neither the valid choices nor what to do instead")
		}
	}
	return out
}

// Every refusal text that can reach a model reads as a sentence a person
// would write: a rule about an argument reads after the argument's name and
// says what to do or lists the choices, a rule about none starts with a
// capital, each ends with a period, and none doubles a word or breaks off.
func TestEveryRefusalReadsAsASentence(t *testing.T) {
	sites := refusalSites(t)
	if len(sites) < 100 {
		t.Fatalf("found %d places refusals are written; the scan has lost some", len(sites))
	}
	for _, s := range sites {
		for _, fault := range sentenceFaults(s.argument, s.rule, s.invalid, s.choices) {
			t.Errorf("%s: %s: %q", s.at, fault, strings.TrimSpace(s.argument+" "+s.rule))
		}
	}
}

// The text a model reads of a refusal is its sentence.
func TestARefusalsSentence(t *testing.T) {
	for _, tc := range []struct {
		r    ask.Refusal
		want string
	}{
		{ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "who.agent", Rule: "matches no agent; give an agent_key."},
			"who.agent matches no agent; give an agent_key."},
		{ask.Refusal{Code: ask.CodeBusy, Rule: "The server is busy; try again in a few seconds."},
			"The server is busy; try again in a few seconds."},
	} {
		if got := tc.r.Sentence(); got != tc.want {
			t.Errorf("Sentence() = %q, want %q", got, tc.want)
		}
		if got, want := tc.r.Error(), tc.r.Code+": "+tc.want; got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}

// Refusals as a model reads them, called for: each bad call is refused
// with a sentence that has none of the faults above, and its text reads
// "Refused (code): " and that sentence.
func TestRefusalsCalledForReadAsSentences(t *testing.T) {
	e := exampleEngine()
	week := `"period":{"named":"last_week"}`
	calls := []struct{ tool, args string }{
		{"sales", `[1]`},
		{"sales", `{"who":{"floor":true},` + week + `,"zq9":1}`},
		{"sales", `{` + week + `}`},
		{"sales", `{"who":{},` + week + `}`},
		{"sales", `{"who":{"floor":false},` + week + `}`},
		{"sales", `{"who":{"agent":"Zebediah Quux"},` + week + `}`},
		{"sales", `{"who":{"team":"Owls"},` + week + `}`},
		{"sales", `{"who":{"agent":7},` + week + `}`},
		{"sales", `{"who":{"agent":""},` + week + `}`},
		{"sales", `{"who":{"floor":true}}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"someday"}}`},
		{"sales", `{"who":{"floor":true},"period":{"day":"2026-02-30"}}`},
		{"sales", `{"who":{"floor":true},"period":{"day":"2027-01-01"}}`},
		{"sales", `{"who":{"floor":true},"period":{"week":"2027-01-01"}}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-11-10"}}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-11-10","end":"2026-11-01"}}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-01-01","end":"2026-11-01"}}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-11-01","end":"2027-01-01"}}`},
		{"sales", `{"who":{"floor":true},"period":{"day":"11/17/2026"}}`},
		{"sales", `{"who":{"floor":true},"period":{}}`},
		{"sales", `{"who":{"floor":true},` + week + `,"metrics":[]}`},
		{"sales", `{"who":{"floor":true},` + week + `,"metrics":["nope"]}`},
		{"sales", `{"who":{"floor":true},` + week + `,"metrics":["close_rate","close_rate"]}`},
		{"sales", `{"who":{"floor":true},` + week + `,"top_n":3}`},
		{"sales", `{"who":{"floor":true},` + week + `,"sort":{"metric":"close_rate"}}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"agent","top_n":0}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"agent","sort":{}}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"agent","sort":{"metric":"nope"}}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"planet"}`},
		{"sales", `{"who":{"floor":true},` + week + `,"compact":"yes"}`},
		{"sales", `{"who":{"floor":true},` + week + `,"compare_counts":true,"metrics":["close_rate"]}`},
		{"sales", `{"who":{"floor":true},` + week + `,"cumulative":true}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"day","cumulative":true,"top_n":2}`},
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"day","compare_to":"previous_period"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"this_year"},"group_by":"day"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"last_year"},"group_by":"day"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"year_to_date"},"group_by":"day","cumulative":true}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-03-01","end":"2026-11-15"},"group_by":"day"}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2024-03-01","end":"2026-11-15"},"group_by":"month"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team","cumulative":true}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"quarter","compare_to":"previous_year"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"last_year"},"compare_to":"previous_year"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"today"},"group_by":"agent","top_n":2}`},
		{"sales", `{"who":{"floor":true},"period":{"day":"2025-01-01"}}`},
		{"sales", `{"who":{"agent":"a1"},` + week + `,"compare_to":"target"}`},
		{"sales", `{"who":{"floor":true},"period":{"start":"2026-11-10","end":"2026-11-12"},"compare_to":"target"}`},
		{"team_day", `{"who":{"agent":"a1"}}`},
		{"team_day", `{"who":{"floor":true},"period":{"named":"last_week"}}`},
		{"league", `{"period":{"named":"today"}}`},
		{"roster", `{"who":{"floor":true},"day":"2027-01-01"}`},
		{"roster", `{"who":{"floor":true},"day":"2026-02-30"}`},
		{"find_people", `{}`},
		{"nosuch", `{}`},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, c.tool, json.RawMessage(c.args))
		r := a.Refusal
		if r == nil {
			t.Errorf("%s %s was not refused", c.tool, c.args)
			continue
		}
		seen[r.Code+" "+r.Argument+" "+r.Rule] = true
		for _, fault := range sentenceFaults(r.Argument, r.Rule, r.Code == ask.CodeInvalidArgument, len(r.Choices) > 0) {
			t.Errorf("%s %s: %s: %q", c.tool, c.args, fault, r.Sentence())
		}
		text, ok := contract.Text(e, a, func(s string) string { return s })
		if first, _, _ := strings.Cut(text, "\n"); !ok || first != "Refused ("+r.Code+"): "+r.Sentence() {
			t.Errorf("%s %s reads %q", c.tool, c.args, first)
		}
	}
	if len(seen) < 35 {
		t.Errorf("the calls met %d kinds of refusal; each call should meet its own", len(seen))
	}
}
