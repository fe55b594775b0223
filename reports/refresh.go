package reports

import (
	"context"
	"sync"
	"time"
)

// This file keeps what the engine reads from the store to decide on a call
// (the directory, how far each source is loaded) without holding a lock
// around the read: a call gets the last value at once, and one call's read
// refreshes a stale value in the background. Only when there is no usable
// value yet do calls wait, and then for one read among them.

// refreshReadTimeout bounds a background refresh, which no caller waits on.
const refreshReadTimeout = 30 * time.Second

// refreshed is a value read from the store and kept for a while.
type refreshed[T any] struct {
	mu      sync.Mutex
	val     T
	has     bool
	at      time.Time     // when val was read
	loading chan struct{} // closed when the read in flight ends; nil when none is
	err     error         // the last read's error, for callers that waited on it
}

// get returns the value. A value younger than ttl is returned as it is; an
// older one is returned too, and a read starts in the background; a value
// that usable rejects counts as none, and get waits for a read of the value.
func (r *refreshed[T]) get(ctx context.Context, ttl time.Duration, usable func(T) bool, read func(context.Context) (T, error)) (T, error) {
	r.mu.Lock()
	if r.has && usable(r.val) {
		v := r.val
		if time.Since(r.at) >= ttl && r.loading == nil {
			r.start(context.WithoutCancel(ctx), read)
		}
		r.mu.Unlock()
		return v, nil
	}
	if r.loading == nil {
		r.start(ctx, read)
	}
	wait := r.loading
	r.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.has && usable(r.val) {
		return r.val, nil
	}
	var zero T
	if r.err == nil {
		return zero, context.Canceled
	}
	return zero, r.err
}

// start reads the value in its own goroutine; r.mu is held.
func (r *refreshed[T]) start(ctx context.Context, read func(context.Context) (T, error)) {
	done := make(chan struct{})
	r.loading = done
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshReadTimeout)
		defer cancel()
		v, err := read(ctx)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err == nil {
			r.val, r.has, r.at = v, true, time.Now()
		}
		r.err, r.loading = err, nil
		close(done)
	}()
}

// last returns the value read last, if there is one.
func (r *refreshed[T]) last() (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.val, r.has
}

func always[T any](T) bool { return true }
