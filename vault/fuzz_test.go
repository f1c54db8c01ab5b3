package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault/access"
	"vaultmcp/vault/edit"
)

// FuzzResolve checks the vault boundary for any input: Resolve either
// fails with a client-safe error, or returns a path that is inside the
// vault on disk (after following every symlink of its nearest existing
// ancestor) and whose vault-relative form is clean. Under a scope that
// allows only notes/, the path passes exactly when both where it is
// written and where its links lead lie in notes/. The seed corpus in
// testdata/fuzz/FuzzResolve holds the known traps.
func FuzzResolve(f *testing.F) {
	v, root, outside := boundaryVault(f)
	mkdir(f, root, "notes/sub")
	symlink(f, root, "notes/up", "..")
	symlink(f, root, "notes/sub/way-up", "../../..")
	symlink(f, root, "notes/file-link.md", "../file.md")
	symlink(f, root, "notes/sub/a-link.md", "../a.md")
	symlink(f, root, "notes-link.md", "notes/a.md")
	f.Add(root + "/notes/a.md")
	f.Add(root + "/../outside/secret.md")
	f.Add(outside + "/secret.md")
	f.Add("notes/up/notes/up/out-dir/x.md")
	f.Add("notes/sub/way-up/outside/secret.md")
	f.Add("notes/up/file.md")
	f.Add("notes/up/notes/a.md")
	f.Add("in-dir/a.md")
	scoped := access.With(context.Background(), access.MustNew("fuzz", access.Rules{Allow: []string{"notes"}}))
	inNotes := func(rel string) bool {
		rel = strings.ToLower(norm.NFC.String(rel))
		return rel == "" || rel == "notes" || strings.HasPrefix(rel, "notes/") // the root is always visible
	}

	f.Fuzz(func(t *testing.T, given string) {
		p, err := v.Resolve(given)
		if err != nil {
			var ve *Error
			if !errors.As(err, &ve) {
				t.Fatalf("Resolve(%q): error %T is not a *vault.Error", given, err)
			}
			noAbsPath(t, err.Error(), given, root, outside)
			return
		}
		if p.Given != given {
			t.Errorf("Given = %q, want %q", p.Given, given)
		}
		rel := p.Rel
		if !utf8.ValidString(rel) || strings.IndexByte(rel, 0) >= 0 {
			t.Fatalf("Resolve(%q).Rel = %q: invalid bytes", given, rel)
		}
		if rel != "" {
			if strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") {
				t.Fatalf("Resolve(%q).Rel = %q: not a clean relative path", given, rel)
			}
			for _, part := range strings.Split(rel, "/") {
				if part == "" || part == "." || part == ".." {
					t.Fatalf("Resolve(%q).Rel = %q: component %q", given, rel, part)
				}
				if v.Hidden(part) {
					t.Fatalf("Resolve(%q).Rel = %q: hidden component %q", given, rel, part)
				}
			}
		}
		want := root
		if rel != "" {
			want = filepath.Join(root, filepath.FromSlash(rel))
		}
		if p.Abs != want {
			t.Fatalf("Resolve(%q).Abs = %q, want %q", given, p.Abs, want)
		}
		real, err := realNearest(p.Abs)
		if err != nil {
			t.Fatalf("Resolve(%q) = %q, whose nearest existing ancestor does not resolve: %v", given, p.Abs, err)
		}
		if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			t.Fatalf("Resolve(%q) = %q leads to %q, outside the vault", given, p.Abs, real)
		}
		if r, ok := v.relInside(real); ok {
			for _, part := range strings.Split(r, "/") {
				if v.Hidden(part) {
					t.Fatalf("Resolve(%q) = %q leads into the hidden %q", given, p.Abs, r)
				}
			}
		}
		// Where the path is written, no link followed: the cleaned
		// path, spelled as the disk spells it (Via), else Rel itself.
		written, err := v.lexical(given)
		if err != nil {
			t.Fatalf("Resolve(%q) passed, lexical did not: %v", given, err)
		}
		if via := p.Via; via != "" && !strings.EqualFold(norm.NFC.String(via), norm.NFC.String(written)) {
			t.Fatalf("Resolve(%q).Via = %q, want the path as written, %q", given, via, written)
		}
		allowed := inNotes(p.Rel) && inNotes(written)
		if err := checkRead(scoped, given, p); (err == nil) != allowed {
			t.Fatalf("Resolve(%q) = %+v: under allow notes/, checkRead = %v, want allowed = %v", given, p, err, allowed)
		}
	})
}

