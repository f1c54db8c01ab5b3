package markdown

import "bytes"

// FrontmatterBounds locates a note's frontmatter the way Parse does,
// without parsing the rest: the YAML text is src[yamlStart:yamlEnd] and
// the body starts at bodyStart (Note.BodyOffset). ok is false when the
// note has no frontmatter block.
func FrontmatterBounds(src []byte) (yamlStart, yamlEnd, bodyStart int, ok bool) {
	start := 0
	if bytes.HasPrefix(src, bom) {
		start = len(bom)
	}
	open := delimiterLine(src, start, "---")
	if open < 0 {
		return 0, 0, 0, false
	}
	for pos := open; pos < len(src); {
		if end := delimiterLine(src, pos, "---"); end >= 0 {
			return open, pos, end, true
		}
		if end := delimiterLine(src, pos, "..."); end >= 0 {
			return open, pos, end, true
		}
		nl := bytes.IndexByte(src[pos:], '\n')
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	return 0, 0, 0, false
}
