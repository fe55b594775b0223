// Package reference is an independent evaluator of plumbline's report rules,
// for tests: a small, plain implementation of DESIGN §2 and §6 over the demo
// floor's raw tables, read with SELECT * and nothing else, that computes
// each report's rows, partial flags, truncation and the kinds of its
// warnings. It shares no code with the engine, the query builder or the
// catalogue: the demo catalogue's metrics, settle rules and reports are
// written out here again, by hand, from the catalogue's YAML, so that a
// mistake in either shows as a difference between the two.
package reference
