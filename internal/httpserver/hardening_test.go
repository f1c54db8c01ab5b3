package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// countingBody is a request body of n bytes that counts what was read
// of it, and can hold its reader at the first Read until released.
type countingBody struct {
	left    int64
	read    atomic.Int64
	started chan struct{} // closed at the first Read
	once    sync.Once
	hold    chan struct{} // when set, Read waits for it to close
}

func newCountingBody(n int64) *countingBody {
	return &countingBody{left: n, started: make(chan struct{})}
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.once.Do(func() { close(b.started) })
	if b.hold != nil {
		<-b.hold
	}
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > b.left {
		n = b.left
	}
	for i := range p[:n] {
		p[i] = 'x'
	}
	b.left -= n
	b.read.Add(n)
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// serve drives the handler directly, as from remote (ip:port); headers
// are name/value pairs.
func (e *env) serve(method, path, remote string, body io.ReadCloser, length int64, headers ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, path, nil)
	r.Host = "localhost"
	r.RemoteAddr = remote
	if body != nil {
		r.Body, r.ContentLength = body, length
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(w, r)
	return w
}

func TestBodyNotReadBeforeAuthentication(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxBodyBytes = 4 << 20 })
	for _, length := range []int64{4<<20 - 1, -1} {
		for _, path := range []string{"/mcp", "/api/notes/a.md"} {
			body := newCountingBody(4<<20 - 1)
			w := e.serve("POST", path, "192.0.2.1:1234", body, length, mcpHeaders("Content-Type", "application/json")...)
			if w.Code != http.StatusUnauthorized {
				t.Errorf("%s (length %d) without a credential: %d", path, length, w.Code)
			}
			if n := body.read.Load(); n != 0 {
				t.Errorf("%s (length %d): %d bytes of an unauthenticated body were read", path, length, n)
			}
		}
	}
}

func TestBodyLimitWhileReading(t *testing.T) {
	e := newEnv(t) // max_body_bytes 64 KiB
	tok := bearer(e.tokens["full"])
	over := int64(70 << 10)
	// Sent without a length, the body is only found too large as it is
	// read: the handler's answer is replaced by the 413.
	w := e.serve("PUT", "/api/notes/big.md", "192.0.2.1:1234",
		io.NopCloser(strings.NewReader(`{"content": "`+strings.Repeat("x", int(over))+`"}`)), -1,
		append(tok, "Content-Type", "application/json")...)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "http.max_body_bytes") {
		t.Errorf("PUT over the limit without a length: %d %s", w.Code, w.Body)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.md","content":"` + strings.Repeat("x", int(over)) + `"}}}`
	w = e.serve("POST", "/mcp", "192.0.2.1:1234", io.NopCloser(strings.NewReader(call)), -1,
		mcpHeaders(append(tok, "Content-Type", "application/json")...)...)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "http.max_body_bytes") {
		t.Errorf("MCP call over the limit without a length: %d %s", w.Code, w.Body)
	}
	// Under the limit, without a length, it is read in full.
	w = e.serve("PUT", "/api/notes/small.md", "192.0.2.1:1234",
		io.NopCloser(strings.NewReader(`{"content": "small"}`)), -1, append(tok, "Content-Type", "application/json")...)
	if w.Code/100 != 2 {
		t.Errorf("PUT under the limit: %d %s", w.Code, w.Body)
	}
}

func TestPublicRoutesSmallBodyLimit(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxBodyBytes = 4 << 20 })
	big := `{"username": "admin", "password": "` + strings.Repeat("x", 100<<10) + `"}`
	for _, length := range []int64{int64(len(big)), -1} {
		w := e.serve("POST", "/api/auth/login", "192.0.2.1:1234", io.NopCloser(strings.NewReader(big)), length, "Content-Type", "application/json")
		if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "65536") {
			t.Errorf("login with a 100 KiB body (length %d): %d %s", length, w.Code, w.Body)
		}
	}
}

func TestAnonymousInFlightCap(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.AnonymousInFlight = 3
		o.Limits = &Limits{Login: DefaultLimits.Login, Health: DefaultLimits.Health, API: DefaultLimits.API}
		o.Limits.Login.Burst = 100
	})
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		body := newCountingBody(10)
		body.hold = release
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.serve("POST", "/api/auth/login", "192.0.2.1:1234", body, 10, "Content-Type", "application/json")
		}()
		<-body.started
	}
	login := `{"username": "admin", "password": "wrong"}`
	w := e.serve("POST", "/api/auth/login", "192.0.2.1:5678", io.NopCloser(strings.NewReader(login)), int64(len(login)), "Content-Type", "application/json")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("a 4th request in flight from the address: %d %s", w.Code, w.Body)
	}
	w = e.serve("POST", "/api/auth/login", "198.51.100.1:5678", io.NopCloser(strings.NewReader(login)), int64(len(login)), "Content-Type", "application/json")
	if w.Code != http.StatusUnauthorized {
		t.Errorf("another address: %d %s", w.Code, w.Body)
	}
	close(release)
	wg.Wait()
	w = e.serve("POST", "/api/auth/login", "192.0.2.1:5678", io.NopCloser(strings.NewReader(login)), int64(len(login)), "Content-Type", "application/json")
	if w.Code != http.StatusUnauthorized {
		t.Errorf("once the held requests ended: %d %s", w.Code, w.Body)
	}
}

