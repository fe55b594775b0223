// Package directory indexes the roster: who is on which team and which
// teams are on the floor on which days, and whom a call's who names.
//
// A [Directory] is built by [New] from the roster a store reads, as of a
// day, and never changes after: the engine reads one for every call, so its
// indexes are built once, and what it works out for a scope and period
// ([Directory.Stints]) is kept for the calls after. It resolves the text of
// a call's who into a scope within the caller's reach
// ([Directory.Resolve], [Directory.DefaultScope], [FloorScope]), matching
// names, emails and keys in Go against rows read with no caller input
// (typed text never reaches SQL) and suggesting the names close to one typed
// wrong; it refuses a who outside the reach naming only what the caller may
// ask for. It says who counts for a scope on which days of a period
// ([Stint]), what cut their days short, and which teams were on the floor
// when, and it finds a team's targets.
package directory
