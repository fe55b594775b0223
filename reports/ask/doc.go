// Package ask is the report engine's hand-off to the packages below it:
// the vocabulary package reports and they pass each other. It holds a
// resolved [Plan] and the [Result] rows a [Store] returns for it, the
// data-only [Roster] the engine indexes, the [Caller] a call is from, with
// the [Reach] of what they may see, and the [Record] a [Recorder] keeps of
// each call: data and the few rules that are part of its meaning, never
// the engine's decisions.
package ask
