package scim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/elimity-com/scim"
	scimerr "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"
	"golang.org/x/time/rate"

	"plumbline/internal/httpguard"
	"plumbline/internal/members"
)

// Path is where the SCIM endpoint is served, under the public URL.
const Path = "/scim/v2"

// Limits of the endpoint.
const (
	// DefaultPerMinute is how many requests one SCIM token may make in any
	// minute, in each replica: enough for a provider's full sync of a
	// large floor, far below what would crowd out the reports.
	DefaultPerMinute = 1200
	// FailuresPerMinute is how many requests with a missing or unknown
	// token one source address may make in a minute before it is refused
	// with 429 whatever it sends.
	FailuresPerMinute = 10
	// maxBody is the largest request body: a group of some thousands of
	// members.
	maxBody = 1 << 20
	// pageSize is the most resources one list response holds.
	pageSize = 200
)

// Options configure the endpoint.
type Options struct {
	// BaseURL is plumbline's public URL; resources' locations are under
	// BaseURL + Path.
	BaseURL string
	// PerMinute is how many requests each token may make in any minute;
	// 0 means no limit.
	PerMinute int
	// Logger receives faults. If nil, slog.Default().
	Logger *slog.Logger
}

// The resource types, with the schemas requests are checked against.
var (
	users = resource{name: "User", core: schema.CoreUserSchema(),
		extensions: []schema.Schema{schema.ExtensionEnterpriseUser()}, required: "userName"}
	groups = resource{name: "Group", core: schema.CoreGroupSchema(), required: "displayName"}
)

// server is the SCIM endpoint.
type server struct {
	store    *members.Store
	log      *slog.Logger
	lib      http.Handler
	perToken *limiters
	failures *limiters
}

// Handler returns the SCIM endpoint, to be served at Path (and below) on
// the public URL's origin, behind its Host checks. Every request needs a
// SCIM token (members.Store.CreateToken) as its bearer token.
func Handler(store *members.Store, o Options) (http.Handler, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &server{store: store, log: o.Logger,
		failures: newLimiters(FailuresPerMinute)}
	if o.PerMinute > 0 {
		s.perToken = newLimiters(o.PerMinute)
	}
	lib, err := scim.NewServer(&scim.ServerArgs{
		ServiceProviderConfig: &scim.ServiceProviderConfig{
			DocumentationURI: optional.NewString(o.BaseURL + Path),
			AuthenticationSchemes: []scim.AuthenticationScheme{{Type: scim.AuthenticationTypeOauthBearerToken, Name: "SCIM token",
				Description: "A bearer token made by plumbline scim token create", Primary: true}},
			MaxResults: pageSize, SupportFiltering: true, SupportPatch: true,
		},
		ResourceTypes: []scim.ResourceType{{
			ID: optional.NewString("User"), Name: "User", Endpoint: "/Users", Description: optional.NewString("A member of plumbline's directory"),
			Schema: users.core, SchemaExtensions: []scim.SchemaExtension{{Schema: users.extensions[0]}}, Handler: userHandler(s),
		}, {
			ID: optional.NewString("Group"), Name: "Group", Endpoint: "/Groups", Description: optional.NewString("A group of members"),
			Schema: groups.core, Handler: groupHandler(s),
		}},
	}, scim.WithBaseURL(o.BaseURL+Path), scim.WithLogger(libLogger{o.Logger}))
	if err != nil {
		return nil, err
	}
	s.lib = http.StripPrefix("/scim", lib)
	return s, nil
}

// libLogger takes the library's faults without their arguments, which may
// hold a resource and so personal data.
type libLogger struct{ log *slog.Logger }

func (l libLogger) Error(args ...any) {
	if msg, ok := args[0].(string); ok {
		l.log.Error("SCIM: " + msg)
	}
}

type byKey struct{}

// by returns who a request's changes are put on record as: scim:NAME, the
// token's name.
func by(r *http.Request) string {
	name, _ := r.Context().Value(byKey{}).(string)
	return "scim:" + name
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" {
		s.refuse(w, r, http.StatusForbidden, "", "", "SCIM is for provisioning services, and no browser may call it")
		return
	}
	source := httpguard.Source(r).String()
	if wait := s.failures.wait(source); wait > 0 {
		retryAfter(w, wait)
		s.refuse(w, r, http.StatusTooManyRequests, "", "", "too many requests came from this address without a valid SCIM token; "+
			"wait for the time in Retry-After")
		return
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	name, ok, err := "", false, error(nil)
	if strings.EqualFold(scheme, "Bearer") && strings.HasPrefix(strings.TrimSpace(token), members.TokenPrefix) {
		name, ok, err = s.store.VerifyToken(r.Context(), strings.TrimSpace(token))
	}
	switch {
	case err != nil:
		s.log.Error("check a SCIM token", "err", err)
		s.refuse(w, r, http.StatusServiceUnavailable, "", "", "the token could not be checked, as the database is out of reach; try again shortly")
		return
	case !ok:
		s.failures.take(source)
		w.Header().Set("WWW-Authenticate", `Bearer realm="plumbline SCIM", error="invalid_token"`)
		s.refuse(w, r, http.StatusUnauthorized, "", "Authorization", "send a live SCIM token as the bearer token "+
			"(plumbline scim token create makes one; an OAuth access token does not open SCIM)")
		return
	}
	if s.perToken != nil {
		if wait := s.perToken.wait(name); wait > 0 {
			retryAfter(w, wait)
			s.refuse(w, r, http.StatusTooManyRequests, "", "", fmt.Sprintf("this token made more than %d requests in a minute; wait for the time in Retry-After",
				s.perToken.perMinute))
			return
		}
		s.perToken.take(name)
	}
	if p := s.check(r); p != nil {
		status := http.StatusBadRequest
		if p.kind == "" {
			status = http.StatusRequestEntityTooLarge
		}
		s.refuse(w, r, status, p.kind, p.place, p.rule)
		return
	}
	s.lib.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), byKey{}, name)))
}

