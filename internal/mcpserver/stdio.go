package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the transport over standard input and output, which keeps
// what a caller sent out of its errors as the rest of the server does
// (unechoed.go).

// maxLine bounds one stdio message.
const maxLine = 4 << 20

// Stdio is the transport plumbline serves over standard input and output:
// one JSON-RPC message per line. A line that is not one (or holds more), or
// whose id would not come back as it was sent, is answered with an error
// (see unfit) and the session goes on, and no error repeats what the
// client sent.
func Stdio(in io.Reader, out io.Writer) mcp.Transport { return &stdio{in: in, out: out} }

type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s *stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{out: s.out, lines: make(chan []byte), done: make(chan struct{})}
	go c.read(s.in)
	return c, nil
}

type stdioConn struct {
	mu        sync.Mutex // guards out
	out       io.Writer
	lines     chan []byte
	done      chan struct{}
	closeOnce sync.Once
	err       error // why reading stopped; read after lines is closed
}

func (c *stdioConn) read(in io.Reader) {
	defer close(c.lines)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case c.lines <- line:
			case <-c.done:
				return
			}
		}
		if err != nil {
			c.err = err
			return
		}
	}
}

// readLine reads one line, or the first maxLine bytes of a longer one and
// drops the rest.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line) < maxLine {
			line = append(line, chunk[:min(len(chunk), maxLine-len(line))]...)
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				if c.err == nil || c.err == io.EOF {
					return nil, io.EOF
				}
				return nil, c.err
			}
			// A line that is no JSON-RPC message, or whose id would not come
			// back as it was sent, is answered with a null id, and the
			// session goes on.
			line = bytes.TrimSpace(line)
			e := unfit(line)
			if e == nil {
				msg, err := jsonrpc.DecodeMessage(line)
				if err == nil {
					return msg, nil
				}
				e = teaching(jsonrpc.CodeInvalidRequest)
			}
			if err := c.line(nullIDError(e), nil); err != nil {
				return nil, err
			}
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
		resp.Error = unechoedError(resp.Error)
	}
	return c.line(jsonrpc.EncodeMessage(msg))
}

// line writes one encoded message as a line.
func (c *stdioConn) line(b []byte, err error) error {
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.out.Write(append(b, '\n'))
	return err
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
