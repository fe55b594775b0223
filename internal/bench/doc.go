// Package bench measures plumbline as a peer would: for each tool, the
// whole MCP call over Streamable HTTP to a real plumbline server process
// beside the same report SQL run directly with pgx, on the same database,
// in one run.
//
//   - Paired rounds: each round makes one raw SQL run and one MCP call to
//     each server, in an order that rotates, so that drift on a shared
//     machine falls on both sides of every difference. The added time is
//     the median over rounds of (call − raw SQL) within a round, as the
//     client sees it and as the server does (its Server-Timing header).
//   - Round trips: each server also runs once behind a proxy that counts
//     the round trips it makes to PostgreSQL (every Sync and simple Query
//     message, after which the client waits); a call's count is the median
//     over sequential calls of the round trips made while it ran.
//   - Throughput: calls per second at each level of concurrency, each side
//     alone, with the processor time a call took by whom (bench itself, the
//     server's process, PostgreSQL's processes), and each server's peak
//     memory (RSS) over the measured calls.
//   - Durability: what waiting for the disk costs a request-log row, its
//     insert committed synchronously beside one committed lazily.
//
// A second server (another plumbline binary, such as a build of an earlier
// commit) may be measured in the same rounds, for a before and after from
// one run. The SQL a call runs is captured by answering the call once in
// process with a recording store, so the raw side runs exactly the report
// statements the server runs (in one batch, as the server sends them),
// without the governance around them.
package bench
