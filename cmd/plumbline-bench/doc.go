// Command plumbline-bench measures a plumbline server as a peer would: each
// tool over MCP beside the same report SQL run directly, calls per second,
// round trips and memory, the bytes the model reads, or a soak of hours.
//
// It is a tool apart from the server, which does not link it: it runs the
// server of a plumbline binary (the one beside it, or --bin's) as a
// process. Run "plumbline-bench --help" for its flags.
package main
