package signin

import (
	"context"
	"html/template"
	"net/http"

	"plumbline/internal/httpguard"
)

// Person is someone the directory lists.
type Person struct {
	Email string
	Name  string
}

// Directory lists the people who may sign in.
type Directory interface {
	ActivePeople(ctx context.Context) ([]Person, error)
}

// Done is called once a person has proved their email address; it
// continues at returnTo, a path on this server.
type Done func(w http.ResponseWriter, r *http.Request, email, returnTo string)

// Method is a way to sign in.
type Method interface {
	// Start sends the browser to sign in, to come back to returnTo.
	Start(w http.ResponseWriter, r *http.Request, returnTo string)
	// Handler serves the method's pages under /signin/, calling done when
	// a person has signed in.
	Handler(done Done) http.Handler
}

// page renders a small HTML page with framing blocked and nothing cached.
func page(w http.ResponseWriter, status int, t *template.Template, data any) {
	httpguard.HTMLPage(w.Header())
	w.WriteHeader(status)
	t.Execute(w, data)
}

// Problem renders an error page that says what went wrong and never
// redirects.
func Problem(w http.ResponseWriter, status int, message string) {
	page(w, status, problemPage, message)
}

const style = `<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.fact{font-size:1.3rem;font-weight:600}.warn{background:#fff4e5;border:1px solid #f0b35b;padding:.6rem;border-radius:4px}
button{font-size:1rem;padding:.5rem 1rem;margin:.3rem .5rem .3rem 0}ul{padding-left:1.2rem}small{color:#555}</style>`

var problemPage = template.Must(template.New("problem").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>plumbline: cannot sign in</title>` + style + `</head><body>
<h1>This sign-in cannot go on</h1><p id="problem">{{.}}</p>
<p><small>Nothing was sent back to the app. Close this page and start again from the app.</small></p></body></html>`))
