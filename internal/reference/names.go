package reference

import (
	"iter"
	"strings"
	"unicode"
)

// Names are matched as the directory's people and teams would be looked up
// by hand: a key or an email as written, else a name's words, accents and
// case aside, either all of them in order or each typed word the start of a
// different word of the name; a name that matches nothing this way may
// still be close to some (close.go).

// bare is what an accented Latin letter reads as without its accent.
var bare = map[rune]rune{}

func init() {
	for plain, accented := range map[rune]string{
		'a': "àáâãäåāăą", 'c': "çćĉċč", 'd': "ď", 'e': "èéêëēĕėęě", 'g': "ĝğġģ", 'h': "ĥ",
		'i': "ìíîïĩīĭįı", 'j': "ĵ", 'k': "ķ", 'l': "ĺļľ", 'n': "ñńņň", 'o': "òóôõöōŏő",
		'r': "ŕŗř", 's': "śŝşš", 't': "ţť", 'u': "ùúûüũūŭůűų", 'w': "ŵ", 'y': "ýÿŷ", 'z': "źżž",
	} {
		for _, r := range accented {
			bare[r] = plain
		}
	}
}

// nameWords folds a name to its words: lower case, accents dropped (a
// precomposed letter through the table above, a combining mark left out),
// split at anything that is not a letter or a digit.
func nameWords(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for r := range plainRunes(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			flush()
		}
	}
	flush()
	return out
}

// plainRunes yields s's letters in lower case, a precomposed letter through
// the table above and a combining mark left out.
func plainRunes(s string) iter.Seq[rune] {
	return func(yield func(rune) bool) {
		for _, r := range s {
			if r >= 0x300 && r <= 0x36f {
				continue
			}
			r = unicode.ToLower(r)
			if p, ok := bare[r]; ok {
				r = p
			}
			if !yield(r) {
				return
			}
		}
	}
}

func sameWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// startsWords says whether each typed word can be given a word of the name
// of its own that it starts: a bipartite matching, grown one typed word at a
// time along augmenting paths.
func startsWords(typed, name []string) bool {
	if len(typed) == 0 || len(typed) > len(name) {
		return false
	}
	owner := make([]int, len(name)) // the typed word holding each name word, or -1
	for i := range owner {
		owner[i] = -1
	}
	var place func(t int, tried []bool) bool
	place = func(t int, tried []bool) bool {
		for n, word := range name {
			if tried[n] || !strings.HasPrefix(word, typed[t]) {
				continue
			}
			tried[n] = true
			if owner[n] < 0 || place(owner[n], tried) {
				owner[n] = t
				return true
			}
		}
		return false
	}
	for t := range typed {
		if !place(t, make([]bool, len(name))) {
			return false
		}
	}
	return true
}

// who is a resolved who: its kind, key, name and number (team or agent).
type who struct {
	kind, key, name string
	num             int
}

// resolveWho resolves a request's who, or ends the call with a refusal or
// the candidates.
func (w *world) resolveWho(q Who) (who, *Expected) {
	switch {
	case q.Floor:
		return who{kind: "floor", name: "the floor", num: -1}, nil
	case q.Team != "":
		found := w.teamMatches(q.Team, everyone)
		if len(found) == 0 {
			if near := w.closeOnes("team", q.Team); len(near) > 0 {
				return who{}, suggest(near, func(i int) string { return w.teams[i].key })
			}
		}
		return pickOne(found, "team", func(i int) (string, string) { return w.teams[i].key, w.teams[i].name })
	}
	found := w.agentMatches(q.Agent, everyone)
	if len(found) == 0 {
		if near := w.closeOnes("agent", q.Agent); len(near) > 0 {
			return who{}, suggest(near, func(i int) string { return w.agents[i].Key })
		}
	}
	return pickOne(found, "agent", func(i int) (string, string) { return w.agents[i].Key, w.agents[i].Name })
}

// everyone keeps every team or agent: a name matched over the whole floor.
func everyone(int) bool { return true }

// teamMatches finds the teams text names among those keep keeps, by
// number: a key or the whole name, else each typed word starting a word of
// the name of its own.
func (w *world) teamMatches(text string, keep func(int) bool) []int {
	typed := nameWords(text)
	var exact, loose []int
	for i, t := range w.teams {
		if !keep(i) {
			continue
		}
		switch names := nameWords(t.name); {
		case strings.EqualFold(t.key, text), sameWords(names, typed):
			exact = append(exact, i)
		case startsWords(typed, names):
			loose = append(loose, i)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return loose
}

// agentMatches finds the agents text names among those keep keeps, by
// number: a key (which names its agent alone, kept or not), else an email
// as written, else the whole name, else each typed word starting a word
// of the name of its own.
func (w *world) agentMatches(text string, keep func(int) bool) []int {
	for i, a := range w.agents {
		if strings.EqualFold(a.Key, text) {
			if keep(i) {
				return []int{i}
			}
			return nil
		}
	}
	var exact, loose []int
	if strings.Contains(text, "@") {
		for i, a := range w.agents {
			if keep(i) && strings.EqualFold(a.Email, text) {
				exact = append(exact, i)
			}
		}
		return exact
	}
	typed := nameWords(text)
	for i, a := range w.agents {
		if !keep(i) {
			continue
		}
		if names := nameWords(a.Name); sameWords(names, typed) {
			exact = append(exact, i)
		} else if startsWords(typed, names) {
			loose = append(loose, i)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return loose
}

// suggest ends a call with the names close to one that matched nothing,
// by key, even a single one: a guess is never answered with figures.
func suggest(near []int, key func(int) string) *Expected {
	keys := make([]string, len(near))
	for i, n := range near {
		keys[i] = key(n)
	}
	return &Expected{Candidates: keys, Close: true}
}

// pickOne reads the matches of a name: none is a refusal, one the who,
// several the candidates, by key.
func pickOne(found []int, kind string, label func(int) (string, string)) (who, *Expected) {
	switch len(found) {
	case 0:
		return who{}, refuse("invalid_argument", "who."+kind)
	case 1:
		key, name := label(found[0])
		return who{kind: kind, key: key, name: name, num: found[0]}, nil
	}
	var keys []string
	for _, i := range found {
		key, _ := label(i)
		keys = append(keys, key)
	}
	return who{}, &Expected{Candidates: keys}
}
