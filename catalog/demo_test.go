package catalog_test

import (
	"testing"

	"plumbline/catalog"
)

func TestDemoCatalogLoads(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatalf("the demo catalogue does not load:\n%v", err)
	}
	for _, m := range cat.Metrics() {
		t.Logf("%-16s %-8s %s", m.ID, m.Unit, m.Formula())
	}
}
