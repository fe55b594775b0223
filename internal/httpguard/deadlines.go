package httpguard

import (
	"net/http"
	"time"
)

// Deadline bounds one route: how long a request's body may take to
// arrive, and how long its answer may take to be written, both counted
// from the moment the request's header has been read.
type Deadline struct {
	Body  time.Duration
	Write time.Duration
}

// Deadlines holds every request to the Deadline of its path in routes, or
// to fallback for a path routes does not name. A client that sends its
// body too slowly gets its connection closed when the body deadline
// passes, whatever length it declared; an answer still being written when
// the write deadline passes is cut off. Once the body is in, the body
// deadline no longer matters: a call that then runs long (an MCP call may
// run up to the statement timeout) is bounded by its write deadline alone.
//
// Put it first in the chain, on the http.Server's own ResponseWriter.
func Deadlines(routes map[string]Deadline, fallback Deadline, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := routes[r.URL.Path]
		if !ok {
			d = fallback
		}
		rc := http.NewResponseController(w)
		if d.Write > 0 {
			rc.SetWriteDeadline(time.Now().Add(d.Write))
		}
		if d.Body > 0 {
			rc.SetReadDeadline(time.Now().Add(d.Body))
		}
		next.ServeHTTP(w, r)
	})
}
