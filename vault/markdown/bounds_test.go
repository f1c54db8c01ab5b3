package markdown

import "testing"

// FuzzFrontmatterBounds holds FrontmatterBounds to Parse's idea of where
// the frontmatter ends.
func FuzzFrontmatterBounds(f *testing.F) {
	for _, s := range []string{"", "---\n---\n", "---\na: 1\n...\nbody", "\xef\xbb\xbf---\r\na: 1\r\n---\r\n", "---\nno end\n", "--- \nx\n---\t\n", "# no frontmatter\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ys, ye, body, ok := FrontmatterBounds(src)
		n := Parse(src)
		if ok != (n.BodyOffset > 0) || (ok && body != n.BodyOffset) {
			t.Fatalf("bounds %d %d %d %v, Parse body offset %d", ys, ye, body, ok, n.BodyOffset)
		}
		if ok && !(0 < ys && ys <= ye && ye < body && body <= len(src)) {
			t.Fatalf("bounds out of order: %d %d %d (len %d)", ys, ye, body, len(src))
		}
	})
}
