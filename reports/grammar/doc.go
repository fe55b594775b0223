// Package grammar is the grammar: each tool's name, the input JSON Schema
// a client reads of it and the metrics its answers carry ([Tools]), and
// the decoding of a call's arguments ([Parse], [Args]) into a [Request]
// checked against that schema and more. It needs only the catalogue and
// the raw JSON: who a name is, which days a period covers and whether the
// caller may ask are resolved by the engine above it. A decoder refuses
// with an [ask.Refusal] that never repeats what the caller sent.
package grammar
