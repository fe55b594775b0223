package oauth

import (
	"strings"
	"unicode"
)

// Neutralised marks, where client-supplied text is shown, each character
// DisplayText took out.
const Neutralised = '\uFFFD'

// DisplayText returns text a client supplied (its name, its id, a host of
// its redirect URI) as it may be shown to a person, on a page or a
// terminal: every control character (a bell, an escape that starts a
// terminal sequence, a line break), every character that changes the
// direction text runs in (a right-to-left override that makes
// "desk\u202Egpj.exe" read as "deskexe.jpg") and every line or paragraph
// separator is replaced by Neutralised, as are bytes that are not UTF-8.
// Every other character, an emoji's joiners among them, stays.
func DisplayText(text string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return Neutralised
		}
		return r
	}, strings.ToValidUTF8(text, string(Neutralised)))
}
