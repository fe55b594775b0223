package tlsfiles

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Pair is a certificate and key file pair, loaded, and loaded again when
// either file changes.
type Pair struct {
	certFile, keyFile string
	log               *slog.Logger

	mu sync.Mutex
	// cert is the pair last loaded whole; stamp is the files' state it
	// was loaded from, failed the state last found unloadable.
	cert          *tls.Certificate
	stamp, failed stamp
}

// stamp is what says a file pair changed: each file's size and time of
// last change.
type stamp struct {
	certSize, keySize int64
	certTime, keyTime time.Time
}

// Load loads the pair certFile and keyFile, which must load now.
func Load(certFile, keyFile string, log *slog.Logger) (*Pair, error) {
	p := &Pair{certFile: certFile, keyFile: keyFile, log: log}
	st, err := p.stat()
	if err == nil {
		err = p.load(st)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Pair) stat() (stamp, error) {
	c, err := os.Stat(p.certFile)
	if err != nil {
		return stamp{}, fmt.Errorf("--tls-cert: %w", err)
	}
	k, err := os.Stat(p.keyFile)
	if err != nil {
		return stamp{}, fmt.Errorf("--tls-key: %w", err)
	}
	return stamp{c.Size(), k.Size(), c.ModTime(), k.ModTime()}, nil
}

// load loads the pair, which the files' state st describes.
func (p *Pair) load(st stamp) error {
	cert, err := tls.LoadX509KeyPair(p.certFile, p.keyFile)
	if err != nil {
		return fmt.Errorf("the TLS certificate %s and key %s: %w", p.certFile, p.keyFile, err)
	}
	p.cert, p.stamp = &cert, st
	return nil
}

// certificate returns the pair, loaded again first if either file changed
// since. A pair that does not load (a renewal half written, say) leaves
// the last one served, and is logged once, then tried again on the next
// handshake after either file changes.
func (p *Pair) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, err := p.stat()
	if err != nil || st == p.stamp || st == p.failed {
		return p.cert, nil
	}
	if err := p.load(st); err != nil {
		p.failed = st
		p.log.Error("could not load the changed TLS certificate; serving the previous one", "err", err)
		return p.cert, nil
	}
	p.log.Info("loaded the changed TLS certificate", "cert", p.certFile, "not_after", p.cert.Leaf.NotAfter)
	return p.cert, nil
}

// Config returns a server's TLS configuration serving the pair: TLS 1.2 or
// later, Go's default cipher suites and key exchanges (forward secret
// only, with the post-quantum hybrid first), and HTTP/2 before HTTP/1.1.
func (p *Pair) Config() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: p.certificate,
		NextProtos:     []string{"h2", "http/1.1"},
	}
}
