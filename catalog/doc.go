// Package catalog loads and validates plumbline's metric catalogue: the YAML
// files in which analysts define, once, every metric a report may return.
//
// A catalogue is a directory of YAML files, merged. It names the time zone
// and limits of the floor, the roster relations (teams, agents and their
// dated history), the sources figures are summed from, the counting bases of
// sales, the concepts whose text is each metric's definition, the metrics
// themselves, and the reports (MCP tools) that offer them.
//
// A metric is either a sum or a ratio of two sums. Each part is column
// arithmetic over one source's own columns, so a ratio is always
// sum(numerator) / sum(denominator) over the rows in a group, and there is no
// way to write an average of rates.
//
// Loading reports every problem at once, each with file:line:column and a
// hint; a loaded Catalog is valid and must be treated as read-only.
package catalog
