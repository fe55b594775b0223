package ask

import (
	"context"
	"time"
)

// Caller is who is calling, from the token; never from arguments.
type Caller struct {
	Person string // the person's id, or service:NAME for a service identity
	Client string // the OAuth client the call came through
	// Software is the MCP client program as it named itself (its name and
	// version), for the request log; empty if it did not say.
	Software string
	// Tools are the tools this caller's token allows; nil allows every
	// tool. A call to any other is refused, and recorded.
	Tools []string
	// Day is the call's day on the floor, which dates the caller's reach;
	// the engine sets it, for the store to name it to the database.
	Day time.Time
}

type callerKey struct{}

// WithCaller returns a context that carries the caller, for the store to
// name the person on the database session.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller a context carries.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
