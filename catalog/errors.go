package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a catalogue file.
type Pos struct {
	File         string
	Line, Column int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// Error is one problem in a catalogue, with where it is and how to fix it.
type Error struct {
	Pos
	Msg  string // what is wrong
	Hint string // how to fix it; may be empty
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s (hint: %s)", e.Pos, e.Msg, e.Hint)
}

// Errors is every problem found in one load, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errorList collects problems as a load goes on.
type errorList struct{ errs Errors }

func (l *errorList) add(at Pos, hint, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: at, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	sort.SliceStable(l.errs, func(i, j int) bool {
		a, b := l.errs[i].Pos, l.errs[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return l.errs
}

// oneOf renders a list of valid choices for a hint.
func oneOf(choices []string) string {
	if len(choices) == 0 {
		return "none are defined"
	}
	return "one of " + strings.Join(choices, ", ")
}
