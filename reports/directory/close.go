package directory

import (
	"slices"
	"strings"
	"unicode/utf8"

	"plumbline/reports/ask"
)

// This file finds the names close to one typed wrong. The rule, which the
// reference evaluator restates on its own:
//
//   - It applies only when a name or an email matches nothing by the rules
//     of matchAgents and resolveTeam (no key, no email, no name whose words
//     the typed words start). What it finds is always returned as
//     candidates, with no figures, even when it finds one: a guess is never
//     answered as if it had been asked.
//   - Text is folded before it is compared: lower case, accents dropped
//     ("Peña" reads "pena"), split into words at anything that is not a
//     letter or a digit, the words joined by single spaces.
//   - The distance between two folded texts is their optimal string
//     alignment distance (restricted Damerau–Levenshtein), counted in
//     letters: the fewest insertions, deletions and substitutions of one
//     letter and swaps of two adjacent letters that turn one into the
//     other, no letter being edited twice.
//   - A person's or a team's name is close when the typed text is within
//     the allowance of the whole folded name, or of one of its words. The
//     allowance of a text is its length in letters divided by 4 (rounded
//     down), at most 3: a text of 3 letters or fewer must be typed exactly,
//     one of 4 to 7 letters may be one edit away, 8 to 11 two, 12 or more
//     three. "Tom Beker" is one edit from "tom becker" (10 letters, two
//     allowed); "Beker" one from "becker" (6 letters, one allowed).
//   - An email (typed text holding "@") is close when the typed text, in
//     lower case with accents dropped, is within the allowance of the
//     agent's email in lower case, the allowance reckoned from the length
//     of the part before the "@".
//   - Close names are ranked by their distance, the least first (a name's
//     distance is the least of its whole name's and its words' that are
//     within their allowance), then in directory order.
//
// The caller's text is never returned: candidates carry the directory's
// keys and names only.

// maxEdits bounds the allowance of a long text.
const maxEdits = 3

// allowance is how many edits a text of n letters may be from what was
// typed and still be close.
func allowance(n int) int {
	return min(n/4, maxEdits)
}

// folded is text folded for comparing: its words joined by single spaces.
func folded(text string) string {
	return strings.Join(tokens(text), " ")
}

// editDistance is the optimal string alignment distance between a and b,
// in runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows of the table: two back, one back and this one.
	back2 := make([]int, len(t)+1)
	back1 := make([]int, len(t)+1)
	row := make([]int, len(t)+1)
	for j := range back1 {
		back1[j] = j
	}
	for i := 1; i <= len(s); i++ {
		row[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			row[j] = min(back1[j]+1, row[j-1]+1, back1[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				row[j] = min(row[j], back2[j-2]+1)
			}
		}
		back2, back1, row = back1, row, back2
	}
	return back1[len(t)]
}

// closeness is how close typed (folded) is to a name, folded too:
// the least distance to the whole name or one of its words that is within
// that text's allowance, or -1 when none is.
func closeness(typed, name string) int {
	best := -1
	try := func(form string) {
		// A text more letters longer or shorter than allowed cannot be close.
		n := utf8.RuneCountInString(form)
		allow := allowance(n)
		if diff := n - utf8.RuneCountInString(typed); diff > allow || -diff > allow {
			return
		}
		if d := editDistance(typed, form); d <= allow && (best < 0 || d < best) {
			best = d
		}
	}
	try(name)
	for w := range strings.SplitSeq(name, " ") {
		try(w)
	}
	return best
}

// closest returns the items close to what was typed, closest first and
// then in the order given: distance says how far item i is, or -1 when it
// is not close.
func closest[T any](items []T, distance func(i int, item T) int) []T {
	type match struct{ at, distance int }
	var found []match
	for i, it := range items {
		if d := distance(i, it); d >= 0 {
			found = append(found, match{i, d})
		}
	}
	slices.SortStableFunc(found, func(a, b match) int { return a.distance - b.distance })
	out := make([]T, len(found))
	for i, m := range found {
		out[i] = items[m.at]
	}
	return out
}

// closeAgents returns the agents keep allows whose name (or, for a typed
// email, whose email) is close to text, closest first. It is asked only
// when nothing matched.
func (d *Directory) closeAgents(text string, keep func(ask.Agent) bool) []ask.Agent {
	if strings.Contains(text, "@") {
		typed := strings.ToLower(unaccented(text))
		return closest(d.Agents, func(_ int, a ask.Agent) int {
			if !keep(a) {
				return -1
			}
			email := strings.ToLower(a.Email)
			local, _, _ := strings.Cut(email, "@")
			if dist := editDistance(typed, email); dist <= allowance(utf8.RuneCountInString(local)) {
				return dist
			}
			return -1
		})
	}
	typed := folded(text)
	if typed == "" {
		return nil
	}
	return closest(d.Agents, func(i int, a ask.Agent) int {
		if !keep(a) {
			return -1
		}
		return closeness(typed, d.names[i])
	})
}

// closeTeams returns the teams sees allows (by key) whose name is close to
// text, closest first.
func (d *Directory) closeTeams(text string, sees func(key string) bool) []ask.Team {
	typed := folded(text)
	if typed == "" {
		return nil
	}
	return closest(d.Teams, func(i int, t ask.Team) int {
		if !sees(t.Key) {
			return -1
		}
		return closeness(typed, d.teamNames[i])
	})
}
