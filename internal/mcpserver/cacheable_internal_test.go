package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// When the tool list differs by caller (the analyst's door shows only to
// whom it allows), no one may share it.
func TestToolListPrivateWhenItDiffersByCaller(t *testing.T) {
	for _, perCaller := range []bool{false, true} {
		var c mcp.Cacheable
		cacheable(time.Minute, perCaller)(context.Background(), &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}}, &c)
		if want := map[bool]string{false: scopePublic, true: scopePrivate}[perCaller]; c.CacheScope != want || c.TTLMs != 60000 {
			t.Errorf("per caller %v: %+v, want %s for a minute", perCaller, c, want)
		}
	}
}
