// Package demofloor generates the demo sales floor: teams, agents, their
// history and daily figures, deterministically from a seed and an explicit
// "now", and loads it with COPY.
//
// The floor is small but full of the traps a naive report engine falls into:
// agents who transfer between teams, teams that join and leave the floor,
// names that nearly collide, an accented name, a leaver and a new hire, hours
// that have not come in yet (NULL), days with zero logged hours, approvals
// that settle days later, a live board that runs up to now while the nightly
// tables stop at yesterday or the day before, an evening shift whose board
// entries fall after midnight UTC (and some after midnight New York), a
// Sunday crew that works the two Sundays the clocks change, holidays on which
// nobody works although the nightly builds load them, the builds' own record
// of their runs (the load watermark), and member data that no plumbline role
// may read.
//
// Each agent-day draws from its own random stream (seed, agent, day), so a
// day's figures do not change when "now" moves on.
package demofloor
