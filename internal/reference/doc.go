// Package reference is an independent evaluator of plumbline's report rules,
// for tests: a plain implementation, over the demo floor's raw tables read
// with SELECT * and nothing else, of what an answer must hold (rows, partial
// flags, truncation, targets, comparisons and the kinds of its warnings).
//
// It is written from the product's words (DESIGN §2, §4 and §6, the README's
// "The tools" and "A worked example", and the rules of issue 40 for targets
// and to-date comparisons), not from the engine's code, and it works
// differently on purpose, so that a mistake the two could share has nowhere
// to hide: the floor is laid out once as a table of every agent-day (the
// team that day, on the staff or not) and every team-day (on the floor or
// not); periods are found by walking a calendar built one day at a time;
// names are matched by giving each typed word a name word of its own,
// and a name typed wrong is measured by edits counted from the ends of the
// two texts inwards; rows
// are ranked by sort keys built as byte strings; and every sum is kept in
// whole numbers (hours in hundredths). The demo catalogue's metrics, settle
// rules, targets and reports are written out again by hand from its YAML.
//
// It also says whom a call is about for a caller of limited reach (reach.go),
// read from plumbline.reach with SELECT * and resolved from the product's
// words on reach, for the test that each caller is answered within it.
package reference
