package httpserver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoteETags: GET answers the note's version as a strong ETag; PUT and
// DELETE with a stale If-Match are refused with 412, the current version
// and a diff, and change nothing; If-None-Match: * creates only.
func TestNoteETags(t *testing.T) {
	e := newEnv(t)
	auth := bearer(e.tokens["full"])
	resp, body := e.do("GET", "/api/notes/Home.md", "", auth...)
	tag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || tag == "" || tag != strconv.Quote(body["version"].(string)) {
		t.Fatalf("GET: %d ETag %q body %v", resp.StatusCode, tag, body)
	}
	resp, body = e.do("PUT", "/api/notes/Home.md", `{"content":"# Home\n\nmine\n"}`, append(auth, "If-Match", tag)...)
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == tag || resp.Header.Get("ETag") != strconv.Quote(body["version"].(string)) {
		t.Fatalf("PUT with the current ETag: %d %v", resp.StatusCode, body)
	}
	now := resp.Header.Get("ETag")
	for _, method := range []string{"PUT", "DELETE"} {
		resp, body = e.do(method, "/api/notes/Home.md", `{"content":"theirs\n"}`, append(auth, "If-Match", tag)...)
		if resp.StatusCode != 412 || resp.Header.Get("ETag") != now || strconv.Quote(body["current_version"].(string)) != now {
			t.Errorf("%s with a stale ETag: %d %v", method, resp.StatusCode, body)
		}
		if d, _ := body["diff"].(string); !strings.Contains(d, "+mine") {
			t.Errorf("%s with a stale ETag: diff %q", method, d)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(e.root, "Home.md")); string(data) != "# Home\n\nmine\n" {
		t.Errorf("a refused write changed the note: %q", data)
	}
	if resp, _ := e.do("PUT", "/api/notes/Home.md", `{"content":"x"}`, append(auth, "If-Match", "W/"+tag)...); resp.StatusCode != 400 {
		t.Errorf("a weak ETag: %d, want 400", resp.StatusCode)
	}
	if resp, _ := e.do("PUT", "/api/notes/Home.md", `{"content":"x"}`, append(auth, "If-None-Match", "*")...); resp.StatusCode != 412 {
		t.Errorf("If-None-Match: * on an existing note: %d, want 412", resp.StatusCode)
	}
	if resp, _ := e.do("PUT", "/api/notes/Fresh.md", `{"content":"x"}`, append(auth, "If-None-Match", "*")...); resp.StatusCode != 200 {
		t.Errorf("If-None-Match: * on a missing note: %d, want 200", resp.StatusCode)
	}
}

// TestNoteIdempotencyKey: a PUT sent again with its Idempotency-Key gets
// the first answer and writes nothing; the key with another body is
// refused.
func TestNoteIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	auth := append(bearer(e.tokens["full"]), "Idempotency-Key", "put-1")
	before := git(t, e.root, "rev-list", "--count", "HEAD")
	resp, first := e.do("PUT", "/api/notes/Once.md", `{"content":"once\n"}`, auth...)
	if resp.StatusCode != 200 {
		t.Fatalf("PUT: %d %v", resp.StatusCode, first)
	}
	if err := os.WriteFile(filepath.Join(e.root, "Once.md"), []byte("changed by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, again := e.do("PUT", "/api/notes/Once.md", `{"content":"once\n"}`, auth...)
	if resp.StatusCode != 200 || again["commit"] != first["commit"] || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d %v, want the first answer %v", resp.StatusCode, again, first)
	}
	if data, _ := os.ReadFile(filepath.Join(e.root, "Once.md")); string(data) != "changed by hand\n" {
		t.Errorf("the retry wrote again: %q", data)
	}
	if resp, body := e.do("PUT", "/api/notes/Once.md", `{"content":"other\n"}`, auth...); resp.StatusCode != 422 {
		t.Errorf("the key with another body: %d %v, want 422", resp.StatusCode, body)
	}
	e.srv.opts.Deps.Git.FlushIndex()
	if after := git(t, e.root, "rev-list", "--count", "HEAD"); after == before {
		t.Error("no commit")
	}
}
