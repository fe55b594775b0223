package oauth

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errTokenLost is what a stdio client hears when its token stops working.
var errTokenLost = errors.New("plumbline's token is no longer valid (revoked, expired, or its person left the directory); restart with a new one")

// Recheck returns MCP middleware for the stdio transport, where one token
// from the environment speaks for the whole process: every tool call checks
// the token again, so a revocation or a removed member stops calls at once
// (within the membership window), as over HTTP.
func (s *Server) Recheck(token string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				_, err := s.Verify(ctx, token)
				switch {
				case errors.Is(err, ErrInvalidToken):
					return nil, errTokenLost
				case err != nil:
					s.cfg.Logger.Error("verify the stdio token", "err", err)
					return nil, errors.New("plumbline's token could not be checked just now; try again shortly")
				}
			}
			return next(ctx, method, req)
		}
	}
}
