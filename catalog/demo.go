package catalog

import (
	"embed"
	"io/fs"
)

//go:embed demo/*.yaml
var demoFiles embed.FS

// DemoDir is where the demo floor's catalogue lives in the source tree.
const DemoDir = "catalog/demo"

// Demo loads the demo floor's catalogue, embedded in the binary.
func Demo() (*Catalog, error) {
	sub, err := fs.Sub(demoFiles, "demo")
	if err != nil {
		return nil, err
	}
	return Load(sub, DemoDir)
}
