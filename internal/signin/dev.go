package signin

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Dev is the development sign-in: a page listing the directory's active
// people, any of whom the person at the keyboard may sign in as. It proves
// nothing, so the server offers it only when bound to loopback.
type Dev struct {
	dir Directory
}

// NewDev returns the development sign-in over a directory.
func NewDev(dir Directory) *Dev { return &Dev{dir: dir} }

// Start shows the list of people.
func (d *Dev) Start(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin/dev?return_to="+url.QueryEscape(returnTo), http.StatusSeeOther)
}

// Handler serves GET /signin/dev (the list) and POST /signin/dev (the
// choice). The POST is refused from other origins.
func (d *Dev) Handler(done Done) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /signin/dev", func(w http.ResponseWriter, r *http.Request) {
		people, err := d.dir.ActivePeople(r.Context())
		if err != nil {
			Problem(w, http.StatusServiceUnavailable, "The directory could not be read; try again shortly.")
			return
		}
		page(w, http.StatusOK, devPage, map[string]any{"People": people, "ReturnTo": r.URL.Query().Get("return_to")})
	})
	mux.Handle("POST /signin/dev", http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
		email := strings.ToLower(r.PostFormValue("email"))
		people, err := d.dir.ActivePeople(r.Context())
		if err != nil {
			Problem(w, http.StatusServiceUnavailable, "The directory could not be read; try again shortly.")
			return
		}
		if !slices.ContainsFunc(people, func(p Person) bool { return strings.ToLower(p.Email) == email }) {
			Problem(w, http.StatusBadRequest, "Choose one of the people listed.")
			return
		}
		done(w, r, email, r.PostFormValue("return_to"))
	})))
	return mux
}

var devPage = template.Must(template.New("dev").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>plumbline: development sign-in</title>` + style + `</head><body>
<h1>Development sign-in</h1>
<p class="warn">This server runs on this computer only, so it lets you sign in as anyone in the directory
without a password. A deployed server signs people in with the organisation's identity provider.</p>
<p>Sign in as:</p>
{{range .People}}<form method="post" action="/signin/dev">
<input type="hidden" name="return_to" value="{{$.ReturnTo}}"><input type="hidden" name="email" value="{{.Email}}">
<button type="submit" name="person" value="{{.Email}}">{{.Name}}</button> <small>{{.Email}}</small></form>
{{else}}<p>The directory lists no active members.</p>{{end}}
</body></html>`))
