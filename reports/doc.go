// Package reports is the report engine: it owns the meaning of a call
// (who, which days, which metrics, how grouped and ranked) and the
// answer's contract (figures with their definitions, how far their data
// runs, what is partial, and the notes to pass on). It decides; it does no
// I/O of its own. Everything it reads comes through a [ask.Store]. The
// tools' grammar (their names, the input schemas calls are decoded by, and
// the metrics each carries) is package grammar's; package
// internal/contract adds the rest of what a client reads.
//
// # One request
//
// [Engine.Call] decodes and checks a call's arguments ([grammar.Request]), resolves
// who against the directory (names are matched in Go, never sent to the
// store) and the period in the catalogue's time zone, puts the call on
// record through the [ask.Recorder] and holds the caller to its limit, then
// hands the store one or more [ask.Plan] values, and turns the
// [ask.Result] rows into an [Answer]: an [answer.Report], an
// [answer.Canned], a [CandidatesAnswer] or an [answer.Refused], the shapes
// package answer holds.
//
// # The hand-off
//
// Package ask holds what crosses to the store and back. [ask.Plan] is the
// only thing the engine hands the store: the metrics, the resolved
// [ask.Scope] and [ask.Period], the grouping and the row cap. The store
// (internal/pgstore over PostgreSQL) builds and runs its SQL and returns, per
// plan, each group's summed parts with the agent-days kept and left out,
// and how far each source was loaded in the same snapshot ([ask.Coverage]).
// Ratios are divided, groups without rows filled, rows ranked and cut here,
// from those sums. The store reads the roster too ([ask.Roster]), which
// the engine indexes as its [directory.Directory]: whom a call's who names,
// and who counts on which days.
//
// Two more packages below the engine hold rules it applies: package
// calendar, the floor's calendar (what a named period means on a day, the
// period a comparison sets beside another, when a day is whole), and
// package answer, the answers' JSON shapes and how a figure is written.
// Package target sets figures beside their targets (compare_to target, a
// league ranked by attainment): which target period a period is, a team's
// or the floor's target over its counted days, and the notes on them.
//
// # Explaining and previewing
//
// A call can be explained without running it (plumbline explain): a
// [DryRun] store records the plans the engine's own path hands it, and
// [KeysOnly] stands in for the directory when there is no database.
// [PreviewChanges] sums a catalogue change's redefined metrics (see
// catalog.Diff) under both definitions over one week of the same data
// (plumbline check --diff), with the rules the answers use:
// [calendar.LastWholeWeek], [ask.Plan.Span] and [answer.Figure].
//
// # Invariants
//
//   - Every answer with figures states what each one means, its counting
//     basis, how far its data runs (data_through) and whether it is partial;
//     a figure is never shown as final when a day of it can still change.
//   - A ratio is divided from sums over the group, never averaged, and its
//     parts always come from the same agent-days.
//   - Zero means no activity on loaded days; null means no data. A group in
//     scope with no rows is listed, never dropped.
//   - Who a call is from comes from the [ask.Caller], never from its arguments.
//     Names in an answer come from the directory; no answer or refusal
//     echoes text the caller typed.
//   - Bad input is refused with a [ask.Refusal] that names the argument, the
//     rule and the valid choices, and the engine stays up; store faults
//     become the few codes a caller can act on (busy, timeout,
//     unavailable), their detail logged only.
//   - An answer depends only on the catalogue, the store's rows and the
//     moment [Options.Now]: the same three give the same figures.
package reports
