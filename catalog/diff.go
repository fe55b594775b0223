package catalog

// This file compares two catalogues' metrics, for a reviewer of a change.

// Change is one metric redefined between two catalogues: its definition,
// formula or unit differ.
type Change struct {
	ID       string
	Old, New *Metric
}

// What says what changed, in the order definition, formula, unit.
func (c Change) What() []string {
	var out []string
	if c.Old.Definition() != c.New.Definition() {
		out = append(out, "definition changed")
	}
	if c.Old.Formula() != c.New.Formula() {
		out = append(out, "formula changed")
	}
	if c.Old.Unit != c.New.Unit {
		out = append(out, "unit changed")
	}
	return out
}

// Changes is how a catalogue's metrics differ from an older one's, by id.
type Changes struct {
	Changed        []Change
	Added, Removed []*Metric
}

// Empty reports whether no metric was added, removed or redefined.
func (d Changes) Empty() bool { return len(d.Changed)+len(d.Added)+len(d.Removed) == 0 }

// Diff lists the metrics of cur whose definition, formula or unit differ
// from old's, those added and those removed, each in order of id.
func Diff(old, cur *Catalog) Changes {
	var d Changes
	for _, o := range old.Metrics() {
		n, ok := cur.Metric(o.ID)
		switch {
		case !ok:
			d.Removed = append(d.Removed, o)
		case o.Definition() != n.Definition() || o.Formula() != n.Formula() || o.Unit != n.Unit:
			d.Changed = append(d.Changed, Change{ID: o.ID, Old: o, New: n})
		}
	}
	for _, n := range cur.Metrics() {
		if _, ok := old.Metric(n.ID); !ok {
			d.Added = append(d.Added, n)
		}
	}
	return d
}
