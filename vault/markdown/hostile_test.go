package markdown

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// billionLaughs is frontmatter whose aliases expand to 9^9 strings.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	b.WriteString("tags: [kept]\n---\n# Body\n[[Link]] #bodytag\n")
	return b.String()
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Hostile notes parse with bounded work and memory: a YAML alias bomb in
// the frontmatter is refused by the YAML decoder (yaml.v3 limits aliasing),
// and structures nested thousands deep are read without recursion trouble.
func TestHostileNotes(t *testing.T) {
	nest := func(open, middle, close string, n int) string {
		return strings.Repeat(open, n) + middle + strings.Repeat(close, n)
	}
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, n *Note)
	}{
		{"YAML alias bomb", billionLaughs(), func(t *testing.T, n *Note) {
			if n.FrontmatterErr == nil || !strings.Contains(n.FrontmatterErr.Error(), "alias") {
				t.Errorf("FrontmatterErr = %v, want the aliasing refused", n.FrontmatterErr)
			}
			if len(n.Links) != 1 || n.Links[0].Target != "Link" {
				t.Errorf("body links = %+v", n.Links)
			}
		}},
		{"wikilinks nested", nest("[[", "Target", "]]", 1000), nil},
		{"embeds nested", nest("![[", "Target", "]]", 1000), nil},
		{"markdown links nested", nest("[x](", "Target.md", ")", 1000), nil},
		{"brackets nested", nest("[", "x", "]", 100000) + "(y.md)", nil},
		{"parentheses nested", "[x](" + nest("(", "y", ")", 100000) + ")", nil},
		{"blockquotes nested", strings.Repeat("> ", 1000) + "[[Target]]\n", func(t *testing.T, n *Note) {
			if len(n.Links) != 1 {
				t.Errorf("links = %+v", n.Links)
			}
		}},
		{"lists nested", strings.Repeat("- ", 1000) + "[[Target]]\n", nil},
		{"list items indented", func() string {
			var b strings.Builder
			for i := range 1000 {
				b.WriteString(strings.Repeat("  ", i) + "- [[Target]]\n")
			}
			return b.String()
		}(), nil},
		{"emphasis nested", nest("*", "x", "*", 100000) + nest("_", "x", "_", 100000), nil},
		{"code spans", strings.Repeat("`", 100000) + "x", nil},
		{"comment never closed", "%%" + strings.Repeat("[[a]] ", 100000), nil},
		{"math never closed", "$$" + strings.Repeat("[[a]] ", 100000), nil},
		{"html nested", nest("<div>", "[[x]]", "</div>", 10000), nil},
		{"many links", strings.Repeat("[[a]]", 200000), func(t *testing.T, n *Note) {
			if len(n.Links) != 200000 {
				t.Errorf("%d links", len(n.Links))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n *Note
			done := make(chan struct{})
			var alloc uint64
			go func() {
				defer close(done)
				alloc = allocated(func() { n = Parse([]byte(tt.src)) })
			}()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("Parse did not return")
			}
			// Memory proportional to the input, not to what it could expand
			// to: a generous factor of the note's size.
			if limit := uint64(64*len(tt.src)) + 16<<20; alloc > limit {
				t.Errorf("Parse allocated %d MB for a %d KB note", alloc>>20, len(tt.src)>>10)
			}
			if tt.check != nil {
				tt.check(t, n)
			}
		})
	}
}
