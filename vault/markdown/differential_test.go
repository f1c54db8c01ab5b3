package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Fragments that open, close or nest CommonMark blocks and inlines: random
// documents built from them reach the corners of the block structure that
// byte-level fuzzing finds slowly.
var (
	prefixes = []string{"", "", "", " ", "  ", "   ", "    ", "\t", " \t", "> ", ">", "> > ", "- ", "-", "* ", "+ ",
		"1. ", "2) ", "10. ", "  - ", "   > ", "-\t", "> - ", "- > ", "1.  ", "-     ", "#", "##"}
	bodies = []string{"", "[[x]]", "text [[y|z]] #tag", "```", "````", "~~~", "``` js", "```a`b", "`[[c]]`", "``",
		"`", "<div>", "</div>", "<pre>", "</pre>", "<!--", "-->", "<?x", "?>", "<a href=\"`\">", "<a>", "<!X",
		"[a]: /u", "[a]: /u \"`\"", "[a]:", "\"`\"", "[x][a]", "[x][]", "[a]", "[t](u.md)", "[t](`)", "[t](<`>)",
		"![i](p.png)", "===", "---", "***", "- - -", "# h", "\\", "a\\", "a  ", "%%", "$$", "$a$", "<http://a`b>",
		"<x@y.z>", "[[a`b]]", "| [[n\\|a]] |", "|---|", "^id", "x ^id", "[", "]", "](v.md)", "![[e]]", "<!-- `",
		"` -->", "<script>", "</script>", "[b\n", "<![CDATA[", "]]>", "[[a]](b.md)", "\\`", "\\[[x]]",
		"x\\  ", "\\\\\\", "*", "__", "**a**", "_`_", "[^1]: [[f]]", "[^n]:", "[^1]: `", "[^x]"}
	endings = []string{"\n", "\n", "\n", "\r\n", "\n\n"}
)

func randomDoc(r *rand.Rand) string {
	var sb strings.Builder
	for range 1 + r.IntN(12) {
		for range r.IntN(3) {
			sb.WriteString(prefixes[r.IntN(len(prefixes))])
		}
		for k := range 1 + r.IntN(3) {
			if k > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(bodies[r.IntN(len(bodies))])
		}
		sb.WriteString(endings[r.IntN(len(endings))])
	}
	return sb.String()
}

// TestDifferentialRandom holds Parse to goldmark's view of code, links and
// headings on random documents (fixed seed: reproducible).
func TestDifferentialRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range n {
		doc := randomDoc(r)
		t.Run("", func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("document: %q", doc)
				}
			}()
			checkNote(t, []byte(doc))
		})
		if t.Failed() {
			return
		}
	}
}