func TestMCPRateLimitByDefault(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	burst := MCPRule(DefaultMCPPerMinute).Burst
	for i := range burst {
		w := e.serve("POST", "/mcp", "192.0.2.1:1234", io.NopCloser(strings.NewReader(ping)), int64(len(ping)), mcpHeaders(append(tok, "Content-Type", "application/json")...)...)
		if w.Code == http.StatusTooManyRequests {
			t.Fatalf("call %d of a burst of %d refused", i+1, burst)
		}
	}
	w := e.serve("POST", "/mcp", "192.0.2.1:1234", io.NopCloser(strings.NewReader(ping)), int64(len(ping)), mcpHeaders(append(tok, "Content-Type", "application/json")...)...)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("call %d: %d, want 429", burst+1, w.Code)
	}
	h := w.Header()
	if h.Get("X-RateLimit-Limit") != "1200" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") == "" || h.Get("Retry-After") == "" {
		t.Errorf("headers: %v", h)
	}
	var rpc struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &rpc); err != nil || rpc.JSONRPC != "2.0" || rpc.Error.Code != rpcRateLimited ||
		!strings.Contains(rpc.Error.Message, "1200 per 1 minute") {
		t.Errorf("body: %s (%v)", w.Body, err)
	}
	// Another credential has its own bucket.
	w = e.serve("POST", "/mcp", "192.0.2.1:1234", io.NopCloser(strings.NewReader(ping)), int64(len(ping)), mcpHeaders(append(bearer(e.tokens["readonly"]), "Content-Type", "application/json")...)...)
	if w.Code == http.StatusTooManyRequests {
		t.Errorf("other credential refused")
	}
}

func TestSessionsPerCredentialCapped(t *testing.T) {
	e := newEnv(t)
	full := bearer(e.tokens["full"])
	var first string
	for i := range 101 {
		resp, _ := e.do("POST", "/mcp", initialize, mcpHeaders(full...)...)
		if resp.StatusCode != 200 {
			t.Fatalf("initialize %d: %d", i, resp.StatusCode)
		}
		if i == 0 {
			first = resp.Header.Get("Mcp-Session-Id")
		}
		e.clock.add(time.Second) // the first is the least recently used
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp, _ := e.do("POST", "/mcp", ping, mcpHeaders(append(full, "Mcp-Session-Id", first, "Mcp-Protocol-Version", "2025-06-18")...)...)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the least recently used session after 100 more: %d, want 404", resp.StatusCode)
	}
	if n := e.srv.sessions.count("token:full"); n != 100 {
		t.Errorf("the credential holds %d sessions, want 100", n)
	}
	// mcp-go forgot it too (its state is what costs memory).
	if err := e.srv.opts.MCP.SendNotificationToSpecificClient(first, "notifications/message", nil); !errors.Is(err, server.ErrSessionNotFound) {
		t.Errorf("mcp-go still holds the evicted session: %v", err)
	}
	// Another credential's sessions are its own.
	if resp, _ := e.do("POST", "/mcp", initialize, mcpHeaders(bearer(e.tokens["readonly"])...)...); resp.StatusCode != 200 {
		t.Errorf("initialize with another credential: %d", resp.StatusCode)
	}
}

func TestGetWithoutSessionOpensNone(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.tokens["full"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET /mcp without a session: %d, want 400", resp.StatusCode)
	}
	if n := e.srv.sessions.count("token:full"); n != 0 {
		t.Errorf("GET without a session made %d sessions", n)
	}
}

func TestIPv6RateLimitedPer64(t *testing.T) {
	e := newEnv(t)
	login := `{"username": "admin", "password": "wrong"}`
	send := func(remote string) int {
		return e.serve("POST", "/api/auth/login", remote, io.NopCloser(strings.NewReader(login)), int64(len(login)), "Content-Type", "application/json").Code
	}
	// The login burst is 2: two addresses of one /64 share it.
	send("[2001:db8:1:2::1]:1000")
	send("[2001:db8:1:2::2]:1000")
	if code := send("[2001:db8:1:2:ffff::3]:1000"); code != http.StatusTooManyRequests {
		t.Errorf("a third address of the /64: %d, want 429", code)
	}
	if code := send("[2001:db8:1:3::1]:1000"); code != http.StatusUnauthorized {
		t.Errorf("another /64: %d, want 401", code)
	}
}

func TestIPKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1":             "ip:192.0.2.1",
		"::ffff:192.0.2.1":      "ip:192.0.2.1",
		"2001:db8:1:2:3:4:5:6":  "ip:2001:db8:1:2::/64",
		"fe80::1%eth0":          "ip:fe80::/64",
		"not an address":        "ip:not an address",
		"2001:db8:1:2::ffff:ff": "ip:2001:db8:1:2::/64",
	} {
		if got := ipKey(in); got != want {
			t.Errorf("ipKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuditLogBoundedForAnonymousCallers(t *testing.T) {
	e := newEnv(t)
	long := "/api/notes/" + strings.Repeat("a", 60<<10)
	// Five refused for want of a credential, five for a wrong one (past
	// the burst of 10 these get 429): one line for the address.
	for i := range 10 {
		var headers []string
		if i%2 == 1 {
			headers = bearer("vmcp_wrong")
		}
		e.do("GET", long, "", headers...)
	}
	for range 5 {
		e.do("POST", "/mcp", initialize, mcpHeaders()...)
	}
	if err := e.srv.opts.Audit.Flush(); err != nil {
		t.Fatal(err)
	}
	log := e.audit.String()
	if len(log) > 2<<10 {
		t.Errorf("15 refused requests, 10 with a 60 KB URL, added %d bytes to the audit log:\n%.2000s", len(log), log)
	}
	lines := strings.Split(strings.TrimSpace(log), "\n")
	var entry struct {
		Identity string         `json:"identity"`
		Count    int            `json:"count"`
		Refused  map[string]int `json:"refused"`
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &entry) != nil || entry.Identity != "unauthenticated" || entry.Count != 15 {
		t.Errorf("want one line counting 15 refusals:\n%s", log)
	}
}
