package e2e

import (
	"context"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpServer is the binary serving a vault over HTTP on a loopback port
// the kernel picked.
type httpServer struct {
	url    string // http://127.0.0.1:PORT
	token  string // the token printed for the run, when none was configured
	stderr *lockedBuffer
	cmd    *exec.Cmd
	vault  *testVault
	exited chan error
}

var (
	servingLine    = regexp.MustCompile(`msg="serving over HTTP" url=(http://[^ ]+)/mcp`)
	generatedToken = regexp.MustCompile(`Authorization: Bearer (vmcp_[A-Za-z0-9_-]+)`)
)

// startHTTP starts `vaultmcp serve --http 127.0.0.1:0` on v and waits for
// the log line naming its address. The server is stopped (SIGTERM, as a
// service manager would) when the test ends.
func startHTTP(t testing.TB, v *testVault, opts ...serverOption) *httpServer {
	t.Helper()
	cfg := newServerConfig(t, v, opts)
	addr := cfg.httpAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	cfg.args = append(cfg.args, "--http="+addr)
	stderr := &lockedBuffer{}
	cmd := cfg.command(context.Background(), stderr)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server: %v", err)
	}
	s := &httpServer{stderr: stderr, cmd: cmd, vault: v, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		s.stop(t)
		checkServerLog(t, stderr)
	})
	deadline := time.Now().Add(callTimeout)
	for {
		if m := servingLine.FindStringSubmatch(stderr.String()); m != nil {
			s.url = m[1]
			break
		}
		select {
		case err := <-s.exited:
			s.exited <- err
			t.Fatalf("server exited before serving (%v):\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start serving:\n%s", stderr.String())
		}
	}
	if m := generatedToken.FindStringSubmatch(stderr.String()); m != nil {
		s.token = m[1]
	}
	return s
}

// stop ends the server with SIGTERM and waits for it to exit, returning
// its exit error (nil for a clean exit).
func (s *httpServer) stop(t testing.TB) error {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err
		return err
	case <-time.After(callTimeout):
		_ = s.cmd.Process.Kill()
		t.Errorf("server did not stop within %s of SIGTERM", callTimeout)
		return <-s.exited
	}
}

// session connects mcp-go's streamable HTTP client with a bearer token and
// initializes; it is closed when the test ends.
func (s *httpServer) session(t testing.TB, token string, opts ...transport.StreamableHTTPCOption) *session {
	t.Helper()
	opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	c, err := client.NewStreamableHttpClient(s.url+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s.initialize(t, c)
}

func (s *httpServer) initialize(t testing.TB, c *client.Client) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultmcp-e2e-http", Version: "1.0.0"}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize over HTTP: %v\nserver log:\n%s", err, s.stderr.String())
	}
	return &session{c: c, init: res, vault: s.vault}
}

func initializeRequest() mcp.InitializeRequest {
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultmcp-e2e-http", Version: "1.0.0"}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	return req
}
