package edit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Tricky notes the cases below patch.
const (
	dupHeadings = "# Projects\n## Active\n- alpha\n## Done\n- old\n\n# Areas\n## Active\n- health\n\n"

	codeHeadings = "# Real\ntext\n```bash\n# not a heading\n```\n## Sub\nsub text\n~~~\n## fenced\n~~~\n"

	noFinalNewline = "# A\nline a\n# B\nline b"

	emptyFrontmatter = "---\n---\n# Title\nbody\n"

	commentedFrontmatter = "---\n# the note's status\nstatus: draft # until reviewed\ntags:\n  - one\n  # - two (later)\naliases: [x, y]\n---\nbody\n"

	nestedFrontmatter = "---\nmatrix:\n  - [1, 2]\n  - - a\n    - b\npeople:\n  - name: Ann\n    roles: [dev, ops]\n  - name: Bo\ntitle: \"Quoted: yes\"\n---\n# Body\n"

	blocks = "# Notes\n\nFirst paragraph\ngoes on ^para\n\n- one\n- two ^item\n- three\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n^table\n\ntext\n^own\n\n```\ncode ^incode\n```\n"
)

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

type patchCase struct {
	name  string
	src   string
	patch Patch
	want  string // the whole note after the patch
	// wantErr, when set, is the error kind; cands are the candidates the
	// error must list.
	wantErr error
	cands   []string
}

