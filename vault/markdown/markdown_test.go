package markdown

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// wantLink is the part of a Link a case checks.
type wantLink struct {
	Target, Heading, Block, Alias string
	Embed                         bool
	Style                         Style
}

type parseCase struct {
	name     string
	src      string
	links    []wantLink
	tags     []string // names, frontmatter ones first
	headings []Heading
	blockIDs []string
}

var parseCases = []parseCase{
	// wikilinks
	{name: "wikilink", src: "See [[Note]].", links: []wantLink{{Target: "Note"}}},
	{name: "wikilink with extension", src: "[[Note.md]]", links: []wantLink{{Target: "Note.md"}}},
	{name: "wikilink with folder", src: "[[folder/Note]]", links: []wantLink{{Target: "folder/Note"}}},
	{name: "wikilink to heading", src: "[[Note#Heading]]", links: []wantLink{{Target: "Note", Heading: "Heading"}}},
	{name: "wikilink to nested heading", src: "[[Note#H1#H2]]", links: []wantLink{{Target: "Note", Heading: "H1#H2"}}},
	{name: "wikilink to block", src: "[[Note#^abc123]]", links: []wantLink{{Target: "Note", Block: "abc123"}}},
	{name: "wikilink to own heading", src: "[[#Heading]]", links: []wantLink{{Heading: "Heading"}}},
	{name: "wikilink to own block", src: "[[#^id]]", links: []wantLink{{Block: "id"}}},
	{name: "wikilink alias", src: "[[Project Ideas|Ideas]]", links: []wantLink{{Target: "Project Ideas", Alias: "Ideas"}}},
	{name: "wikilink heading and alias", src: "[[Note#Heading|alias]]", links: []wantLink{{Target: "Note", Heading: "Heading", Alias: "alias"}}},
	{name: "wikilink spaces trimmed", src: "[[ Note # Heading | alias ]]", links: []wantLink{{Target: "Note", Heading: "Heading", Alias: "alias"}}},
	{name: "embed", src: "![[embed]]", links: []wantLink{{Target: "embed", Embed: true}}},
	{name: "embed image with size", src: "![[image.png|100]]", links: []wantLink{{Target: "image.png", Alias: "100", Embed: true}}},
	{name: "escaped pipe in table", src: "| a | b |\n|---|---|\n| [[Note\\|alias]] | [[Other#H\\|x]] |",
		links: []wantLink{{Target: "Note", Alias: "alias"}, {Target: "Other", Heading: "H", Alias: "x"}}},
	{name: "CJK and emoji names", src: "[[日本語のノート]] and [[🚀 Launch|go]]",
		links: []wantLink{{Target: "日本語のノート"}, {Target: "🚀 Launch", Alias: "go"}}},
	{name: "two links on a line", src: "[[a]][[b]]", links: []wantLink{{Target: "a"}, {Target: "b"}}},
	{name: "unclosed wikilink then a link", src: "[[a [[b]]", links: []wantLink{{Target: "b"}}},
	{name: "triple bracket", src: "[[[a]]]", links: []wantLink{{Target: "a"}}},
	{name: "empty wikilinks", src: "[[]] [[ ]] [[|x]] [[#]]"},
	{name: "wikilink does not cross lines", src: "[[a\nb]]"},
	{name: "escaped wikilink", src: `\[[no]] and \![[no-embed]]`, links: []wantLink{{Target: "no-embed"}}},

	// markdown links
	{name: "markdown link percent-encoded", src: "[text](folder/Note%20Name.md)",
		links: []wantLink{{Target: "folder/Note Name.md", Alias: "text", Style: Markdown}}},
	{name: "markdown link angle brackets", src: "[text](<folder/Note Name.md>)",
		links: []wantLink{{Target: "folder/Note Name.md", Alias: "text", Style: MarkdownAngle}}},
	{name: "markdown image", src: "![](img.png) ![alt](pics/a%20b.jpg)",
		links: []wantLink{{Target: "img.png", Embed: true, Style: Markdown}, {Target: "pics/a b.jpg", Alias: "alt", Embed: true, Style: Markdown}}},
	{name: "markdown link heading and title", src: `[t](Note.md#Some%20Heading "title") [u](Note.md#^blk)`,
		links: []wantLink{{Target: "Note.md", Heading: "Some Heading", Alias: "t", Style: Markdown}, {Target: "Note.md", Block: "blk", Alias: "u", Style: Markdown}}},
	{name: "markdown link escapes and parens", src: `[t](a\(1\).md) [u](b(2).md)`,
		links: []wantLink{{Target: "a(1).md", Alias: "t", Style: Markdown}, {Target: "b(2).md", Alias: "u", Style: Markdown}}},
	{name: "markdown link CJK", src: "[日本](%E6%97%A5%E6%9C%AC.md)", links: []wantLink{{Target: "日本.md", Alias: "日本", Style: Markdown}}},
	{name: "external links are not links", src: "[a](https://example.com/x.md) [b](mailto:a@b.c) [c](obsidian://open?vault=v) [d](//cdn/x.png) <https://x.y/#z> [e]() [f](#anchor)"},
	{name: "reference links are not followed", src: "[t][ref]\n\n[ref]: Note.md"},
	{name: "link text spans lines", src: "[two\nlines](Note.md)", links: []wantLink{{Target: "Note.md", Alias: "two\nlines", Style: Markdown}}},
	{name: "wikilink wins over markdown link", src: "[[a]](b.md)", links: []wantLink{{Target: "a"}}},
	{name: "footnote definitions are not link references", src: "Text[^1] [[C]].\n\n[^1]: [[Source]]\n[^2]: [t](y.md)\nafter [[D]]",
		links: []wantLink{{Target: "C"}, {Target: "Source"}, {Target: "y.md", Alias: "t", Style: Markdown}, {Target: "D"}}},

	// code carries no links or tags
	{name: "fenced code", src: "```\n[[no]] #no\n```\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "tilde fence with info", src: "~~~ js\n[[no]]\n~~~\n#yes", tags: []string{"yes"}},
	{name: "nested fences", src: "````md\n```\n[[no]]\n```\n[[no2]]\n````\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "indented fence", src: "   ```\n   [[no]]\n   ```\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "closing fence must be as long", src: "````\n```\n[[no]]\n````\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "unclosed fence runs to the end", src: "[[yes]]\n```\n[[no]]\n\n# no\n#no", links: []wantLink{{Target: "yes"}}},
	{name: "indented code block", src: "para\n\n    [[no]] #no\n\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "indented line continues a paragraph", src: "para\n    [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "code in list item", src: "- item\n\n      [[no]]\n- ```\n  [[no2]]\n  ```\n- [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "code in block quote", src: "> ```\n> [[no]]\n> ```\n> [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "inline code", src: "`[[no]]` [[yes]] `#no`", links: []wantLink{{Target: "yes"}}},
	{name: "inline code double backticks", src: "``a ` [[no]]`` [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "inline code across lines", src: "`a\n[[no]]` [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "unmatched backtick is text", src: "`` [[yes]] `", links: []wantLink{{Target: "yes"}}},
	{name: "escaped backtick", src: "\\`[[yes]]`", links: []wantLink{{Target: "yes"}}},

	// comments and math
	{name: "inline comment", src: "a %%[[no]] #no%% [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "multi-line comment", src: "%%\n[[no]]\n\n# No heading\n\n- #no\n%%\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "unclosed comment runs to the end", src: "[[yes]] %% [[no]]\n\n[[no2]]", links: []wantLink{{Target: "yes"}}},
	{name: "comment marks in code do not count", src: "`%%` [[yes]] `%%`", links: []wantLink{{Target: "yes"}}},
	{name: "HTML comment", src: "a <!-- [[no]] --> [[yes]]\n\n<!--\n[[no2]]\n-->\n#yes", links: []wantLink{{Target: "yes"}}, tags: []string{"yes"}},
	{name: "inline math", src: "$[[no]] #no$ [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "display math", src: "$$\n[[no]]\n\n#no\n$$\n[[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "dollars that are not math", src: "costs $5 and [[yes]] or $6", links: []wantLink{{Target: "yes"}}},
	{name: "unclosed display math is text", src: "$$ [[yes]]", links: []wantLink{{Target: "yes"}}},
	{name: "HTML block", src: "<div>\n[[no]]\n</div>\n\n[[yes]]", links: []wantLink{{Target: "yes"}}},

	// tags
	{name: "tags", src: "#tag #nested/tag #with_under-dash #1a", tags: []string{"tag", "nested/tag", "with_under-dash", "1a"}},
	{name: "numbers are not tags", src: "#123 #2024/01", tags: []string{"2024/01"}},
	{name: "tag needs a space before", src: "a#b (#c) x,#d #e", tags: []string{"e"}},
	{name: "URL fragment is not a tag", src: "http://x.y/#frag http://x.y/a#b", tags: nil},
	{name: "heading marker is not a tag", src: "# Title #real", tags: []string{"real"}, headings: []Heading{{Level: 1, Text: "Title #real", Line: 1}}},
	{name: "unicode tags", src: "#café #日本語 #🚀launch #Ünïcödé", tags: []string{"café", "日本語", "🚀launch", "Ünïcödé"}},
	{name: "tag ends at punctuation", src: "#tag. #two, #three! #four's", tags: []string{"tag", "two", "three", "four"}},
	{name: "escaped hash", src: `\#no #yes`, tags: []string{"yes"}},
	{name: "tag after newline in paragraph", src: "line\n#tag", tags: []string{"tag"}},
	{name: "tag in list and quote", src: "- #a\n> #b", tags: []string{"a", "b"}},

	// headings
	{name: "ATX headings", src: "# One\n## Two ##\n###### Six\n####### seven\n#not", tags: []string{"not"},
		headings: []Heading{{1, "One", 1}, {2, "Two", 2}, {6, "Six", 3}}},
	{name: "setext headings", src: "One\n===\n\nTwo\n---", headings: []Heading{{1, "One", 1}, {2, "Two", 4}}},
	{name: "headings in quotes are not note headings", src: "> # Quoted\n# Real", headings: []Heading{{1, "Real", 2}}},
	{name: "heading with link", src: "## See [[Note]]", links: []wantLink{{Target: "Note"}}, headings: []Heading{{2, "See [[Note]]", 1}}},

	// block ids
	{name: "block ids", src: "para ^abc123\n\n- item ^item-1\n\n^solo\n\n`^no`\n\nmid ^no here", blockIDs: []string{"abc123", "item-1", "solo"}},
	{name: "block id in code is not one", src: "```\ntext ^no\n```"},

	// frontmatter
	{name: "frontmatter tags list", src: "---\ntags:\n  - one\n  - '#two'\n---\nbody #three", tags: []string{"one", "two", "three"}},
	{name: "frontmatter tags string", src: "---\ntags: \"a, b c #d\"\n---\n", tags: []string{"a", "b", "c", "d"}},
	{name: "frontmatter tag singular", src: "---\ntag: solo\n---\n", tags: []string{"solo"}},
	{name: "frontmatter closes with dots", src: "---\ntags: [x]\n...\n[[yes]]", tags: []string{"x"}, links: []wantLink{{Target: "yes"}}},
	{name: "frontmatter not closed is body", src: "---\n[[yes]] #t", links: []wantLink{{Target: "yes"}}, tags: []string{"t"}},
	{name: "frontmatter wikilinks", src: "---\nup: \"[[Parent]]\"\nrelated: [\"[[A|a]]\", \"![[B]]\"]\nsee: \"[x](no.md)\"\n---\n[[yes]]",
		links: []wantLink{{Target: "Parent"}, {Target: "A", Alias: "a"}, {Target: "B", Embed: true}, {Target: "yes"}}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			n := Parse([]byte(tc.src))
			var links []wantLink
			for _, l := range n.Links {
				links = append(links, wantLink{l.Target, l.Heading, l.Block, l.Alias, l.Embed, l.Style})
			}
			if !reflect.DeepEqual(links, tc.links) {
				t.Errorf("links:\n got %+v\nwant %+v", links, tc.links)
			}
			var tags []string
			for _, tg := range n.Tags {
				tags = append(tags, tg.Name)
			}
			if !reflect.DeepEqual(tags, tc.tags) {
				t.Errorf("tags: got %q, want %q", tags, tc.tags)
			}
			if tc.headings != nil && !reflect.DeepEqual(n.Headings, tc.headings) {
				t.Errorf("headings: got %+v, want %+v", n.Headings, tc.headings)
			}
			if !reflect.DeepEqual(n.BlockIDs, tc.blockIDs) {
				t.Errorf("block ids: got %q, want %q", n.BlockIDs, tc.blockIDs)
			}
			checkNote(t, []byte(tc.src))
		})
	}
}

func TestLinkOffsetsAndLines(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		src := strings.Join([]string{"---", "tags: [a]", "---", "# Title", "", "Text [[One|1]] and", "![pic](<my pic.png>) #tag", ""}, eol)
		n := Parse([]byte(src))
		want := []struct {
			text string
			line int
		}{{"[[One|1]]", 6}, {"![pic](<my pic.png>)", 7}}
		if len(n.Links) != len(want) {
			t.Fatalf("eol %q: links %+v", eol, n.Links)
		}
		for i, w := range want {
			l := n.Links[i]
			if got := src[l.Start:l.End]; got != w.text || l.Line != w.line {
				t.Errorf("eol %q: link %d is %q on line %d, want %q on line %d", eol, i, got, l.Line, w.text, w.line)
			}
		}
		if got := src[n.BodyOffset:]; !strings.HasPrefix(got, "# Title") {
			t.Errorf("eol %q: body starts with %q", eol, got)
		}
		if len(n.Headings) != 1 || n.Headings[0] != (Heading{1, "Title", 4}) {
			t.Errorf("eol %q: headings %+v", eol, n.Headings)
		}
		wantTags := []Tag{{"a", 2, true}, {"tag", 7, false}}
		if !reflect.DeepEqual(n.Tags, wantTags) {
			t.Errorf("eol %q: tags %+v, want %+v", eol, n.Tags, wantTags)
		}
	}
}

func TestWithTarget(t *testing.T) {
	cases := []struct{ src, target, want string }{
		{"[[Old]]", "New", "[[New]]"},
		{"[[Old|alias]]", "folder/New", "[[folder/New|alias]]"},
		{"[[Old#Heading|a]]", "New", "[[New#Heading|a]]"},
		{"[[Old#^blk]]", "New", "[[New#^blk]]"},
		{"[[ Old ]]", "New", "[[ New ]]"},
		{"![[Old.png|200]]", "img/New.png", "![[img/New.png|200]]"},
		{"| [[Old\\|alias]] |", "New", "[[New\\|alias]]"},
		{"[[#Heading]]", "Other", "[[Other#Heading]]"},
		{"[t](Old%20Name.md#H)", "New Name.md", "[t](New%20Name.md#H)"},
		{"[t](<Old Name.md>)", "New Name.md", "[t](<New Name.md>)"},
		{`![a](old.png "title")`, "new (1).png", `![a](new%20%281%29.png "title")`},
		{"[t](old.md)", "100% #1.md", "[t](100%25%20%231.md)"},
		{"---\nup: \"[[Old|x]]\"\n---\nbody", "New", "[[New|x]]"},
	}
	for _, tc := range cases {
		n := Parse([]byte(tc.src))
		if len(n.Links) != 1 {
			t.Fatalf("%q: links %+v", tc.src, n.Links)
		}
		l := n.Links[0]
		got := l.WithTarget(tc.target)
		if got != tc.want {
			t.Errorf("%q.WithTarget(%q) = %q, want %q", tc.src, tc.target, got, tc.want)
			continue
		}
		// The rewritten link reads back with the new target.
		again := Parse([]byte(tc.src[:l.Start] + got + tc.src[l.End:]))
		if len(again.Links) != 1 || again.Links[0].Target != tc.target || again.Links[0].Heading != l.Heading ||
			again.Links[0].Alias != l.Alias || again.Links[0].Style != l.Style {
			t.Errorf("%q rewritten to %q reads back as %+v", tc.src, got, again.Links)
		}
	}
}

func TestFrontmatter(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		fm      map[string]any
		err     bool
		body    string
		aliases []string
	}{
		{name: "none", src: "# Title", body: "# Title"},
		{name: "mapping", src: "---\ntitle: T\nn: 3\n---\nbody", fm: map[string]any{"title": "T", "n": 3}, body: "body"},
		{name: "empty", src: "---\n---\nbody", fm: map[string]any{}, body: "body"},
		{name: "CRLF", src: "---\r\na: 1\r\n---\r\nbody", fm: map[string]any{"a": 1}, body: "body"},
		{name: "BOM", src: "\ufeff---\na: 1\n---\nbody", fm: map[string]any{"a": 1}, body: "body"},
		{name: "trailing spaces on delimiters", src: "--- \na: 1\n---  \nbody", fm: map[string]any{"a": 1}, body: "body"},
		{name: "at end of file", src: "---\na: 1\n---", fm: map[string]any{"a": 1}, body: ""},
		{name: "invalid YAML", src: "---\na: [1\n---\nbody", err: true, body: "body"},
		{name: "not a mapping", src: "---\n- a\n---\nbody", err: true, body: "body"},
		{name: "not at start", src: "\n---\na: 1\n---\n", body: "\n---\na: 1\n---\n"},
		{name: "four dashes do not open", src: "----\na: 1\n----\n", body: "----\na: 1\n----\n"},
		{name: "aliases list", src: "---\naliases:\n  - One\n  - Two Words\n---\n", fm: map[string]any{"aliases": []any{"One", "Two Words"}}, aliases: []string{"One", "Two Words"}},
		{name: "alias string", src: "---\nalias: One, Two\n---\n", fm: map[string]any{"alias": "One, Two"}, aliases: []string{"One", "Two"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := Parse([]byte(tc.src))
			if !reflect.DeepEqual(n.Frontmatter, tc.fm) {
				t.Errorf("frontmatter %#v, want %#v", n.Frontmatter, tc.fm)
			}
			if (n.FrontmatterErr != nil) != tc.err {
				t.Errorf("error %v, want error: %v", n.FrontmatterErr, tc.err)
			}
			if got := tc.src[n.BodyOffset:]; got != tc.body {
				t.Errorf("body %q, want %q", got, tc.body)
			}
			if !reflect.DeepEqual(n.Aliases, tc.aliases) {
				t.Errorf("aliases %q, want %q", n.Aliases, tc.aliases)
			}
		})
	}
}

func TestValidTag(t *testing.T) {
	for name, want := range map[string]bool{
		"tag": true, "nested/tag": true, "a-b_c": true, "2024": false, "1a": true,
		"café": true, "日本": true, "": false, "a b": false, "a.b": false, "🚀": true,
	} {
		if got := ValidTag(name); got != want {
			t.Errorf("ValidTag(%q) = %v, want %v", name, got, want)
		}
	}
}

// Parsing note after note into one Note gives each the result Parse
// gives it alone: nothing of a previous note is left, whatever it held.
func TestParseSharedIntoReuses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var docs []string
	for _, tc := range parseCases {
		docs = append(docs, tc.src)
	}
	for range 3000 {
		doc := randomDoc(r)
		if r.IntN(3) == 0 {
			doc = "---\ntags: [a, b]\naliases: [x]\nup: \"[[P]]\"\n---\n" + doc
		}
		docs = append(docs, doc, "", "plain")
	}
	var reused Note
	for _, doc := range docs {
		src := []byte(doc)
		ParseSharedInto(&reused, src)
		got, want := reused, *Parse(src)
		if len(got.Links) == 0 && want.Links == nil {
			got.Links = nil
		}
		if len(got.Tags) == 0 && want.Tags == nil {
			got.Tags = nil
		}
		if len(got.Headings) == 0 && want.Headings == nil {
			got.Headings = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nreused %+v\nalone  %+v", doc, got, want)
		}
	}
}
