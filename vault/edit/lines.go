package edit

import (
	"bytes"
	"strings"
)

// line is one line of a note: src[start:end] is its text, src[end:next]
// its line ending ("", "\n" or "\r\n").
type line struct {
	start, end, next int
}

// splitLines cuts src into lines. A final line without a line ending is
// a line; an ending line break does not start another one.
func splitLines(src []byte) []line {
	lines := make([]line, 0, bytes.Count(src, []byte{'\n'})+1)
	for pos := 0; pos < len(src); {
		end, next := len(src), len(src)
		if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		if end > pos && src[end-1] == '\r' {
			end--
		}
		lines = append(lines, line{pos, end, next})
		pos = next
	}
	return lines
}

// text returns the line's text without its line ending.
func (l line) text(src []byte) []byte { return src[l.start:l.end] }

// blank reports whether a line holds nothing but spaces and tabs.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// eolOf returns the note's line ending: CRLF when its first line ends in
// CRLF (as edit_file decides), else LF.
func eolOf(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineEOL returns the line ending of line i, for notes that mix LF and
// CRLF (an LF frontmatter over a CRLF body): what is inserted matches
// the lines around it. A line without an ending falls back to eolOf.
func lineEOL(src []byte, lines []line, i int) string {
	if i < len(lines) {
		if e := string(src[lines[i].end:lines[i].next]); e != "" {
			return e
		}
	}
	return eolOf(src)
}

// normalize turns a client's text into the note's line endings.
func normalize(content, eol string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	if eol != "\n" {
		content = strings.ReplaceAll(content, "\n", eol)
	}
	return content
}

// asLines makes text a run of whole lines: it ends with eol.
func asLines(text, eol string) string {
	if text == "" || strings.HasSuffix(text, "\n") {
		return text
	}
	return text + eol
}

// splice returns src with src[from:to] replaced by repl. repl is a run of
// whole lines (or empty); when the cut reaches the end of a note that has
// no final line break, the inserted text does not get one either, and
// text added after a last line without a break first gets the break it
// lacked.
func splice(src []byte, from, to int, repl, eol string) []byte {
	if to == len(src) && len(src) > 0 && src[len(src)-1] != '\n' {
		switch {
		case from == to:
			// Appending after an unterminated last line.
			repl = eol + strings.TrimSuffix(repl, eol)
		default:
			repl = strings.TrimSuffix(repl, eol)
		}
		if repl == eol {
			repl = ""
		}
	}
	out := make([]byte, 0, len(src)-(to-from)+len(repl))
	out = append(out, src[:from]...)
	out = append(out, repl...)
	return append(out, src[to:]...)
}
