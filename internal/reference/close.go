package reference

import (
	"sort"
	"strings"
)

// Names typed wrong. When a name or an email matches nothing, the people
// (or teams) whose names are close to it are the candidates, however few,
// and no figures. Close, as the product states it: fold both texts (case
// and accents aside, the words joined by one space); count the fewest
// one-letter insertions, deletions, substitutions and swaps of two
// neighbouring letters from one to the other, no letter edited twice; a
// name is close when what was typed is no more edits from the whole name,
// or from one of its words, than a quarter of that text's letters (at most
// three). An email is compared whole, in lower case, and may be as many
// edits away as a quarter of the letters before its "@". The closest come
// first; ties keep the roster's order, by key.

// edits allowed away from a text of n letters.
func editsAllowed(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	case n < 12:
		return 2
	}
	return 3
}

// editsBetween counts the edits from a to b, by the rule above, working
// from the ends of the two texts inwards and remembering each pair of
// lengths already worked out.
func editsBetween(a, b []rune) int {
	memo := map[[2]int]int{}
	var d func(i, j int) int // edits between a[:i] and b[:j]
	d = func(i, j int) int {
		if i == 0 {
			return j
		}
		if j == 0 {
			return i
		}
		k := [2]int{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		best := d(i-1, j) + 1 // drop a's last letter
		if v := d(i, j-1) + 1; v < best {
			best = v // add b's last letter
		}
		same := 1
		if a[i-1] == b[j-1] {
			same = 0
		}
		if v := d(i-1, j-1) + same; v < best {
			best = v
		}
		if i >= 2 && j >= 2 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
			if v := d(i-2, j-2) + 1; v < best {
				best = v // the last two letters swapped
			}
		}
		memo[k] = best
		return best
	}
	return d(len(a), len(b))
}

// within reports the edits from typed to text when they are allowed for
// text, or -1.
func within(typed, text string) int {
	n := len([]rune(text))
	if e := editsBetween([]rune(typed), []rune(text)); e <= editsAllowed(n) {
		return e
	}
	return -1
}

// nameCloseness is how many edits typed (folded words) is from a name: the
// fewest to the whole name or one of its words that are allowed, or -1.
func nameCloseness(typed []string, name string) int {
	words := nameWords(name)
	t := strings.Join(typed, " ")
	best := within(t, strings.Join(words, " "))
	for _, w := range words {
		if e := within(t, w); e >= 0 && (best < 0 || e < best) {
			best = e
		}
	}
	return best
}

// lowerPlain is text in lower case without its accents, not split.
func lowerPlain(s string) string {
	var b strings.Builder
	for r := range plainRunes(s) {
		b.WriteRune(r)
	}
	return b.String()
}

// closeOnes returns the numbers of the agents (or teams) close to what was
// typed, closest first, for a name that matched nothing.
func (w *world) closeOnes(kind, text string) []int {
	type near struct{ num, edits int }
	var found []near
	switch {
	case kind == "team":
		typed := nameWords(text)
		for i, t := range w.teams {
			if len(typed) > 0 {
				if e := nameCloseness(typed, t.name); e >= 0 {
					found = append(found, near{i, e})
				}
			}
		}
	case strings.Contains(text, "@"):
		typed := lowerPlain(text)
		for i, a := range w.agents {
			email := strings.ToLower(a.Email)
			at := strings.Index(email, "@")
			if at < 0 {
				at = len(email)
			}
			n := len([]rune(email[:at]))
			if e := editsBetween([]rune(typed), []rune(email)); e <= editsAllowed(n) {
				found = append(found, near{i, e})
			}
		}
	default:
		typed := nameWords(text)
		for i, a := range w.agents {
			if len(typed) > 0 {
				if e := nameCloseness(typed, a.Name); e >= 0 {
					found = append(found, near{i, e})
				}
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].edits < found[j].edits })
	out := make([]int, len(found))
	for i, f := range found {
		out[i] = f.num
	}
	return out
}
