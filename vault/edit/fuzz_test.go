package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"vaultmcp/vault/markdown"
)

var (
	fuzzTypes = []TargetType{Heading, Block, Frontmatter}
	fuzzOps   = []Op{Append, Prepend, Replace, Delete}
)

// FuzzApply patches arbitrary notes and checks that a patch never panics,
// never touches text outside its target, keeps CRLF notes CRLF and
// leaves readable frontmatter behind.
func FuzzApply(f *testing.F) {
	for _, tc := range patchCases {
		f.Add([]byte(tc.src), uint8(typeIndex(tc.patch.Type)), tc.patch.Target, uint8(opIndex(tc.patch.Op)), tc.patch.Content)
	}
	f.Fuzz(func(t *testing.T, src []byte, ti uint8, target string, oi uint8, content string) {
		p := Patch{Type: fuzzTypes[int(ti)%len(fuzzTypes)], Target: target, Op: fuzzOps[int(oi)%len(fuzzOps)], Content: content}
		if p.Op == Delete {
			p.Content = ""
		}
		out, err := Apply(src, p)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		if utf8.Valid(src) && utf8.ValidString(content) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out)
		}
		if allCRLF(src) && !strings.Contains(content, "\r") && bytes.Contains(src, []byte("\r\n")) && !allCRLF(out) {
			t.Fatalf("CRLF note got LF line ends: %q", out)
		}
		n := markdown.Parse(src)
		lines := splitLines(src)
		at := func(i int) int { return lineStart(lines, i, len(src)) }
		switch p.Type {
		case Frontmatter:
			// The body is never touched.
			if n.BodyOffset > 0 && !bytes.HasSuffix(out, src[n.BodyOffset:]) {
				t.Fatalf("frontmatter patch changed the body:\n%q\n->\n%q", src, out)
			}
			if _, err := Properties(out); err != nil {
				t.Fatalf("frontmatter unreadable after patch: %v\n%q", err, out)
			}
		case Heading:
			hs := outline(src, lines, n)
			i, err := findHeading(hs, target)
			if err != nil {
				t.Fatalf("patched, but the target does not resolve: %v", err)
			}
			h := hs[i]
			if !bytes.HasPrefix(out, src[:at(h.line)]) || !bytes.HasSuffix(out, src[at(h.end):]) {
				t.Fatalf("heading patch changed text outside lines %d-%d:\n%q\n->\n%q", h.line, h.end, src, out)
			}
		case Block:
			b, err := findBlock(src, lines, n, outline(src, lines, n), target)
			if err != nil {
				t.Fatalf("patched, but the target does not resolve: %v", err)
			}
			last := max(b.end, b.idLine+1) + 1
			if !bytes.HasPrefix(out, src[:at(b.start)]) || !bytes.HasSuffix(out, src[at(min(last, len(lines))):]) {
				t.Fatalf("block patch changed text outside lines %d-%d:\n%q\n->\n%q", b.start, last, src, out)
			}
		}
		if p.Type != Frontmatter && n.BodyOffset > 0 && !bytes.HasPrefix(out, src[:n.BodyOffset]) {
			t.Fatalf("body patch changed the frontmatter:\n%q\n->\n%q", src, out)
		}
	})
}

// FuzzSetProperties sets one property to an arbitrary JSON value on an
// arbitrary note: it reads back as set, the other properties keep their
// values, and the body keeps its bytes.
func FuzzSetProperties(f *testing.F) {
	for _, src := range []string{"", "# x\n", emptyFrontmatter, commentedFrontmatter, nestedFrontmatter, crlf(commentedFrontmatter), blocks, "---\na: 1\n---"} {
		for _, kv := range [][2]string{{"status", `"done"`}, {"tags", `["a","b"]`}, {"n", `3`}, {"title", `null`}, {"o", `{"k":[1,{"x":true}]}`}, {"d", `"2026-01-05"`}, {"aliases", `"x: y"`}} {
			f.Add([]byte(src), kv[0], kv[1], false)
		}
		f.Add([]byte(src), "tags", `""`, true)
	}
	f.Fuzz(func(t *testing.T, src []byte, key, value string, remove bool) {
		var v any
		if remove {
			value = ""
		} else {
			dec := json.NewDecoder(strings.NewReader(value))
			dec.UseNumber()
			if dec.Decode(&v) != nil {
				return
			}
		}
		before, err := Properties(src)
		if err != nil {
			return
		}
		var out []byte
		if remove {
			out, _, err = SetProperties(src, nil, []string{key})
		} else {
			out, _, err = SetProperties(src, Object{{key, v}}, nil)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		after, err := Properties(out)
		if err != nil {
			t.Fatalf("unreadable after set: %v\n%q", err, out)
		}
		got := map[string]any{}
		for _, p := range after {
			got[p.Key] = p.Value
		}
		if remove {
			if _, ok := got[key]; ok {
				t.Fatalf("%q still there after remove:\n%q", key, out)
			}
		} else if w, ok := got[key]; !ok || !sameValue(w, normalizeValue(v)) {
			t.Fatalf("%q reads back as %#v, want %#v:\n%q", key, w, v, out)
		}
		for _, p := range before {
			if p.Key != key && !sameValue(got[p.Key], p.Value) {
				t.Fatalf("untouched %q changed from %#v to %#v:\n%q", p.Key, p.Value, got[p.Key], out)
			}
		}
		if n := markdown.Parse(src); n.BodyOffset > 0 && !bytes.HasSuffix(out, src[n.BodyOffset:]) {
			t.Fatalf("body changed:\n%q\n->\n%q", src, out)
		}
	})
}

func allCRLF(b []byte) bool {
	return bytes.Count(b, []byte("\n")) == bytes.Count(b, []byte("\r\n"))
}

func typeIndex(t TargetType) int {
	for i, x := range fuzzTypes {
		if x == t {
			return i
		}
	}
	return 0
}

func opIndex(o Op) int {
	for i, x := range fuzzOps {
		if x == o {
			return i
		}
	}
	return 0
}
