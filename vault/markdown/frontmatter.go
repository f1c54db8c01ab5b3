package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	bom = []byte("\xef\xbb\xbf")

	errNotMapping = errors.New("frontmatter is not a YAML mapping")
)

// frontmatter reads the YAML block that opens the note, if any, fills
// BodyOffset, Frontmatter, FrontmatterErr, the frontmatter tags and aliases,
// and returns the line number where the body starts.
func (p *parser) frontmatter() int {
	src := p.src
	start := 0
	if bytes.HasPrefix(src, bom) {
		start = len(bom)
	}
	open := delimiterLine(src, start, "---")
	if open < 0 {
		return 1
	}
	yamlStart := open
	closeStart, bodyStart := -1, -1
	for pos := open; pos < len(src); {
		if end := delimiterLine(src, pos, "---"); end >= 0 {
			closeStart, bodyStart = pos, end
			break
		}
		if end := delimiterLine(src, pos, "..."); end >= 0 {
			closeStart, bodyStart = pos, end
			break
		}
		nl := bytes.IndexByte(src[pos:], '\n')
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	if closeStart < 0 {
		return 1 // no closing line: the opening --- is body text
	}
	n := p.note
	n.BodyOffset = bodyStart
	p.readYAML(p.str[yamlStart:closeStart], 2)
	p.frontmatterLinks(yamlStart, closeStart)
	return 1 + bytes.Count(src[:bodyStart], []byte{'\n'})
}

// frontmatterLinks records the wikilinks written in the frontmatter text
// src[from:to] (its first line is line 2).
func (p *parser) frontmatterLinks(from, to int) {
	line := 2
	for pos := from; pos < to; line++ {
		end := to
		if nl := bytes.IndexByte(p.src[pos:to], '\n'); nl >= 0 {
			end = pos + nl
		}
		b := p.src[pos:end]
		if bytes.Contains(b, []byte("[[")) {
			p.bmap = append(p.bmap[:0], bufSeg{buf: 0, src: pos, line: line})
			for i := 0; i+1 < len(b); i++ {
				embed := b[i] == '!'
				s := i
				if embed {
					s++
				}
				if s+1 < len(b) && b[s] == '[' && b[s+1] == '[' {
					if e := p.wikilink(b, i, s, len(b), embed); e > 0 {
						p.note.Links[len(p.note.Links)-1].Frontmatter = true
						i = e - 1
					}
				}
			}
		}
		pos = end + 1
	}
}

// delimiterLine reports whether the line at pos is exactly delim (trailing
// spaces allowed) and returns the offset of the next line, or -1.
func delimiterLine(src []byte, pos int, delim string) int {
	if !bytes.HasPrefix(src[pos:], []byte(delim)) {
		return -1
	}
	i := pos + len(delim)
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	if i == len(src) {
		return i
	}
	if src[i] == '\n' {
		return i + 1
	}
	return -1
}

// readYAML decodes the frontmatter text, whose first line is line
// firstLine of the note: on the fast path when it can, with yaml.v3 when
// not.
func (p *parser) readYAML(text string, firstLine int) {
	if !p.fastYAML(text, firstLine) {
		p.slowYAML(text, firstLine)
	}
}

// fastYAML reads the frontmatter text without yaml.v3 and reports whether
// it could (see yamlfast.go); nothing is set when not.
func (p *parser) fastYAML(text string, firstLine int) (read bool) {
	y := &p.fy
	n := p.note
	defer func() {
		// A bug of the fast path must not cost the note: yaml.v3 reads it.
		if r := recover(); r != nil {
			n.Frontmatter, n.fmText, n.Tags, n.Aliases, read = nil, "", n.Tags[:0], nil, false
		}
		y.reset()
	}()
	ok, empty := y.tree(text)
	switch {
	case !ok:
		return false
	case empty:
		n.Frontmatter = map[string]any{}
		return true
	}
	n.Frontmatter = y.value(0, false).(map[string]any)
	n.fmText = text
	for k := 1; k < y.nodes[0].end; {
		key, v := &y.nodes[k], y.nodes[k].end
		k = y.nodes[v].end
		var each func(text string, line int)
		switch strings.ToLower(key.text) {
		case "tags", "tag":
			each = func(text string, line int) { p.frontmatterTags(text, line+firstLine-1) }
		case "aliases", "alias":
			scalar := y.nodes[v].kind == yScalar
			each = func(text string, _ int) { p.frontmatterAliases(text, scalar) }
		default:
			continue
		}
		// As eachScalar: the value if a scalar, or the scalar items of a
		// sequence; nulls left out.
		from, to := v, k
		if y.nodes[v].kind == ySeq {
			from = v + 1
		} else if y.nodes[v].kind != yScalar {
			continue
		}
		for i := from; i < to; i = y.nodes[i].end {
			if item := &y.nodes[i]; item.kind == yScalar && !item.null() {
				each(item.text, item.line)
			}
		}
	}
	return true
}

// slowYAML reads the frontmatter text with yaml.v3.
func (p *parser) slowYAML(text string, firstLine int) {
	n := p.note
	defer func() {
		// yaml.v3 has panicked on hostile input before; a note must still
		// parse.
		if r := recover(); r != nil {
			n.Frontmatter = nil
			n.FrontmatterErr = fmt.Errorf("frontmatter: %v", r)
		}
	}()
	var doc yaml.Node
	b := []byte(text)
	if err := yaml.Unmarshal(b, &doc); err != nil {
		n.FrontmatterErr = syntaxError(err, b, firstLine)
		return
	}
	if len(doc.Content) == 0 {
		n.Frontmatter = map[string]any{}
		return
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		n.FrontmatterErr = errNotMapping
		return
	}
	m := map[string]any{}
	if err := root.Decode(&m); err != nil {
		n.FrontmatterErr = fmt.Errorf("frontmatter: %w", err)
		var typeErr *yaml.TypeError
		if !errors.As(err, &typeErr) {
			m = nil
		}
	}
	n.Frontmatter = m
	if m != nil {
		n.props = root
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			continue
		}
		switch strings.ToLower(key.Value) {
		case "tags", "tag":
			eachScalar(value, func(v *yaml.Node) {
				p.frontmatterTags(v.Value, v.Line+firstLine-1)
			})
		case "aliases", "alias":
			eachScalar(value, func(v *yaml.Node) {
				p.frontmatterAliases(v.Value, value.Kind == yaml.ScalarNode)
			})
		}
	}
}

// frontmatterTags adds the tags of one value of the tags property, on
// the note's line line: a scalar may list several, split by commas or
// spaces.
func (p *parser) frontmatterTags(value string, line int) {
	for _, name := range strings.FieldsFunc(value, isListSeparator) {
		name = strings.TrimLeft(name, "#")
		if ValidTag(name) {
			p.note.Tags = append(p.note.Tags, Tag{Name: name, Line: line, Frontmatter: true})
		}
	}
}

// frontmatterAliases adds the aliases of one value of the aliases
// property: a scalar property (not a list item) may list several, split
// by commas.
func (p *parser) frontmatterAliases(value string, split bool) {
	names := []string{value}
	if split {
		names = strings.Split(value, ",")
	}
	for _, a := range names {
		if a = strings.TrimSpace(a); a != "" {
			p.note.Aliases = append(p.note.Aliases, a)
		}
	}
}

func isListSeparator(r rune) bool {
	return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
}

// eachScalar calls f for a non-null scalar, or for each such item of a
// sequence.
func eachScalar(v *yaml.Node, f func(*yaml.Node)) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag != "!!null" {
			f(v)
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind == yaml.ScalarNode && item.Tag != "!!null" {
				f(item)
			}
		}
	}
}
