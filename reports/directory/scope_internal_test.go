package directory

import (
	"testing"
	"unsafe"
)

// A directory keeps a floor's thousands of stints a period for later
// calls (maxMemoStints is reckoned at 40 bytes each), so a stint stays
// small.
func TestStintIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(Stint{}); n > 40 {
		t.Errorf("a stint takes %d bytes, more than the 40 the memo is bounded by", n)
	}
}
