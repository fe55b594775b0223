package intake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"plumbline/internal/oauth/cimd"
)

// MaxForm is the most a form body may hold.
const MaxForm = 64 << 10

// Error is an error response of the token, revocation and registration
// endpoints: its HTTP status, its OAuth error code and a description that
// teaches the caller what to send instead.
type Error struct {
	Status      int
	Code        string
	Description string
	// RetryAfter, set on a refusal by a limit, is how long until the
	// caller may try again (the Retry-After header).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// Fail makes an Error with a formatted description.
func Fail(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

// ReadForm parses a form-encoded POST body of at most MaxForm bytes into
// r.PostForm: parameters come in the body alone, and none but resource
// may be repeated.
func ReadForm(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return Fail(http.StatusMethodNotAllowed, "invalid_request", "use POST")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return Fail(http.StatusBadRequest, "invalid_request", "send the parameters as application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	if err := r.ParseForm(); err != nil {
		return Fail(http.StatusBadRequest, "invalid_request", "the form could not be read")
	}
	if len(r.URL.RawQuery) > 0 {
		return Fail(http.StatusBadRequest, "invalid_request", "send parameters in the body, not the URL")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 && k != "resource" {
			return Fail(http.StatusBadRequest, "invalid_request", "a parameter is repeated; each may appear once")
		}
	}
	return nil
}

// Registration is what a Dynamic Client Registration request asks for,
// once checked. Every field is the client's own claim.
type Registration struct {
	// Name is the client's name, trimmed and cut to 100 characters.
	Name         string
	RedirectURIs []string
	// AuthMethod is none, client_secret_basic (the default) or
	// client_secret_post.
	AuthMethod string
	// ApplicationType is native or web; a web app's redirect URIs are
	// https.
	ApplicationType string
}

// DecodeRegistration reads a Dynamic Client Registration request's body
// and checks it: the registration it asks for, or the error to answer
// with.
func DecodeRegistration(body io.Reader) (*Registration, error) {
	var m struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ClientName      string   `json:"client_name"`
		AuthMethod      string   `json:"token_endpoint_auth_method"`
		GrantTypes      []string `json:"grant_types"`
		ResponseTypes   []string `json:"response_types"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(body).Decode(&m); err != nil {
		return nil, Fail(http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata")
	}
	if m.ApplicationType != "native" && m.ApplicationType != "web" {
		return nil, Fail(http.StatusBadRequest, "invalid_client_metadata", "application_type is required: native or web")
	}
	if m.AuthMethod == "" {
		m.AuthMethod = "client_secret_basic"
	}
	if m.AuthMethod != "none" && m.AuthMethod != "client_secret_basic" && m.AuthMethod != "client_secret_post" {
		return nil, Fail(http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post")
	}
	if len(m.GrantTypes) > 0 && !slices.Contains(m.GrantTypes, "authorization_code") || len(m.ResponseTypes) > 0 && !slices.Contains(m.ResponseTypes, "code") {
		return nil, Fail(http.StatusBadRequest, "invalid_client_metadata", "this server offers only the authorization_code grant and the code response type")
	}
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 10 {
		return nil, Fail(http.StatusBadRequest, "invalid_redirect_uri", "register between one and ten redirect_uris")
	}
	for _, u := range m.RedirectURIs {
		if !cimd.ValidRedirect(u) || m.ApplicationType == "web" && !strings.HasPrefix(u, "https://") {
			return nil, Fail(http.StatusBadRequest, "invalid_redirect_uri",
				"every redirect URI must be https (or, for a native app, http on a loopback address), without a fragment")
		}
	}
	name := strings.TrimSpace(m.ClientName)
	if name == "" {
		name = "an unnamed app"
	}
	if len([]rune(name)) > 100 {
		name = string([]rune(name)[:100])
	}
	return &Registration{Name: name, RedirectURIs: m.RedirectURIs, AuthMethod: m.AuthMethod, ApplicationType: m.ApplicationType}, nil
}
