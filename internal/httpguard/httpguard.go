package httpguard

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// Hosts serves only requests whose Host header names an allowed host;
// any other gets 421 Misdirected Request. A DNS-rebinding page reaches
// the server under the attacker's host name, so it is refused before any
// handler runs. Entries are host names or host:port; a name without a port
// allows any port. With loopback set, every loopback name and address is
// allowed too (a DNS-rebinding attack cannot use one).
//
// 421 rather than 403: the request is not forbidden to its sender, it is
// addressed to an authority this server does not serve, which is what 421
// says, and a correctly configured proxy never causes it.
func Hosts(allowed []string, loopback bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, allowed, loopback) {
			http.Error(w, "this server does not serve that host name", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func hostAllowed(host string, allowed []string, loopback bool) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.Trim(name, "[]"))
	if name == "" {
		return false
	}
	if loopback && isLoopback(name) {
		return true
	}
	for _, a := range allowed {
		a = strings.ToLower(a)
		if a == strings.ToLower(host) || a == name {
			return true
		}
	}
	return false
}

func isLoopback(name string) bool {
	if name == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(name)
	return err == nil && a.Unmap().IsLoopback()
}

// Origins refuses, with 403, a request whose Origin header is present and
// not one of allowed (scheme://host[:port], compared without regard to
// case). Requests without Origin come from non-browser clients and pass.
func Origins(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, allowed) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"this origin may not call this server"}}` + "\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin string, allowed []string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, origin) })
}

// Headers a browser client sends to and reads from the MCP endpoint.
var (
	mcpRequestHeaders = []string{"Authorization", "Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id",
		"Mcp-Method", "Mcp-Name", "Last-Event-Id"}
	mcpExposedHeaders = "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version"
)

// CORS lets browser clients from allowed origins call the MCP endpoint:
// it answers preflights and exposes the MCP and authorization headers.
// Put it behind Origins, which has already refused other origins.
func CORS(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !originAllowed(origin, allowed) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", mcpExposedHeaders)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", strings.Join(allowedRequestHeaders(r.Header.Get("Access-Control-Request-Headers")), ", "))
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowedRequestHeaders lists the MCP request headers, plus any
// Mcp-Param-* header the preflight asks for.
func allowedRequestHeaders(requested string) []string {
	out := slices.Clone(mcpRequestHeaders)
	for _, h := range strings.Split(requested, ",") {
		h = strings.TrimSpace(h)
		if len(h) > len("mcp-param-") && strings.EqualFold(h[:len("mcp-param-")], "mcp-param-") {
			out = append(out, h)
		}
	}
	return out
}

// Public sets CORS for a public endpoint that takes no cookies (metadata,
// token, revocation, registration): any origin may call it.
func Public(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Protocol-Version")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HTMLPage sets the headers of an HTML page plumbline serves to a person's
// browser (the sign-in and consent pages): not cached, never framed (a
// framed consent page could be clicked through by the page around it),
// loading nothing but its own inline style, and sending no referrer.
func HTMLPage(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
}
