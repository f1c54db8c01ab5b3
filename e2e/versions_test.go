package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"vaultmcp/internal/testutil"
)

// versionsNotes are the notes the sessions and the laptop all edit. The
// filler keeps the laptop's edits (under the heading) and the sessions'
// (at the end) in hunks of their own, so merges are clean and every
// refusal is a version conflict, not a merge conflict.
func versionsNotes() map[string]string {
	files := map[string]string{}
	for i := range 3 {
		files[fmt.Sprintf("n%d.md", i)] = fmt.Sprintf("# Note %d\n\n%s\n", i, strings.Repeat("filler line\n", 8))
	}
	return files
}

// TestSessionsAndLaptopLoseNothing: two HTTP sessions under different
// credentials each make 200 rounds of read, modify, conditional write on
// the same three notes, while a laptop clone pushes edits to them through
// the remote that the server pulls. Every accepted write's line and every
// laptop line is in the final notes (or a conflict copy) exactly once,
// and every refusal named a version the note really had, other than the
// one the session read.
func TestSessionsAndLaptopLoseNothing(t *testing.T) {
	t.Parallel()
	const rounds, laptopEdits = 200, 20
	v, remote := newRemoteVault(t, versionsNotes())
	aTok, aHash := createToken(t, "alice")
	bTok, bHash := createToken(t, "bob")
	tokens := fmt.Sprintf(`[{"name": "alice", "hash": %q}, {"name": "bob", "hash": %q}]`, aHash, bHash)
	// Each session makes 400 calls as fast as the server answers, which
	// on a quick run is past the default rate limit's burst (300, then 20
	// a second); this test is about lost writes, not limits.
	srv := startHTTP(t, v, withEnv("VAULTMCP_HTTP_TOKENS="+tokens, "VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=200ms", "VAULTMCP_HTTP_MCP_RATE_LIMIT=0"))
	laptop := filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)

	type refusal struct{ note, read, current string }
	var mu sync.Mutex
	accepted := map[string]bool{} // lines written by accepted writes
	var refusals []refusal
	var wg sync.WaitGroup
	for _, who := range []struct{ name, tok string }{{"alice", aTok}, {"bob", bTok}} {
		s := srv.session(t, who.tok)
		wg.Go(func() {
			for r := range rounds {
				note := fmt.Sprintf("n%d.md", r%3)
				res, err := s.callResult("read_file", map[string]any{"path": note})
				if err != nil || res.IsError {
					t.Errorf("%s read %s: %v %v", who.name, note, err, res)
					return
				}
				text, version := resultText(res), resultVersion(res)
				line := fmt.Sprintf("- %s round %d\n", who.name, r)
				res, err = s.callResult("write_file", map[string]any{"path": note, "content": text + line, "if_version": version})
				if err != nil {
					t.Errorf("%s write %s: %v", who.name, note, err)
					return
				}
				mu.Lock()
				if res.IsError {
					var body struct {
						Current string `json:"current_version"`
					}
					if json.Unmarshal([]byte(resultText(res)), &body) != nil || body.Current == "" {
						t.Errorf("%s: a refusal without current_version: %s", who.name, resultText(res))
					}
					refusals = append(refusals, refusal{note, version, body.Current})
				} else {
					accepted[line] = true
				}
				mu.Unlock()
			}
		})
	}
	var laptopLines []string
	wg.Go(func() {
		for k := range laptopEdits {
			note := filepath.Join(laptop, fmt.Sprintf("n%d.md", k%3))
			gitCLI(t, laptop, "pull", "-q", "--rebase", "origin", "main")
			data, err := os.ReadFile(note)
			if err != nil {
				t.Error(err)
				return
			}
			line := fmt.Sprintf("- laptop edit %d\n", k)
			head, rest, _ := strings.Cut(string(data), "\n")
			writeAt(t, note, head+"\n"+line+rest)
			laptopLines = append(laptopLines, line)
			laptopPush(t, laptop, fmt.Sprintf("laptop edit %d", k))
		}
	})
	wg.Wait()
	if t.Failed() {
		return
	}
	// The server has the laptop's last edit once it pulled it.
	testutil.WaitFor(t, "the laptop's last edit on the server", func() bool {
		return strings.Contains(allNotes(t, v), laptopLines[len(laptopLines)-1])
	})
	final := allNotes(t, v)
	lost := 0
	for line := range accepted {
		if n := strings.Count(final, line); n != 1 {
			lost++
			t.Errorf("accepted %q is in the notes %d times", strings.TrimSpace(line), n)
		}
	}
	for _, line := range laptopLines {
		if n := strings.Count(final, line); n != 1 {
			lost++
			t.Errorf("laptop's %q is in the notes %d times", strings.TrimSpace(line), n)
		}
	}
	// Every refusal named a version the note had: a blob in the server's
	// git objects (every state of a note the server reached was committed;
	// a pull may have replayed those commits since) holding that note.
	wrong := 0
	for _, r := range refusals {
		content, err := gitTry(v.Root, "cat-file", "-p", r.current)
		if r.current == r.read || err != nil || !strings.HasPrefix(content, "# Note "+r.note[1:2]+"\n") {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d refusals named a version the note never had, or the one read", wrong, len(refusals))
	}
	t.Logf("%d writes accepted, %d refused (all naming a real current version), %d laptop edits; %d lines lost",
		len(accepted), len(refusals), len(laptopLines), lost)
	if len(accepted) == 0 || len(refusals) == 0 {
		t.Errorf("accepted %d, refused %d: the sessions did not contend", len(accepted), len(refusals))
	}
}

