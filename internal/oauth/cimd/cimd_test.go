package cimd

import "testing"

// The fetcher dials only public unicast addresses; loopback only when
// allowed for tests.
func TestCheckAddress(t *testing.T) {
	for addr, ok := range map[string]bool{
		"93.184.215.14:443":          true,
		"[2606:4700::6810:85e5]:443": true,
		"127.0.0.1:443":              false,
		"[::1]:443":                  false,
		"10.1.2.3:443":               false,
		"172.16.0.1:443":             false,
		"192.168.1.1:443":            false,
		"169.254.169.254:443":        false,
		"100.64.0.1:443":             false,
		"0.0.0.0:443":                false,
		"224.0.0.1:443":              false,
		"[fc00::1]:443":              false,
		"[fe80::1]:443":              false,
		"[::ffff:10.0.0.1]:443":      false,
		"[64:ff9b::a00:1]:443":       false,
		"198.18.0.1:443":             false,
		"not an address":             false,
	} {
		if got := checkAddress(addr, false) == nil; got != ok {
			t.Errorf("%s: allowed %v, want %v", addr, got, ok)
		}
	}
	if checkAddress("127.0.0.1:443", true) != nil || checkAddress("10.1.2.3:443", true) == nil {
		t.Error("allowing loopback for tests must allow loopback and nothing else")
	}
}
