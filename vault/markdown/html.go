package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// HTML recognition, transcribed from goldmark (github.com/yuin/goldmark,
// parser/html_block.go and parser/raw_html.go) so that this scanner and
// goldmark agree on where raw HTML swallows text that could otherwise open a
// code span. The regexps only run on lines or spans that start with '<'.

const (
	tagnamePattern   = `([A-Za-z][A-Za-z0-9-]*)`
	attributePattern = `(?:[\r\n \t]+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:[\r\n \t]*=[\r\n \t]*(?:[^\"'=<>` + "`" + `\x00-\x20]+|'[^']*'|"[^"]*"))?)`
)

// htmlBlocks are compiled by the first note with an HTML block, not at
// every start of the server.
var htmlBlocks = sync.OnceValue(func() *htmlBlockPatterns {
	return &htmlBlockPatterns{
		// goldmark's type 1 and 6 patterns end in "(?:\s.*|>.*|/>.*|)$" on a
		// single line: only what follows the tag name matters, so they stop there.
		type1Open:  regexp.MustCompile(`(?i)^<(script|pre|style|textarea)(?:\s|>|/>|$)`),
		type1Close: regexp.MustCompile(`(?i)</(?:script|pre|style|textarea)>`),
		type6:      regexp.MustCompile(`^<(?:/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(?:[ ]|>|/>|$)`),
		type7:      regexp.MustCompile(`^<(/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(` + attributePattern + `*)[ ]*(?:>|/>)[ ]*$`),
	}
})

type htmlBlockPatterns struct {
	type1Open, type1Close, type6, type7 *regexp.Regexp
}

var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "base": true, "basefont": true,
	"blockquote": true, "body": true, "caption": true, "center": true, "col": true,
	"colgroup": true, "dd": true, "details": true, "dialog": true, "dir": true,
	"div": true, "dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "frame": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"head": true, "header": true, "hr": true, "html": true, "iframe": true,
	"legend": true, "li": true, "link": true, "main": true, "menu": true,
	"menuitem": true, "meta": true, "nav": true, "noframes": true, "ol": true,
	"optgroup": true, "option": true, "p": true, "param": true, "search": true,
	"section": true, "summary": true, "table": true, "tbody": true, "td": true,
	"tfoot": true, "th": true, "thead": true, "title": true, "tr": true,
	"track": true, "ul": true,
}

// htmlBlockStart returns the type (1..7) of the HTML block that starts at
// nextNonspace, or 0.
func (p *parser) htmlBlockStart() int {
	line := p.src[p.nextNonspace:p.lineEnd]
	switch {
	case htmlBlocks().type1Open.Match(line):
		return 1
	case bytes.HasPrefix(line, []byte("<!--")):
		return 2
	case bytes.HasPrefix(line, []byte("<?")):
		return 3
	case len(line) > 2 && line[1] == '!' && line[2] >= 'A' && line[2] <= 'Z':
		return 4
	case bytes.HasPrefix(line, []byte("<![CDATA[")):
		return 5
	}
	if m := htmlBlocks().type7.FindSubmatchIndex(line); m != nil {
		name := strings.ToLower(string(line[m[4]:m[5]]))
		if blockTags[name] {
			return 6
		}
		isClose := m[2] >= 0
		hasAttr := m[6] != m[7]
		tip := p.stack[len(p.stack)-1].kind
		if name != "script" && name != "style" && name != "pre" && tip != kindParagraph && !(isClose && hasAttr) {
			return 7
		}
	}
	if m := htmlBlocks().type6.FindSubmatchIndex(line); m != nil && blockTags[strings.ToLower(string(line[m[2]:m[3]]))] {
		return 6
	}
	return 0
}

// htmlBlockCloses reports whether line holds the end condition of an HTML
// block of type t (1..5).
func htmlBlockCloses(t int, line []byte) bool {
	switch t {
	case 1:
		return htmlBlocks().type1Close.Match(line)
	case 2:
		return bytes.Contains(line, []byte("-->"))
	case 3:
		return bytes.Contains(line, []byte("?>"))
	case 4:
		return bytes.IndexByte(line, '>') >= 0
	case 5:
		return bytes.Contains(line, []byte("]]>"))
	}
	return false
}

