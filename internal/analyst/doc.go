// Package analyst is the analyst's door: one parsed SELECT per call, for a
// contained agent (a service identity holding the analyst scope) and for no
// one else.
//
// A call goes through these steps, each of which can refuse it:
//
//   - the arguments: the statement (sql), page_size (clamped to 50) and
//     offset;
//   - the statement, checked by PostgreSQL's own parser against the
//     allow-lists (package sqlcheck);
//   - the audit: the statement, its fingerprint, the caller and the client
//     are written to plumbline.analyst_log before anything runs, and the
//     call is refused if that write fails;
//   - the caller: only a service identity the token allows the door may
//     pass; anyone else is refused, on record;
//   - the per-service limit, counted in the audit log in the same round
//     trip as the audit write, so it holds across replicas;
//   - the run: in a read-only transaction that ends in ROLLBACK, signed in
//     as the agent login (a member of the analyst role alone, so no
//     statement can become another role) and running as the analyst role,
//     with its own statement timeout, work_mem and search path, named after
//     the service (application_name); one page of rows and one more, to
//     know whether there are more. Pages are in a total order, the
//     statement's ORDER BY and then every column, so that together they
//     hold each row of its result exactly once; a column PostgreSQL cannot
//     order (json) is refused with how to cast it. Rows are read within
//     the bounds of a value and of a page (Options.ValueBytes, PageBytes):
//     past one, the door stops reading and cancels the statement, and the
//     page ends at the rows that fit or the call is refused. The agent
//     login's store is foreign (pgstore.Options.Foreign): its connections
//     are reset between statements, and a statement is over within its
//     timeout and a grace. The analyst role and the agent login carry the
//     analyst's limits (grants.Limits), which the startup guard checks.
//
// The outcome (ok or the refusal, the rule broken, the rows and the time)
// is written to the audit log afterwards; the rows themselves never are.
// Every answer says it is not verified: the figures are the agent's own
// SQL, not plumbline's governed definitions.
package analyst
