// Package sqlcheck decides whether a statement may pass the analyst's door:
// exactly one plain SELECT, parsed by PostgreSQL's own parser (pg_query_go,
// which links the parser of PostgreSQL's source), that reads only
// allow-listed relations and calls only allow-listed built-in functions.
//
// The check is deny by default: every node of the parse tree must be of a
// kind the package knows to be harmless in a SELECT (columns, constants,
// operators, joins, sub-selects, WITH queries that only read, windows,
// aggregates, CASE and the like); anything else (a write, a utility
// statement, SELECT INTO, a locking clause, a parameter, a cast to a
// catalogue type, XML, an unqualified relation) is refused by name. What
// passes is deparsed from the checked tree, so the text that runs is the
// tree that was checked: comments, dollar quotes and Unicode escapes in the
// caller's text never reach the database as written. Every form of call
// the parser can make is held to the allow-lists: a function by its name,
// an operator (in an expression, ANY, ALL or ORDER BY … USING), a cast,
// and a name after a dot, which PostgreSQL reads as a call or a cast where
// no column has it (Policy.Catalog). FuzzCheck proves it against
// PostgreSQL itself. Its pages come from
// the same tree, ordered by its own ORDER BY and then by every column
// (Statement.Paged).
//
// A refusal teaches: the rule broken, the valid choices (the allowed
// relations or functions) and, where the tree says, the position in the
// statement; it never repeats the caller's text, not even the parser's own
// message, which quotes it. The database role the statement runs as is the
// real fence (package analyst); this check keeps what the role would refuse
// from reaching it at all, and keeps what only a role cannot refuse (public
// catalogues, session settings, sleeping) out.
package sqlcheck
