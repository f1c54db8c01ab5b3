package e2e

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestAbuse runs the abuse probes of the security review against the
// built binary on loopback, each a subtest measuring how much the
// server's memory grows while it runs (rssGrowth), while an
// authenticated client still gets its answers. A probe's loops are
// bounded: it shows a cost, it does not try to take the machine down.
func TestAbuse(t *testing.T) {
	v := newVault(t, map[string]string{"Home.md": "# Home\nHELLO FROM THE VAULT\n"})
	token := "vmcp_abuse-test-token-0123456789abcdefghijklmnop"
	sum := sha256.Sum256([]byte(token))
	hash, _ := bcrypt.GenerateFromPassword([]byte("a password"), bcrypt.MinCost)
	stateFile := filepath.Join(t.TempDir(), "oauth.json")
	srv := startHTTP(t, v, withBinary(plainBinary(t)), withEnv(
		fmt.Sprintf(`VAULTMCP_HTTP_TOKENS=[{"name": "live", "hash": "sha256:%x"}]`, sum),
		fmt.Sprintf(`VAULTMCP_HTTP_USERS=[{"name": "alice", "password_hash": %q}]`, hash),
		"VAULTMCP_HTTP_OAUTH_ENABLED=true", "VAULTMCP_HTTP_OAUTH_STATE_FILE="+stateFile,
	))
	live := srv.session(t, token)
	stillAnswers := func(t *testing.T) {
		t.Helper()
		if text := live.ok(t, "read_file", map[string]any{"path": "Home.md"}); !strings.Contains(text, "HELLO FROM THE VAULT") {
			t.Errorf("the authenticated call during the probe answered: %s", text)
		}
	}

	// Review item 3: bodies were read in full before the credential was
	// checked, so held unauthenticated bodies each kept 4 MiB.
	t.Run("held bodies without a credential", func(t *testing.T) {
		growth := srv.rssGrowth(t, func() {
			release := srv.holdBodies(t, 40, 4<<20-1, "/mcp")
			defer release()
			stillAnswers(t)
		})
		if growth > 50<<20 {
			t.Errorf("the server's RSS grew by %d MB while 40 unauthenticated 4 MiB bodies were held, want under 50 MB", growth>>20)
		}
	})

	// Review item 4: client registration had no limits on its fields, so
	// ten 3.5 MB names added 35 MB for good, and one address could fill
	// every slot and lock new connectors out.
	t.Run("registrations", func(t *testing.T) {
		register := func(body string) int {
			resp, err := http.Post(srv.url+"/oauth/register", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		}
		var statuses []int
		growth := srv.rssGrowth(t, func() {
			huge := `{"redirect_uris":["https://a.example/cb"],"client_name":"` + strings.Repeat("n", 3500<<10) + `"}`
			for range 10 {
				statuses = append(statuses, register(huge))
			}
			// The largest registration the limits allow, 200 times.
			uris := make([]string, 0, 4)
			for i := range 4 {
				uris = append(uris, fmt.Sprintf(`"https://a.example/%d/%s"`, i, strings.Repeat("p", 1900)))
			}
			full := `{"redirect_uris":[` + strings.Join(uris, ",") + `],"client_name":"` + strings.Repeat("n", 200) + `"}`
			for range 200 {
				statuses = append(statuses, register(full))
			}
			stillAnswers(t)
		})
		if growth > 50<<20 {
			t.Errorf("the server's RSS grew by %d MB under registrations, want under 50 MB", growth>>20)
		}
		counts := map[int]int{}
		for _, st := range statuses {
			counts[st]++
		}
		t.Logf("registration answers: %v", counts)
		if counts[http.StatusCreated] == 0 || counts[http.StatusCreated] > 10 || counts[http.StatusRequestEntityTooLarge] != 10 || counts[http.StatusTooManyRequests] == 0 {
			t.Errorf("registration answers %v: want the 3.5 MB names refused (413) and at most the burst of 10 accepted", counts)
		}
		if fi, err := os.Stat(stateFile); err != nil || fi.Size() > 1<<20 {
			t.Errorf("the state file after the flood: %v %v", fi.Size(), err)
		}
	})
}

// rss is the server process's resident set size (VmRSS), in bytes.
func (s *httpServer) rss(t testing.TB) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("read the server's RSS: %v", err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", s.cmd.Process.Pid)
	return 0
}

// rssGrowth runs probe and returns by how much the server's RSS grew
// over its value before: the peak of samples taken while the probe ran
// and one taken at its end.
func (s *httpServer) rssGrowth(t testing.TB, probe func()) int64 {
	t.Helper()
	before := s.rss(t)
	var (
		mu   sync.Mutex
		peak = before
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		if r := s.rss(t); r > 0 {
			mu.Lock()
			peak = max(peak, r)
			mu.Unlock()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	probe()
	sample()
	close(done)
	wg.Wait()
	t.Logf("server RSS %d MB before, peak %d MB during the probe", before>>20, peak>>20)
	return peak - before
}

// holdBodies opens n connections that each POST to path, without a
// credential, a body of size+1 bytes of which they send size and hold
// the last. It returns once every connection has sent what it will (or
// the server closed it), and the function it returns closes them.
func (s *httpServer) holdBodies(t testing.TB, n int, size int64, path string) (release func()) {
	t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", path, u.Host, size+1)
	chunk := []byte(strings.Repeat("x", 64<<10))
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	for i := range n {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The write ends when all is sent or the server closes the
			// connection (it may answer without reading the body); the
			// deadline only guards against a server that stops reading
			// and keeps the connection.
			_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
			w := bufio.NewWriter(c)
			if _, err := w.WriteString(head); err != nil {
				return
			}
			for left := size; left > 0; {
				k := min(left, int64(len(chunk)))
				if _, err := w.Write(chunk[:k]); err != nil {
					return
				}
				left -= k
			}
			_ = w.Flush()
		}()
	}
	wg.Wait()
	return func() {
		for _, c := range conns {
			c.Close()
		}
	}
}