// check reads and checks the request's body or query before the library
// sees it, and puts the body back put right.
func (s *server) check(r *http.Request) *problem {
	rt, one, ok := route(r.URL.Path)
	if !ok {
		return nil
	}
	if r.Method == http.MethodGet && !one {
		return rt.checkQuery(r.URL.Query())
	}
	if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return &problem{place: "the body", rule: fmt.Sprintf("must be at most %d bytes", maxBody)}
	}
	var p *problem
	switch {
	case r.Method == http.MethodPatch && one:
		body, p = rt.checkPatch(body)
	case r.Method == http.MethodPost && !one, r.Method == http.MethodPut && one:
		body, p = rt.checkResource(body)
	}
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	r.ContentLength = int64(len(body))
	return p
}

// route returns the resource type a path is under, and whether it names
// one resource.
func route(path string) (resource, bool, bool) {
	// Within the library, the path has lost its /scim.
	rest, ok := strings.CutPrefix(strings.TrimPrefix(path, "/scim"), "/v2/")
	if !ok {
		return resource{}, false, false
	}
	kind, id, one := strings.Cut(rest, "/")
	switch {
	case kind == "Users":
		return users, one && id != "", true
	case kind == "Groups":
		return groups, one && id != "", true
	}
	return resource{}, false, false
}

// requestName names a request in a refusal: its method and route, never
// the id in its path.
func requestName(r *http.Request) string {
	rt, one, ok := route(r.URL.Path)
	switch {
	case !ok:
		return r.Method + " " + Path
	case one:
		return r.Method + " " + Path + "/" + rt.name + "s/{id}"
	}
	return r.Method + " " + Path + "/" + rt.name + "s"
}

// refusal is a SCIM error (RFC 7644 §3.12) whose detail names the request,
// the place and the rule, and says that nothing was changed.
func refusal(r *http.Request, status int, kind scimerr.ScimType, place, rule string) scimerr.ScimError {
	detail := requestName(r) + ": "
	if place != "" {
		detail += place + ": "
	}
	detail += rule + "."
	if r.Method != http.MethodGet {
		detail += " Nothing was changed."
	}
	return scimerr.ScimError{ScimType: kind, Detail: detail, Status: status}
}

// refuse answers with a refusal.
func (s *server) refuse(w http.ResponseWriter, r *http.Request, status int, kind scimerr.ScimType, place, rule string) {
	b, _ := json.Marshal(refusal(r, status, kind, place, rule))
	w.Header().Set("Content-Type", "application/scim+json")
	w.WriteHeader(status)
	w.Write(b)
}

// refused is nil, or the refusal err is.
func (s *server) refused(r *http.Request, err error) error {
	if err != nil {
		return s.fail(r, err)
	}
	return nil
}

// fail turns what the directory answered into a refusal; a fault is
// logged, never told.
func (s *server) fail(r *http.Request, err error) error {
	var conflict *members.Conflict
	var unknownMember *members.UnknownMember
	var p *problem
	switch {
	case errors.Is(err, members.ErrNotFound):
		return refusal(r, http.StatusNotFound, "", "", "no resource has this id; it was never created here, or it was deleted")
	case errors.As(err, &conflict):
		return refusal(r, http.StatusConflict, scimerr.ScimTypeUniqueness, conflict.Attribute,
			"another resource already has this value, and it must be unique (a provider matching on userName finds it with a filter)")
	case errors.As(err, &unknownMember):
		return refusal(r, http.StatusBadRequest, scimerr.ScimTypeInvalidValue, fmt.Sprintf("members[%d].value", unknownMember.Index),
			"no User has this id; a group's members are Users provisioned here, by their id")
	case errors.As(err, &p):
		return refusal(r, http.StatusBadRequest, p.kind, p.place, p.rule)
	}
	s.log.Error("SCIM request", "request", requestName(r), "err", err)
	return refusal(r, http.StatusInternalServerError, "", "", "plumbline could not complete the request, as its database is out of reach; try again shortly")
}

func retryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
}

// limiters keep a rate limit per key (a token's name, a source address),
// in this process.
type limiters struct {
	perMinute int
	mu        sync.Mutex
	byKey     map[string]*rate.Limiter
}

func newLimiters(perMinute int) *limiters {
	return &limiters{perMinute: perMinute, byKey: map[string]*rate.Limiter{}}
}

// maxKeys bounds the memory limiters hold; past it they start afresh.
const maxKeys = 10_000

func (l *limiters) limiter(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.byKey[key]
	if !ok {
		if len(l.byKey) >= maxKeys {
			l.byKey = map[string]*rate.Limiter{}
		}
		lim = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.byKey[key] = lim
	}
	return lim
}

// wait is how long key must wait before its next request, or zero.
func (l *limiters) wait(key string) time.Duration {
	lim := l.limiter(key)
	if lim.Tokens() >= 1 {
		return 0
	}
	r := lim.Reserve()
	defer r.Cancel()
	return max(r.Delay(), time.Second)
}

// take spends one of key's requests.
func (l *limiters) take(key string) { l.limiter(key).Allow() }
