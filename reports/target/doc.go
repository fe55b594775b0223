// Package target sets figures beside their targets: which target period a
// report's period is, a team's or the floor's target over the days its
// figures count, attainment, and the notes on the targets an answer used
// or lacks.
//
// Targets are data, set by a person and dated: a team's target for a
// metric over a week or a calendar month, the latest version holding
// ([directory.Directory.Target]). A figure and its target cover the same
// days: the days of the period the figure's sources are loaded for
// (counted days), and of those only the team's days on the floor, which
// are the days a target holds on. A count's target spreads over those days
// where the catalogue says so, and a floor's is the sum of its teams'; a
// ratio's holds as set, the gap is stated in points, and the floor has
// none. A team without a target has a null one, never zero.
//
// [SpanFor] finds the target period ([Span]) of the period a call asks
// about, or refuses it; [Comparable] refuses a call that cannot be set
// beside targets. A [Comparison], made by [New] or [Weekly], renders rows
// beside their targets and gathers what the answer says about them, which
// [Comparison.Notes] gives out and [Comparison.Stamp] states per metric.
package target
