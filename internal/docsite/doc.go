// Package docsite renders a catalogue as a static HTML site, for analysts
// and managers who would rather look than read YAML: an index of the
// metrics by report, one page per metric (label, unit, definition, formula
// as sums, source relation and grain, counting basis, settle rule, the
// reports and tools that offer it, the grant's review), the concepts, the
// sources with their freshness rules, the analyst's allow-list (what the
// analyst's door may read, each relation with its grain and review), and a
// search box.
//
// The site has no external assets: styles, script and the search index are
// files of the site itself, so it works opened from disk as well as served.
package docsite
