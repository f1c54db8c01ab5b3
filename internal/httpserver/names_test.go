package httpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotesAPINewNames: PUT goes through the same checks as write_file,
// so a name that clashes with an existing one up to case, or that
// Windows cannot hold, is refused and nothing is written or committed.
func TestNotesAPINewNames(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	head := git(t, e.root, "rev-parse", "HEAD")
	for _, c := range []struct {
		path, created string
		want          int
		detail        string
	}{
		{"/api/notes/HOME.md", "HOME.md", 409, "already exists as Home.md"},
		{"/api/notes/journal/new.md", "journal", 409, "already exists as Journal"},
		{"/api/notes/Journal/CON.md", "Journal/CON.md", 400, "reserved by Windows"},
	} {
		resp, m := e.do("PUT", c.path, `{"content": "stub\n"}`, tok...)
		if detail, _ := m["detail"].(string); resp.StatusCode != c.want || !strings.Contains(detail, c.detail) {
			t.Errorf("PUT %s: %d %v, want %d with %q", c.path, resp.StatusCode, m, c.want, c.detail)
		}
		if _, err := os.Lstat(filepath.Join(e.root, c.created)); err == nil {
			t.Errorf("PUT %s created %s", c.path, c.created)
		}
	}
	if got := git(t, e.root, "rev-parse", "HEAD"); got != head {
		t.Error("a refused PUT made a commit")
	}
}
