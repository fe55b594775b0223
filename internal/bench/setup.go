package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/oauth"
)

// ServiceTokens picks a free loopback address for a server and mints n
// service tokens for it with every scope, in the token store on appDSN (as
// authRole), so that a measurement calls every tool as n callers, each
// held to the limit on its own. It returns the address and the tokens.
func ServiceTokens(ctx context.Context, appDSN, authRole string, n int) (addr string, tokens []string, err error) {
	if addr, err = FreeLoopback(); err != nil {
		return "", nil, err
	}
	pool, err := pgxpool.New(ctx, appDSN)
	if err != nil {
		return "", nil, err
	}
	defer pool.Close()
	cfg := oauth.Config{BaseURL: "http://" + addr}
	st := oauth.NewStore(pool, authRole)
	for i := range n {
		token, _, err := st.CreateServiceToken(ctx, &cfg, fmt.Sprintf("bench-%d", i), oauth.Scopes, 24*time.Hour)
		if err != nil {
			return "", nil, err
		}
		tokens = append(tokens, token)
	}
	return addr, tokens, nil
}

// FreeLoopback picks a free loopback address.
func FreeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// RuntimeAt reads a server's runtime figures from url, its --debug-addr's
// runtime page, for SoakOptions.Runtime.
func RuntimeAt(url string) func(context.Context) (*Runtime, error) {
	return func(ctx context.Context) (*Runtime, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s answered %s", url, resp.Status)
		}
		rt := &Runtime{}
		return rt, json.NewDecoder(resp.Body).Decode(rt)
	}
}
