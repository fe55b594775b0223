package oauth

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// What a stdio client hears when its token stops holding, and when it
// could not be checked: plumbline's refusals, as the call's error (coded
// as every refusal that names no argument is, the refusal in its data),
// which the transport passes on as it is.
var (
	errTokenLost = refusalError(&ask.Refusal{Code: ask.CodeUnauthenticated, Choices: []string{},
		Rule: "This process's plumbline token no longer holds: it was revoked or has expired, or its person left the directory; " +
			"its access has ended, so restart it with a new token."})
	errTokenUnchecked = refusalError(&ask.Refusal{Code: ask.CodeUnavailable, Choices: []string{},
		Rule: "This process's plumbline token could not be checked, as the database is out of reach; try again in a minute."})
)

// refusalError is a refusal as the error of a JSON-RPC call.
func refusalError(r *ask.Refusal) *jsonrpc.Error {
	data, _ := json.Marshal(r)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.Error(), Data: data}
}

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
				return nil, errTokenUnchecked
			}
			return res, err
		}
	}
}
