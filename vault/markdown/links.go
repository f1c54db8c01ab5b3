package markdown

import "strings"

// WithTarget returns the text that replaces src[l.Start:l.End] when the
// link's target becomes newTarget: the alias, heading or block part, the
// embed '!', the escaped table pipe and the Markdown style (percent-encoded
// or <angle brackets>) are kept as written. newTarget is written as given
// (with or without ".md", as the caller prefers); in a wikilink it must not
// contain '|', '#' or "]]", which Obsidian forbids in names anyway.
func (l Link) WithTarget(newTarget string) string {
	switch l.Style {
	case Markdown:
		return l.before + encodeDest(newTarget, false) + l.after
	case MarkdownAngle:
		return l.before + encodeDest(newTarget, true) + l.after
	}
	return l.before + newTarget + l.after
}

// encodeDest writes a path as a Markdown link destination that this parser
// reads back as the same Target: percent-encoding what would end or split
// the destination.
func encodeDest(target string, angle bool) string {
	var sb strings.Builder
	for i := 0; i < len(target); i++ {
		c := target[i]
		var escape bool
		if angle {
			escape = c == '<' || c == '>' || c == '\n' || c == '\r' || c == '%' || c == '#' || c == '\\'
		} else {
			escape = c <= ' ' || c == 0x7f || c == '%' || c == '<' || c == '>' || c == '(' || c == ')' || c == '#' || c == '\\'
		}
		if escape {
			sb.WriteByte('%')
			sb.WriteByte("0123456789ABCDEF"[c>>4])
			sb.WriteByte("0123456789ABCDEF"[c&15])
		} else {
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// isExternal reports whether a destination is a URL (it has a scheme, as
// in https:, mailto: or obsidian:, or starts with //) rather than a path in
// the vault.
func isExternal(dest []byte) bool {
	if len(dest) >= 2 && dest[0] == '/' && dest[1] == '/' {
		return true
	}
	if len(dest) == 0 || !isAlpha(dest[0]) {
		return false
	}
	for _, c := range dest[1:] {
		switch {
		case c == ':':
			return true
		case isAlnum(c) || c == '+' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return false
}

// unescape returns src[from:from+n] with backslash escapes and
// percent-encoding undone, slicing the source when there are none.
func (p *parser) unescape(from, n int) string {
	s := p.str[from : from+n]
	if !strings.ContainsAny(s, "\\%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			i++
			b = append(b, s[i])
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