var patchCases = []patchCase{
	// Duplicate headings: a bare name is ambiguous, a path picks one.
	{name: "duplicate heading is ambiguous", src: dupHeadings, patch: Patch{Heading, "Active", Append, "- x"},
		wantErr: ErrAmbiguous, cands: []string{"Projects::Active (line 2)", "Areas::Active (line 8)"}},
	{name: "path picks the second", src: dupHeadings, patch: Patch{Heading, "Areas::Active", Append, "- sleep"},
		want: "# Projects\n## Active\n- alpha\n## Done\n- old\n\n# Areas\n## Active\n- health\n- sleep\n\n"},
	{name: "path picks the first", src: dupHeadings, patch: Patch{Heading, "Projects :: Active", Append, "- beta\n"},
		want: "# Projects\n## Active\n- alpha\n- beta\n## Done\n- old\n\n# Areas\n## Active\n- health\n\n"},
	{name: "append keeps the separating blank line", src: dupHeadings, patch: Patch{Heading, "Projects", Append, "closing words"},
		want: "# Projects\n## Active\n- alpha\n## Done\n- old\nclosing words\n\n# Areas\n## Active\n- health\n\n"},
	{name: "prepend goes right under the heading", src: dupHeadings, patch: Patch{Heading, "Projects", Prepend, "intro"},
		want: "# Projects\nintro\n## Active\n- alpha\n## Done\n- old\n\n# Areas\n## Active\n- health\n\n"},
	{name: "replace keeps heading and blank lines", src: dupHeadings, patch: Patch{Heading, "Projects::Done", Replace, "- new"},
		want: "# Projects\n## Active\n- alpha\n## Done\n- new\n\n# Areas\n## Active\n- health\n\n"},
	{name: "delete a section keeps the separator", src: dupHeadings, patch: Patch{Heading, "Projects::Done", Delete, ""},
		want: "# Projects\n## Active\n- alpha\n\n# Areas\n## Active\n- health\n\n"},
	{name: "delete a top section with its subsections", src: dupHeadings, patch: Patch{Heading, "Projects", Delete, ""},
		want: "# Areas\n## Active\n- health\n\n"},
	{name: "loose match ignores case and #s", src: dupHeadings, patch: Patch{Heading, "## areas", Prepend, "x"},
		want: "# Projects\n## Active\n- alpha\n## Done\n- old\n\n# Areas\nx\n## Active\n- health\n\n"},
	{name: "missing heading lists the headings", src: dupHeadings, patch: Patch{Heading, "Nope", Append, "x"},
		wantErr: ErrNotFound, cands: []string{"Projects", "Projects::Active", "Projects::Done", "Areas", "Areas::Active"}},

	// A heading's text may hold the separator: its text or its path
	// (as a not-found error lists it) names it.
	{name: "heading text holding :: by its path", src: "# H\n## A::B\nc\n", patch: Patch{Heading, "H::A::B", Append, "d"},
		want: "# H\n## A::B\nc\nd\n"},
	{name: "heading text holding :: by its text", src: "# H\n## A::B\nc\n", patch: Patch{Heading, "A::B", Prepend, "d"},
		want: "# H\n## A::B\nd\nc\n"},
	// Headings that share one path are picked as the ambiguity error
	// lists them, with their line.
	{name: "duplicate heading by its line", src: "# H\n## Dup\na\n## Dup\nb\n", patch: Patch{Heading, "H::Dup (line 4)", Append, "c"},
		want: "# H\n## Dup\na\n## Dup\nb\nc\n"},
	{name: "duplicate heading by its text and line", src: "# H\n## Dup\na\n## Dup\nb\n", patch: Patch{Heading, "Dup (line 2)", Append, "c"},
		want: "# H\n## Dup\na\nc\n## Dup\nb\n"},
	{name: "duplicate heading at a line that is not one of them", src: "# H\n## Dup\na\n## Dup\nb\n", patch: Patch{Heading, "H::Dup (line 3)", Append, "c"},
		wantErr: ErrNotFound, cands: []string{"H::Dup (line 2)", "H::Dup (line 4)"}},
	{name: "a line given for a heading that is not there", src: "# H\n## Dup\na\n", patch: Patch{Heading, "H::Other (line 2)", Append, "c"},
		wantErr: ErrNotFound, cands: []string{"H", "H::Dup"}},
	{name: "duplicate heading ambiguous", src: "# H\n## Dup\na\n## Dup\nb\n", patch: Patch{Heading, "H::Dup", Append, "c"},
		wantErr: ErrAmbiguous, cands: []string{"H::Dup (line 2)", "H::Dup (line 4)"}},
	{name: "a heading whose text ends like a line is matched as written", src: "# H\n## Dup (line 4)\na\n## Dup\nb\n", patch: Patch{Heading, "Dup (line 4)", Append, "c"},
		want: "# H\n## Dup (line 4)\na\nc\n## Dup\nb\n"},
	{name: "heading text holding :: not found", src: "# H\n## A::B\nc\n", patch: Patch{Heading, "H::A::C", Append, "d"},
		wantErr: ErrNotFound, cands: []string{"H", "H::A::B"}},

	// Headings in code are not headings, and do not end sections.
	{name: "heading in code is no heading", src: codeHeadings, patch: Patch{Heading, "not a heading", Append, "x"},
		wantErr: ErrNotFound, cands: []string{"Real", "Real::Sub"}},
	{name: "section runs past code", src: codeHeadings, patch: Patch{Heading, "Sub", Append, "more"},
		want: "# Real\ntext\n```bash\n# not a heading\n```\n## Sub\nsub text\n~~~\n## fenced\n~~~\nmore\n"},
	{name: "replace a section holding code", src: codeHeadings, patch: Patch{Heading, "Real", Replace, "new"},
		want: "# Real\nnew\n"},

	// CRLF notes get CRLF in what is inserted.
	{name: "crlf append", src: crlf(dupHeadings), patch: Patch{Heading, "Areas::Active", Append, "- a\n- b"},
		want: crlf("# Projects\n## Active\n- alpha\n## Done\n- old\n\n# Areas\n## Active\n- health\n- a\n- b\n\n")},
	{name: "crlf replace with CRLF content", src: crlf(dupHeadings), patch: Patch{Heading, "Projects::Done", Replace, "- x\r\n- y"},
		want: crlf("# Projects\n## Active\n- alpha\n## Done\n- x\n- y\n\n# Areas\n## Active\n- health\n\n")},
	{name: "crlf block", src: crlf(blocks), patch: Patch{Block, "^item", Replace, "- 2"},
		want: crlf(strings.Replace(blocks, "- two ^item", "- 2 ^item", 1))},
	{name: "crlf frontmatter", src: crlf(commentedFrontmatter), patch: Patch{Frontmatter, "tags", Append, "two"},
		want: crlf(strings.Replace(commentedFrontmatter, "  - one\n", "  - one\n  - two\n", 1))},

	{name: "mixed endings follow the target's lines", src: "---\na: 1\n---\n# A\r\ntext\r\n", patch: Patch{Heading, "A", Append, "x\ny"},
		want: "---\na: 1\n---\n# A\r\ntext\r\nx\r\ny\r\n"},
	{name: "mixed endings in frontmatter", src: "---\na: 1\n---\n# A\r\n", patch: Patch{Frontmatter, "a", Replace, "[1, 2]"},
		want: "---\na:\n  - 1\n  - 2\n---\n# A\r\n"},

	// A note without a final line break keeps it that way.
	{name: "append at the end", src: noFinalNewline, patch: Patch{Heading, "B", Append, "new\n"},
		want: "# A\nline a\n# B\nline b\nnew"},
	{name: "replace at the end", src: noFinalNewline, patch: Patch{Heading, "B", Replace, "new"},
		want: "# A\nline a\n# B\nnew"},
	{name: "prepend before the end", src: noFinalNewline, patch: Patch{Heading, "B", Prepend, "new"},
		want: "# A\nline a\n# B\nnew\nline b"},
	{name: "append under a last bare heading", src: "# A\ntext\n# B", patch: Patch{Heading, "B", Append, "x"},
		want: "# A\ntext\n# B\nx"},
	{name: "delete the last section", src: noFinalNewline, patch: Patch{Heading, "B", Delete, ""},
		want: "# A\nline a\n"},
	{name: "setext headings", src: "Title\n=====\ntext\n\nPart\n----\np\n", patch: Patch{Heading, "Title::Part", Append, "q"},
		want: "Title\n=====\ntext\n\nPart\n----\np\nq\n"},

	// Frontmatter: empty, commented, nested.
	{name: "empty frontmatter has no keys", src: emptyFrontmatter, patch: Patch{Frontmatter, "status", Replace, "done"},
		wantErr: ErrNotFound, cands: []string{}},
	{name: "replace keeps the comments", src: commentedFrontmatter, patch: Patch{Frontmatter, "status", Replace, "done"},
		want: strings.Replace(commentedFrontmatter, "status: draft #", "status: done #", 1)},
	{name: "replace with a list", src: commentedFrontmatter, patch: Patch{Frontmatter, "status", Replace, `["a", "b"]`},
		want: strings.Replace(commentedFrontmatter, "status: draft # until reviewed\n", "status:\n  - a\n  - b\n", 1)},
	{name: "prepend to a flow list", src: commentedFrontmatter, patch: Patch{Frontmatter, "aliases", Prepend, "w"},
		want: strings.Replace(commentedFrontmatter, "aliases: [x, y]\n", "aliases:\n  - w\n  - x\n  - y\n", 1)},
	{name: "append to text", src: commentedFrontmatter, patch: Patch{Frontmatter, "status", Append, "-ish"},
		want: strings.Replace(commentedFrontmatter, "status: draft #", "status: draft-ish #", 1)},
	{name: "delete a key, its trailing comment stays", src: commentedFrontmatter, patch: Patch{Frontmatter, "tags", Delete, ""},
		want: strings.Replace(commentedFrontmatter, "tags:\n  - one\n", "", 1)},
	{name: "delete the last key", src: commentedFrontmatter, patch: Patch{Frontmatter, "aliases", Delete, ""},
		want: strings.Replace(commentedFrontmatter, "aliases: [x, y]\n", "", 1)},
	{name: "nested lists untouched by a sibling", src: nestedFrontmatter, patch: Patch{Frontmatter, "title", Replace, "Plain"},
		want: strings.Replace(nestedFrontmatter, `title: "Quoted: yes"`, "title: Plain", 1)},
	{name: "append an object to a list of objects", src: nestedFrontmatter, patch: Patch{Frontmatter, "people", Append, `{"name": "Cy"}`},
		want: strings.Replace(nestedFrontmatter, "people:\n  - name: Ann\n    roles: [dev, ops]\n  - name: Bo\n",
			"people:\n  - name: Ann\n    roles:\n      - dev\n      - ops\n  - name: Bo\n  - name: Cy\n", 1)},
	{name: "number cannot be appended to", src: "---\nn: 3\n---\n", patch: Patch{Frontmatter, "n", Append, "4"}, wantErr: ErrInvalid},
	{name: "missing key lists keys", src: nestedFrontmatter, patch: Patch{Frontmatter, "Title", Replace, "x"},
		wantErr: ErrNotFound, cands: []string{"matrix", "people", "title"}},

	// Blocks.
	{name: "append after a paragraph block", src: blocks, patch: Patch{Block, "^para", Append, "Next"},
		want: strings.Replace(blocks, "goes on ^para\n", "goes on ^para\n\nNext\n", 1)},
	{name: "prepend before a paragraph block", src: blocks, patch: Patch{Block, "para", Prepend, "Before"},
		want: strings.Replace(blocks, "\nFirst paragraph", "\nBefore\n\nFirst paragraph", 1)},
	{name: "replace a paragraph keeps its id", src: blocks, patch: Patch{Block, "^para", Replace, "One line"},
		want: strings.Replace(blocks, "First paragraph\ngoes on ^para\n", "One line ^para\n", 1)},
	{name: "append after a list item", src: blocks, patch: Patch{Block, "^item", Append, "- two and a half"},
		want: strings.Replace(blocks, "- two ^item\n", "- two ^item\n- two and a half\n", 1)},
	{name: "delete a list item", src: blocks, patch: Patch{Block, "^item", Delete, ""},
		want: strings.Replace(blocks, "- two ^item\n", "", 1)},
	{name: "append rows to a table", src: blocks, patch: Patch{Block, "^table", Append, "| 3 | 4 |"},
		want: strings.Replace(blocks, "| 1 | 2 |\n", "| 1 | 2 |\n| 3 | 4 |\n", 1)},
	{name: "replace a table keeps its id line", src: blocks, patch: Patch{Block, "^table", Replace, "| x |\n| - |"},
		want: strings.Replace(blocks, "| a | b |\n| - | - |\n| 1 | 2 |\n", "| x |\n| - |\n", 1)},
	{name: "delete a table with its id", src: blocks, patch: Patch{Block, "^table", Delete, ""},
		want: strings.Replace(blocks, "| a | b |\n| - | - |\n| 1 | 2 |\n\n^table\n\n", "", 1)},
	{name: "id on its own line below text", src: blocks, patch: Patch{Block, "^own", Append, "after"},
		want: strings.Replace(blocks, "text\n^own\n", "text\n^own\n\nafter\n", 1)},
	{name: "replace text above its own id line", src: blocks, patch: Patch{Block, "^own", Replace, "new text"},
		want: strings.Replace(blocks, "text\n^own\n", "new text\n^own\n", 1)},
	{name: "id in code is no id", src: blocks, patch: Patch{Block, "^incode", Append, "x"},
		wantErr: ErrNotFound, cands: []string{"^para", "^item", "^table", "^own"}},
	{name: "duplicate ids", src: "a ^x\n\nb ^x\n", patch: Patch{Block, "^x", Replace, "c"},
		wantErr: ErrAmbiguous, cands: []string{"^x (line 1)", "^x (line 3)"}},
	{name: "paragraph right after a code block", src: "```\ncode\n```\ntext ^p\n", patch: Patch{Block, "^p", Replace, "new"},
		want: "```\ncode\n```\nnew ^p\n"},
	{name: "list item continuation", src: "- a\n- b\n  more ^li\n- c\n", patch: Patch{Block, "^li", Replace, "- B"},
		want: "- a\n- B ^li\n- c\n"},
	{name: "quote with own id line", src: "> q1\n> q2\n\n^q\n", patch: Patch{Block, "^q", Append, "> q3"},
		want: "> q1\n> q2\n> q3\n\n^q\n"},
	{name: "id alone at the top", src: "^top\n\ntext\n", patch: Patch{Block, "^top", Delete, ""},
		want: "text\n"},
	{name: "block in a note without final newline", src: "p ^e", patch: Patch{Block, "^e", Append, "q"},
		want: "p ^e\n\nq"},

	// Bad requests.
	{name: "unknown op", src: blocks, patch: Patch{Block, "^para", "upsert", "x"}, wantErr: ErrInvalid},
	{name: "unknown target type", src: blocks, patch: Patch{"line", "1", Append, "x"}, wantErr: ErrInvalid},
	{name: "delete with content", src: blocks, patch: Patch{Block, "^para", Delete, "x"}, wantErr: ErrInvalid},
	{name: "append nothing", src: blocks, patch: Patch{Heading, "Notes", Append, ""}, wantErr: ErrInvalid},
	{name: "empty heading target", src: blocks, patch: Patch{Heading, " ", Replace, "x"}, wantErr: ErrInvalid},
	{name: "unreadable frontmatter", src: "---\na: [\n---\n", patch: Patch{Frontmatter, "a", Replace, "x"}, wantErr: ErrInvalid},
}

func TestApply(t *testing.T) {
	for _, tc := range patchCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.src), tc.patch)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err %T is not *Error", err)
				}
				if tc.cands != nil && !slices.Equal(e.Candidates, tc.cands) {
					t.Errorf("candidates %q, want %q", e.Candidates, tc.cands)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tc.want)
			}
			checkRestUnchanged(t, tc.src, string(got))
		})
	}
}

// checkRestUnchanged checks an edit is local: the note before and after
// differ in one run of bytes, and the text around it is what it was.
// (The exact outputs above say the same; this guards the property for
// every case, including those added later.)
func checkRestUnchanged(t *testing.T, before, after string) {
	t.Helper()
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	if before[:p]+before[len(before)-s:] == "" && after[:p]+after[len(after)-s:] == "" && before != "" {
		t.Errorf("the whole note was rewritten")
	}
	if strings.Contains(before, "\r\n") && strings.Count(before, "\n") == strings.Count(before, "\r\n") && strings.Count(after, "\n") != strings.Count(after, "\r\n") {
		t.Errorf("a CRLF note got LF line ends: %q", after)
	}
}
