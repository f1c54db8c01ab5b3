package tools_test

import (
	"strings"
	"testing"
)

// pngHeader is the start of a PNG file: "PNG" in text, then NUL bytes.
const pngHeader = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"

// TestTextEditsRefuseBinaryFiles: every tool that edits a file's text
// refuses one that read_file shows as binary, with the same message, and
// changes and commits nothing.
func TestTextEditsRefuseBinaryFiles(t *testing.T) {
	g := newNotesVault(t, map[string]string{
		"att/scan.png": pngHeader,
		"latin1.md":    "---\nstatus: draft\n---\n# Caf\xe9\nPNG\n",
		"nul.md":       "---\nstatus: draft\n---\n# A\nPNG\x00\n",
	})
	h := g.serve()
	for _, rel := range []string{"att/scan.png", "latin1.md", "nul.md"} {
		if r := h.call("read_file", `{"path":"`+rel+`"}`); !strings.HasPrefix(r.text, "Binary file: "+rel) {
			t.Fatalf("read_file %s = %q, want it described as binary", rel, r.text)
		}
		cases := []struct{ tool, args string }{
			{"edit_file", `{"path":"` + rel + `","old_text":"PNG","new_text":"JPG"}`},
			{"patch_note", `{"path":"` + rel + `","target_type":"frontmatter","target":"status","operation":"replace","content":"done"}`},
			{"patch_note", `{"path":"` + rel + `","target_type":"heading","target":"A","operation":"append","content":"x"}`},
			{"set_properties", `{"path":"` + rel + `","properties":{"status":"done"}}`},
			{"set_properties", `{"path":"` + rel + `","remove":["status"]}`},
			{"write_file", `{"path":"` + rel + `","content":"more","mode":"append"}`},
		}
		for _, c := range cases {
			n, before := g.commits(), g.read(rel)
			r := h.call(c.tool, c.args)
			if !r.isError || r.errMsg != rel+" is a binary file (read_file shows no text of it); a text edit would corrupt it, so nothing was changed" {
				t.Errorf("%s %s = %q, want the binary refusal", c.tool, c.args, r.text)
			}
			if g.read(rel) != before || g.commits() != n {
				t.Errorf("%s %s changed or committed the binary file", c.tool, c.args)
			}
		}
	}
	// Replacing a binary file whole is not a text edit.
	if r := h.call("write_file", `{"path":"latin1.md","content":"# Café\n"}`); r.isError {
		t.Errorf("overwrite of a binary file: %s", r.text)
	}
}

// TestEditFileUnicodeForms: old_text typed composed finds text stored
// decomposed (and back); new_text is written in the file's form and the
// answer says so. A near miss is named in the not-found error.
func TestEditFileUnicodeForms(t *testing.T) {
	nfd := "# Cafe\u0301\nLe cafe\u0301 e\u0301tait tre\u0300s bon.\n"
	g := newNotesVault(t, map[string]string{
		"nfd.md":  nfd,
		"nfc.md":  "Le café était très bon.\n",
		"case.md": "# Title\n\nThe Quick Brown Fox\n",
	})
	h := g.serve()
	tests := []struct {
		path, old, repl string
		want            string // the file afterwards
		says            string // in the answer
		isError         bool
	}{
		{"nfd.md", "Le café était très bon.", "Le thé était bon.", "# Cafe\u0301\nLe the\u0301 e\u0301tait bon.\n", "found only in Unicode form NFD (accents decomposed)", false},
		{"nfc.md", "e\u0301tait", "fut", "Le café fut très bon.\n", "found only in Unicode form NFC (accents composed)", false},
		{"nfc.md", "Le café fut", "Le thé fut", "Le thé fut très bon.\n", "Edited nfc.md", false},
		{"case.md", "the quick brown fox", "x", "# Title\n\nThe Quick Brown Fox\n", `the text at line 3 differs from old_text only in letter case; line 3 reads \"The Quick Brown Fox\"`, true},
		{"case.md", "# Title\nThe Quick", "x", "# Title\n\nThe Quick Brown Fox\n", "the text at lines 1-3 differs from old_text only in whitespace", true},
		{"nfd.md", "le thé ÉTAIT", "x", "# Cafe\u0301\nLe the\u0301 e\u0301tait bon.\n", "line 2 differs from old_text only in letter case and Unicode form", true},
	}
	for _, tt := range tests {
		r := h.call("edit_file", `{"path":"`+tt.path+`","old_text":"`+strings.ReplaceAll(tt.old, "\n", `\n`)+`","new_text":"`+tt.repl+`"}`)
		if r.isError != tt.isError || !strings.Contains(r.text, tt.says) {
			t.Errorf("edit_file %s %q = %q, want it to say %q", tt.path, tt.old, r.text, tt.says)
		}
		if got := g.read(tt.path); got != tt.want {
			t.Errorf("edit_file %s %q: file %q, want %q", tt.path, tt.old, got, tt.want)
		}
	}
}

