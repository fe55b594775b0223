package httpguard

import (
	"net"
	"net/http"
	"net/netip"
)

// Source names where a request came from, for limits kept per source: the
// peer's IPv4 address, or the /64 an IPv6 peer is in (one subscriber
// usually holds a whole /64, so its single addresses would be free for the
// taking). It is the TCP peer, never a header a client could set: behind a
// reverse proxy, every request comes from the proxy's address.
func Source(r *http.Request) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64)
	return p
}