// allNotes is the text of every note in the vault (the three notes and
// any conflict copy), one after the other.
func allNotes(t *testing.T, v *testVault) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(v.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var appendCommit = regexp.MustCompile(`commit ([0-9a-f]{7,})`)

// TestRetryAfterCutConnectionAppliesOnce: the connection of an append
// with an idempotency key is cut once the server has answered (so it
// committed), before the client read the answer; the retry with the same
// key gets the first answer, with the same commit, and adds nothing: one
// line, one commit.
func TestRetryAfterCutConnectionAppliesOnce(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"log.md": "start\n"})
	srv := startHTTP(t, v)
	before := len(strings.Fields(v.gitRun(t, "log", "--format=%h")))

	sessionID := rawMCPInit(t, srv)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"log.md","content":"- once","mode":"append","idempotency_key":"retry-1"}}}`
	cutAfterAnswer(t, srv, sessionID, call)

	s := srv.session(t, srv.token)
	res, err := s.callResult("write_file", map[string]any{"path": "log.md", "content": "- once", "mode": "append", "idempotency_key": "retry-1"})
	if err != nil || res.IsError {
		t.Fatalf("retry: %v %v", err, res)
	}
	text := resultText(res)
	wantContains(t, "retry answer", text, "Appended to log.md", "nothing was applied again")
	if got := v.read(t, "log.md"); got != "start\n- once" {
		t.Errorf("log.md = %q, want one line added", got)
	}
	log := strings.Fields(v.gitRun(t, "log", "--format=%h"))
	if len(log) != before+1 {
		t.Errorf("%d commits made, want 1", len(log)-before)
	}
	if m := appendCommit.FindStringSubmatch(text); m == nil || !strings.HasPrefix(log[0], m[1][:7]) && !strings.HasPrefix(m[1], log[0]) {
		t.Errorf("the retry's answer %q does not name the append's commit %s", text, log[0])
	}
}

// rawMCPInit initializes an MCP session over HTTP by hand and returns its
// id, for a request sent on a connection of the test's own.
func rawMCPInit(t *testing.T, srv *httpServer) string {
	t.Helper()
	id := ""
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + rawInitialize + `}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		req, _ := http.NewRequest("POST", srv.url+"/mcp", strings.NewReader(line))
		req.Header.Set("Authorization", "Bearer "+srv.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Mcp-Session-Id"); got != "" {
			id = got
		}
	}
	if id == "" {
		t.Fatal("initialize answered no Mcp-Session-Id")
	}
	return id
}

// cutAfterAnswer posts body on a connection of its own and closes it as
// soon as the answer's result starts arriving: the server has done the
// work, and the client never reads what it answered.
func cutAfterAnswer(t *testing.T, srv *httpServer, sessionID, body string) {
	t.Helper()
	u, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req, _ := http.NewRequest("POST", srv.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+srv.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	var seen []byte
	buf := make([]byte, 512)
	for !bytes.Contains(seen, []byte(`"result"`)) && !bytes.Contains(seen, []byte(`"error"`)) {
		n, err := r.Read(buf)
		seen = append(seen, buf[:n]...)
		if err != nil {
			t.Fatalf("the cut call got no answer: %v\n%s", err, seen)
		}
	}
	if !bytes.Contains(seen, []byte(`"result"`)) {
		t.Fatalf("the cut call failed: %s", seen)
	}
}
