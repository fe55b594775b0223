package pgstore

import (
	"plumbline/reports/ask"
	"reflect"
	"slices"
	"testing"
)

// The SQL of a plan is kept by every field query.Build reads. When the plan
// gains a field, planKey must name it, or two plans that differ only there
// would share their SQL: this test lists the fields planKey names (a scope
// it names whole).
func TestPlanKeyNamesEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		want []string
	}{
		{ask.Plan{}, []string{"Catalog", "Metrics", "Scope", "Period", "Today", "GroupBy", "Ranked", "Limit"}},
		{ask.Period{}, []string{"Start", "End", "Named", "Clipped", "Ongoing", "AskedEnd"}},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("reports.%s has the fields %v; planKey names %v: name the new ones in planKey, then here", typ.Name(), got, c.want)
		}
	}
}
