// Package provision sets a database up for plumbline, in the one order that
// works: the migrations (the demo floor's first, when asked, then
// plumbline's own), the data that needs the schema but must precede the
// grants, the roles, then the grants. plumbline setup, the demo and the
// test harness all provision through Database, so the three cannot drift.
// Demo does it for the demo floor on a private cluster (demo and bench),
// and DemoMembers stands in for the identity provider there.
package provision
