// Package telemetry is how an operator watches plumbline run: Prometheus
// metrics (calls by tool and outcome, the time of each call and of each of
// its stages, refusals by rule, request-log failures, limit refusals,
// sign-in and token events, connection pool statistics) and OpenTelemetry
// traces (a span per call that continues the client's trace, with the
// stages and every SQL statement beneath it).
//
// Nothing here names a person or carries a call's arguments: labels are
// tools, outcomes, codes, argument paths, stages and pools, all of them
// fixed sets, and spans carry statements as plumbline wrote them, with
// placeholders, never the values bound to them.
//
// Every method of a nil *Metrics does nothing, so a server without a
// metrics listener pays nothing for them.
package telemetry
