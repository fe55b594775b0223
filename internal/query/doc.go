// Package query turns a resolved report plan into one SQL statement with
// bound parameters.
//
// Every figure is a sum over agent-days, so a plan compiles to one shape:
//
//	WITH spans AS (…), -- each agent's runs of days on a team (on the floor)
//	     facts AS (<one branch per source> UNION ALL …)
//	SELECT <group key>, sum(p0), sum(p1), …, sum(k0), sum(l0), …
//	  FROM facts
//	  JOIN spans -- the team the agent was on that day, if it counted
//	GROUP BY … ORDER BY … LIMIT …
//
// Each source contributes a branch that yields (agent, day, p…, k…, l…):
// its own metrics' parts as column arithmetic and NULL for every other
// part; for each metric, k is 1 for an agent-day summed into it and l is 1
// for one left out of it because a part was unknown (the metric's nulls:
// leave_out rule), so that a ratio's parts always come from the same
// agent-days. A ratio whose parts come from two sources has a branch of its
// own that joins them by agent-day: a source with no row for the day counts
// zero if it was loaded that day and unknown if not. Nightly sources are read
// only up to their load watermark. Events (the live board) are first summed
// to agent-days in the floor's time zone. Ratios are divided by the engine
// from the summed parts. Identifiers come from the validated catalogue and
// are quoted; every value is a bound parameter.
package query
