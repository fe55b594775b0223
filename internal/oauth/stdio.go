package oauth

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
)

// errTokenLost is what a stdio client hears when its token stops working.
var errTokenLost = errors.New("plumbline's token is no longer valid (revoked, expired, or its person left the directory); restart with a new one")

// Recheck returns MCP middleware for the stdio transport, where one token
// from the environment speaks for the whole process: every tool call reads
// the token's row again, in the same round trip that puts the call on
// record (reqlog.Check), so a revocation or a removed member stops calls at
// once, as over HTTP.
func (s *Server) Recheck(token string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			check := &tokenCheck{s: s, token: token}
			res, err := next(reqlog.WithCheck(ctx, check), method, req)
			switch serr := check.settle(ctx); {
			case errors.Is(serr, ErrInvalidToken):
				s.cfg.Metrics.Auth(telemetry.EventTokenInvalid)
				return nil, errTokenLost
			case serr != nil:
				s.cfg.Logger.Error("verify the stdio token", "err", serr)
				return nil, errors.New("plumbline's token could not be checked just now; try again shortly")
			}
			return res, err
		}
	}
}