// realNearest returns the real path of abs's nearest existing ancestor
// (abs itself if it exists), all symlinks followed.
func realNearest(abs string) (string, error) {
	for {
		if _, err := os.Lstat(abs); err == nil {
			return filepath.EvalSymlinks(abs)
		} else if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return "", err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", fmt.Errorf("no existing ancestor")
		}
		abs = parent
	}
}

// FuzzReplaceOnce checks edit_file's text logic against a naive model:
// the text must occur exactly once (overlaps count), on a CRLF file LF
// stands for CRLF, and the error says how many times it matched.
func FuzzReplaceOnce(f *testing.F) {
	f.Add("one two three two", "two", "2")
	f.Add("aaa", "aa", "b")
	f.Add("a\r\nb\r\nc\r\n", "a\nb", "x\ny")
	f.Add("a\r\nb\r\n", "b", "b\nc")
	f.Add("a\nb\r\n", "a\nb", "c")
	f.Add("\r\n\r\n", "\n", "")
	f.Add("", "x", "y")
	f.Add("Le cafe\u0301 e\u0301tait bon.", "café était", "thé")
	f.Add("Le café était bon.", "cafe\u0301", "the\u0301")
	f.Add("\x89PNG\r\n\x1a\n\x00\x00", "PNG", "JPG")
	f.Add("caf\xe9", "caf", "x")
	f.Fuzz(func(t *testing.T, src, old, repl string) {
		got, form, err := replaceOnce("f.md", []byte(src), old, repl)
		if old == "" {
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("empty old_text: err = %v", err)
			}
			return
		}
		if edit.Binary([]byte(src)) {
			if !errors.Is(err, ErrInvalidInput) || got != nil {
				t.Fatalf("binary %q: err = %v, out = %q", src, err, got)
			}
			return
		}
		if form != "" {
			// Found only in another form: the result is the file with
			// one occurrence replaced, which the exact model cannot see.
			if err != nil || len(naiveIndexes(src, old)) != 0 {
				t.Fatalf("replaceOnce(%q, %q) in form %s: err = %v", src, old, form, err)
			}
			return
		}
		crlf := false
		if i := strings.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
			crlf = true
		}
		find, put := old, repl
		if crlf {
			put = strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n")
		}
		idx := naiveIndexes(src, find)
		if len(idx) == 0 && crlf && strings.Contains(old, "\n") {
			find = strings.ReplaceAll(strings.ReplaceAll(old, "\r\n", "\n"), "\n", "\r\n")
			idx = naiveIndexes(src, find)
		}
		switch len(idx) {
		case 0:
			if err == nil && len(edit.OtherForms(old)) > 0 {
				t.Fatalf("replaceOnce(%q, %q) found another form but did not say which", src, old)
			}
			if !errors.Is(err, ErrNoMatch) && !(errors.Is(err, ErrAmbiguous) && len(edit.OtherForms(old)) > 0) {
				t.Fatalf("replaceOnce(%q, %q): err = %v, want no match", src, old, err)
			}
		case 1:
			if err != nil {
				t.Fatalf("replaceOnce(%q, %q): %v", src, old, err)
			}
			want := src[:idx[0]] + put + src[idx[0]+len(find):]
			if !bytes.Equal(got, []byte(want)) {
				t.Fatalf("replaceOnce(%q, %q, %q) = %q, want %q", src, old, repl, got, want)
			}
		default:
			if !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("replaceOnce(%q, %q): err = %v, want ambiguous", src, old, err)
			}
			if n := fmt.Sprintf("matches %d times", len(idx)); !strings.Contains(err.Error(), n) {
				t.Fatalf("replaceOnce(%q, %q): %q does not say %q", src, old, err, n)
			}
		}
	})
}

// naiveIndexes returns every position where sub starts in s.
func naiveIndexes(s, sub string) []int {
	var out []int
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			out = append(out, i)
		}
	}
	return out
}
