package clienttest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// OIDCProvider runs a real OpenID Connect provider (oidc-provider.mjs, on
// the npm package oidc-provider) on a free loopback port, with plumbline
// registered as a confidential client (plumbline, op-secret) whose
// redirect URI is redirectURI, and returns its issuer. args go on to the
// program (a guide's issuer path and the claim that vouches for the email
// address). Its development login takes any login, and the login is the
// account's verified email address. It stops when the test ends.
func OIDCProvider(t testing.TB, redirectURI string, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, Node(t), append([]string{"oidc-provider.mjs", fmt.Sprint(port), "plumbline", "op-secret", redirectURI}, args...)...)
	cmd.Dir = Dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if issuer, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- issuer
			}
		}
	}()
	select {
	case issuer := <-ready:
		return issuer
	case <-time.After(30 * time.Second):
		t.Fatal("the OpenID Connect provider did not start")
		return ""
	}
}
