package catalog

import (
	"fmt"
	"strings"
	"unicode"
)

// Expr is column arithmetic over one source's own columns: column names,
// numeric literals, + - * and parentheses. Nothing else can be written, so a
// metric can never call a function, run a subquery or average a rate.
type Expr struct {
	text string
	root term
}

type term interface {
	render(col func(string) string, b *strings.Builder)
}

type column struct{ name string }
type number struct{ text string }
type binary struct {
	op   byte
	l, r term
}

func (c column) render(col func(string) string, b *strings.Builder) { b.WriteString(col(c.name)) }
func (n number) render(_ func(string) string, b *strings.Builder)   { b.WriteString(n.text) }
func (x binary) render(col func(string) string, b *strings.Builder) {
	b.WriteByte('(')
	x.l.render(col, b)
	b.WriteString(" " + string(x.op) + " ")
	x.r.render(col, b)
	b.WriteByte(')')
}

// String returns the expression as the catalogue wrote it.
func (e *Expr) String() string { return e.text }

// SQL renders the expression, fully parenthesised, with each column name
// replaced by col(name). col must return a safely quoted reference.
func (e *Expr) SQL(col func(name string) string) string {
	var b strings.Builder
	e.root.render(col, &b)
	return b.String()
}

// Columns returns the column names the expression reads, in order of first use.
func (e *Expr) Columns() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(t term)
	walk = func(t term) {
		switch t := t.(type) {
		case column:
			if !seen[t.name] {
				seen[t.name] = true
				out = append(out, t.name)
			}
		case binary:
			walk(t.l)
			walk(t.r)
		}
	}
	walk(e.root)
	return out
}

// FormulaError is a syntax error at a byte offset in a formula.
type FormulaError struct {
	Offset int
	Msg    string
}

func (e *FormulaError) Error() string { return e.Msg }

// ParseExpr parses column arithmetic.
func ParseExpr(text string) (*Expr, error) {
	p := &parser{src: text}
	p.next()
	root, err := p.sum()
	if err != nil {
		return nil, err
	}
	switch {
	case p.tok == tokBad && p.lit == "/":
		return nil, p.fail("division is not allowed inside a sum; declare a ratio: with a numerator and a denominator instead")
	case p.tok != tokEOF:
		return nil, p.fail("unexpected %q; a formula joins columns and numbers with + - *", p.lit)
	}
	return &Expr{text: strings.TrimSpace(text), root: root}, nil
}

type token int

const (
	tokEOF token = iota
	tokIdent
	tokNumber
	tokOp
	tokLParen
	tokRParen
	tokBad
)

type parser struct {
	src     string
	pos, at int // scan position; start of the current token
	tok     token
	lit     string
}

func (p *parser) fail(format string, args ...any) error {
	return &FormulaError{Offset: p.at, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) next() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
	p.at = p.pos
	if p.pos >= len(p.src) {
		p.tok, p.lit = tokEOF, ""
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '_' || c < 0x80 && unicode.IsLetter(rune(c)):
		for p.pos < len(p.src) && (p.src[p.pos] == '_' || p.src[p.pos] < 0x80 && (unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos])))) {
			p.pos++
		}
		p.tok = tokIdent
	case c >= '0' && c <= '9':
		for p.pos < len(p.src) && (p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '.') {
			p.pos++
		}
		p.tok = tokNumber
	case c == '+' || c == '-' || c == '*':
		p.pos++
		p.tok = tokOp
	case c == '(':
		p.pos++
		p.tok = tokLParen
	case c == ')':
		p.pos++
		p.tok = tokRParen
	default:
		p.pos++
		p.tok = tokBad
	}
	p.lit = p.src[p.at:p.pos]
}

func (p *parser) sum() (term, error) {
	l, err := p.product()
	for err == nil && p.tok == tokOp && (p.lit == "+" || p.lit == "-") {
		op := p.lit[0]
		p.next()
		var r term
		if r, err = p.product(); err == nil {
			l = binary{op, l, r}
		}
	}
	return l, err
}

func (p *parser) product() (term, error) {
	l, err := p.factor()
	for err == nil && p.tok == tokOp && p.lit == "*" {
		p.next()
		var r term
		if r, err = p.factor(); err == nil {
			l = binary{'*', l, r}
		}
	}
	return l, err
}

func (p *parser) factor() (term, error) {
	switch p.tok {
	case tokIdent:
		name := p.lit
		p.next()
		if p.tok == tokLParen {
			return nil, p.fail("function calls such as %s(...) are not allowed; a ratio or sum is declared with ratio: or sum:, never written as a function", name)
		}
		return column{name}, nil
	case tokNumber:
		lit := p.lit
		if strings.Count(lit, ".") > 1 || strings.HasSuffix(lit, ".") {
			return nil, p.fail("%q is not a number", lit)
		}
		p.next()
		return number{lit}, nil
	case tokLParen:
		p.next()
		inner, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.tok != tokRParen {
			return nil, p.fail("missing )")
		}
		p.next()
		return inner, nil
	case tokEOF:
		return nil, p.fail("the formula ends too early")
	case tokBad:
		return nil, p.fail("%q is not allowed; a formula joins columns and numbers with + - *", p.lit)
	default:
		return nil, p.fail("unexpected %q", p.lit)
	}
}