// rawHTML returns the end of the inline raw HTML (tag, comment, processing
// instruction, declaration or CDATA section) starting at b[i] == '<', or -1.
func (p *parser) rawHTML(b []byte, i int) int {
	rest := b[i:]
	line := rest
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl+1]
	}
	switch {
	case len(line) > 1 && isAlnum(line[1]):
		return htmlTag(rest, i, false)
	case len(line) > 2 && line[1] == '/' && isAlnum(line[2]):
		return htmlTag(rest, i, true)
	case bytes.HasPrefix(line, []byte("<!-->")):
		return i + 5
	case bytes.HasPrefix(line, []byte("<!--->")):
		return i + 6
	case bytes.HasPrefix(line, []byte("<!--")):
		return p.until(rest[4:], i+4, "-->", 0)
	case bytes.HasPrefix(line, []byte("<?")):
		return p.until(rest, i, "?>", 1)
	case len(line) > 2 && line[1] == '!' && line[2] >= 'A' && line[2] <= 'Z':
		return p.until(rest, i, ">", 2)
	case bytes.HasPrefix(line, []byte("<![CDATA[")):
		return p.until(rest, i, "]]>", 3)
	}
	return -1
}

// until returns the end of the first closer in rest (which starts at i), or
// -1; like goldmark it remembers a failure (kind indexes htmlUnclosed), as
// no later search in the paragraph can succeed.
func (p *parser) until(rest []byte, i int, closer string, kind int) int {
	if p.htmlUnclosed[kind] {
		return -1
	}
	if k := bytes.Index(rest, []byte(closer)); k >= 0 {
		return i + k + len(closer)
	}
	p.htmlUnclosed[kind] = true
	return -1
}

// htmlTag returns the end of the open (or closing) tag at rest[0] == '<', or
// -1. It accepts what goldmark's openTagRegexp and closeTagRegexp accept
// (checked by TestHTMLTagMatchesRegexp) without the cost of a regexp whose
// state grows with the rest of the paragraph. Like goldmark's rune reader,
// it sees the text end at the first invalid UTF-8 sequence.
func htmlTag(rest []byte, i int, closing bool) int {
	k := 1
	if closing {
		if len(rest) < 2 || rest[1] != '/' {
			return -1
		}
		k = 2
	}
	if k >= len(rest) || !isAlpha(rest[k]) {
		return -1
	}
	for k < len(rest) && (isAlnum(rest[k]) || rest[k] == '-') {
		k++
	}
	if !closing {
		// attributes: whitespace, a name, optionally = and a value
		for {
			w := k
			for w < len(rest) && isTagSpace(rest[w]) {
				w++
			}
			if w == k || w >= len(rest) || !(isAlpha(rest[w]) || rest[w] == '_' || rest[w] == ':') {
				break
			}
			a := w + 1
			for a < len(rest) && (isAlnum(rest[a]) || strings.IndexByte(":._-", rest[a]) >= 0) {
				a++
			}
			k = a
			e := a
			for e < len(rest) && isTagSpace(rest[e]) {
				e++
			}
			if e >= len(rest) || rest[e] != '=' {
				continue
			}
			e++
			for e < len(rest) && isTagSpace(rest[e]) {
				e++
			}
			if v := attributeValue(rest, e); v > 0 {
				k = v
			}
		}
	}
	// spaces, tabs and newlines (a lone \r does not count), then /?>
	for k < len(rest) {
		switch {
		case rest[k] == ' ' || rest[k] == '\t' || rest[k] == '\n':
			k++
			continue
		case rest[k] == '\r' && k+1 < len(rest) && rest[k+1] == '\n':
			k += 2
			continue
		}
		break
	}
	if !closing && k < len(rest) && rest[k] == '/' {
		k++
	}
	if k < len(rest) && rest[k] == '>' {
		return i + k + 1
	}
	return -1
}

func isTagSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// attributeValue returns the end of an unquoted, 'single' or "double" quoted
// attribute value at rest[e], or -1.
func attributeValue(rest []byte, e int) int {
	if e >= len(rest) {
		return -1
	}
	switch q := rest[e]; q {
	case '\'', '"':
		for j := e + 1; j < len(rest); {
			c := rest[j]
			if c == q {
				return j + 1
			}
			if c < utf8.RuneSelf {
				j++
				continue
			}
			r, n := utf8.DecodeRune(rest[j:])
			if r == utf8.RuneError {
				return -1
			}
			j += n
		}
		return -1
	}
	j := e
	for j < len(rest) {
		c := rest[j]
		if c < utf8.RuneSelf {
			if c <= ' ' || strings.IndexByte("\"'=<>`", c) >= 0 {
				break
			}
			j++
			continue
		}
		r, n := utf8.DecodeRune(rest[j:])
		if r == utf8.RuneError {
			break
		}
		j += n
	}
	if j == e {
		return -1
	}
	return j
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
