// Package answer is the answers' JSON shape: a type for each kind of answer
// a tool gives, as a client receives it, and the rules by which its
// figures, columns and cells are written. It decides nothing about what an
// answer holds; package reports fills these in.
//
// A report's answer is a [Report] (or a [Canned] report's [Section]s), with
// the [Governed] fields every answer with figures carries: what each
// figure means ([MetricInfo]), its [PeriodInfo], how far its data runs
// ([DataThrough]) and the notes. A refused call answers [Refused]. The
// built-in tools answer [Roster], [People], [Freshness], [Definitions] and
// [Health].
//
// A figure is written by [Figure]: a count whole, hours to the hundredth,
// a ratio divided from its summed parts to six significant digits, and
// null for no data. A table's columns are named by [Columns] and its cells
// written by [AppendCells].
package answer