// TestSearchUnicodeForms: names and text stored decomposed (as pasted
// from macOS) are found by composed queries; accent-free queries find
// nothing but the empty answer gives the exact argument that would; a
// find_files glob without an extension matches names less theirs.
func TestSearchUnicodeForms(t *testing.T) {
	nfdName := "Z/2024/Cafe\u0301 cre\u0300me 00915.md"
	h := newIndexHarness(t, map[string]string{
		nfdName:                      "Le cafe\u0301 e\u0301tait tre\u0300s bon.\n",
		"Z/2024/Café crème 00015.md": "Le café était bon.\nproject\n",
		"Z/2024/Plain 00015.md":      "nothing\n",
	})
	for _, c := range []struct{ tool, args, want string }{
		{"grep", `{"query":"café était"}`, "Z/2024/Café crème 00015.md:1: Le café était bon.\n" + nfdName + ":1: Le cafe\u0301 e\u0301tait tre\u0300s bon."},
		{"grep", `{"query":"cafe\u0301 e\u0301tait","case_sensitive":true}`, "Z/2024/Café crème 00015.md:1: Le café était bon.\n" + nfdName + ":1: Le cafe\u0301 e\u0301tait tre\u0300s bon."},
		{"grep", `{"query":"cafe etait"}`, `No matches for "cafe etait" (3 files searched). Ignoring accents, 2 lines in 2 files would match (e.g. Z/2024/Café crème 00015.md:1): use query "café était".`},
		{"grep", `{"query":"zzz"}`, `No matches for "zzz" (3 files searched)`},
		{"find_files", `{"name":"Cafe creme","path":"Z/2024"}`, `No files found in Z/2024 with these filters. Ignoring accents, 2 files would match (e.g. Z/2024/Café crème 00015.md): use name "Café crème".`},
		{"search_files", `{"pattern":"Cafe*"}`, `No files match "Cafe*". Ignoring accents, 2 files would match (e.g. Z/2024/Café crème 00015.md): use pattern "Café*".`},
		{"search_files", `{"pattern":"*creme 009*"}`, `No files match "*creme 009*". Ignoring accents, 1 file would match (e.g. ` + nfdName + `): use pattern "*crème 009*".`},
	} {
		if got := h.ok(c.tool, c.args); got != c.want {
			t.Errorf("%s %s =\n%s\nwant\n%s", c.tool, c.args, got, c.want)
		}
	}
	// Sorted by the composed name: 00015 before 00915 stored decomposed.
	if got := h.ok("list_directory", `{"path":"Z/2024"}`); got != "[file] Z/2024/Café crème 00015.md\n[file] "+nfdName+"\n[file] Z/2024/Plain 00015.md" {
		t.Errorf("list_directory =\n%s", got)
	}
	if got := h.ok("search_files", `{"pattern":"*.md"}`); got != "Z/2024/Café crème 00015.md\n"+nfdName+"\nZ/2024/Plain 00015.md" {
		t.Errorf("search_files =\n%s", got)
	}
	// A name glob without an extension matches the name less its
	// extension; with one, the whole name.
	for _, c := range []struct{ args, want string }{
		{`{"name":"Café crème 00*15","path":"Z/2024"}`, "Z/2024/Café crème 00015.md\n" + nfdName},
		{`{"name":"Café crème 00*15.md","path":"Z/2024"}`, "Z/2024/Café crème 00015.md\n" + nfdName},
		{`{"name":"*00015"}`, "Z/2024/Café crème 00015.md\nZ/2024/Plain 00015.md"},
		{`{"name":"*00015.txt"}`, "No files found with these filters"},
	} {
		got := h.ok("find_files", c.args)
		var paths []string
		for _, l := range strings.Split(got, "\n") {
			paths = append(paths, strings.SplitN(l, "  ", 2)[0])
		}
		if strings.Join(paths, "\n") != c.want {
			t.Errorf("find_files %s =\n%s\nwant\n%s", c.args, got, c.want)
		}
	}
}
