// Package provision sets a database up for plumbline, in the one order that
// works: the migrations (the demo floor's first, when asked, then
// plumbline's own, then the company's own SQL), the data that needs the
// schema but must precede the grants, the roles, then the grants; and
// before any of it, a rehearsal rolled back that refuses, changing nothing,
// a plan whose grant files or catalogue name a relation that would not
// exist. plumbline setup, the demo and the
// test harness all provision through Database, so the three cannot drift.
// Demo does it for the demo floor on a private cluster (demo and bench),
// and DemoMembers stands in for the identity provider there.
package provision
