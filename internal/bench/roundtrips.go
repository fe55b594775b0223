package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// roundTripGap is the pause after each call countRoundTrips makes: longer
// than a server waits before it writes queued outcomes, so that their
// writing falls in the pause rather than in the next call.
const roundTripGap = 250 * time.Millisecond

// countRoundTrips starts a server behind a counting proxy and returns, by
// tool, the median number of round trips a call made to the database while
// it ran, and the mean number beyond that, whenever made (work off the
// request path, such as outcomes written in batches, or a cache refreshed
// now and then).
func countRoundTrips(ctx context.Context, opts Options, s NamedServer, calls []Call) (map[string][2]float64, error) {
	u, err := url.Parse(opts.ServerDSN)
	if err != nil {
		return nil, err
	}
	p, err := newCounter(u.Host)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	u.Host = p.Addr()
	r, err := start(ctx, s, u.String())
	if err != nil {
		return nil, err
	}
	defer r.stop()
	if err := r.warm(ctx, calls); err != nil {
		return nil, err
	}
	out := map[string][2]float64{}
	time.Sleep(roundTripGap)
	for _, c := range calls {
		deltas := make([]float64, 0, opts.TripCalls)
		start := p.trips.Load()
		for range opts.TripCalls {
			before := p.trips.Load()
			if _, err := call(ctx, r.client, c); err != nil {
				return nil, err
			}
			deltas = append(deltas, float64(p.trips.Load()-before))
			time.Sleep(roundTripGap)
		}
		m := median(deltas)
		out[c.Tool] = [2]float64{m, max(0, float64(p.trips.Load()-start)/float64(opts.TripCalls)-m)}
	}
	return out, nil
}

// counter is a TCP proxy to PostgreSQL that counts round trips: the
// messages after which a client waits for the server, Sync (extended
// protocol, once per query or pipelined batch) and Query (simple protocol).
// A Sync that ends only preparations (Parse and Describe, no Execute) is
// not counted: a connection prepares each statement once, in its first
// round trip with it, which a call pays only on a connection new to it.
type counter struct {
	ln     net.Listener
	target string
	trips  atomic.Int64
	wg     sync.WaitGroup
}

func newCounter(target string) (*counter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &counter{ln: ln, target: target}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *counter) Addr() string { return p.ln.Addr().String() }

// Close stops listening and waits for the connections to end.
func (p *counter) Close() {
	p.ln.Close()
	p.wg.Wait()
}

func (p *counter) serve() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			io.Copy(client, server)
			client.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.pump(server, client)
			server.Close()
		}()
	}
}

// Protocol codes of the untyped messages a connection may start with.
const (
	sslRequest    = 80877103
	gssencRequest = 80877104
)

// pump copies the client's messages to the server, counting round trips.
func (p *counter) pump(dst io.Writer, src io.Reader) error {
	r := bufio.NewReader(src)
	var head [5]byte
	// Untyped messages first: an SSL or GSS request (answered with one
	// byte, then another untyped message), then the startup message.
	for {
		if _, err := io.ReadFull(r, head[:4]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(head[:4])
		if n < 8 || n > 1<<20 {
			return fmt.Errorf("a startup message of %d bytes", n)
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if _, err := dst.Write(append(head[:4:4], body...)); err != nil {
			return err
		}
		if code := binary.BigEndian.Uint32(body[:4]); code != sslRequest && code != gssencRequest {
			break
		}
	}
	executes := false // since the last Sync
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return err
		}
		switch head[0] {
		case 'E':
			executes = true
		case 'S':
			if executes {
				p.trips.Add(1)
			}
			executes = false
		case 'Q':
			p.trips.Add(1)
		}
		n := int64(binary.BigEndian.Uint32(head[1:])) - 4
		if _, err := dst.Write(head[:]); err != nil {
			return err
		}
		if _, err := io.CopyN(dst, r, n); err != nil {
			return err
		}
	}
}
