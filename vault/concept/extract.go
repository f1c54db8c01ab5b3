package concept

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// key is a frontmatter key as Extract compares it: lower case, without a
// "skos:" or "schema:" prefix or the '@' of JSON-LD's "@type".
func key(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	if rest, ok := strings.CutPrefix(k, "skos:"); ok {
		k = rest
	} else if rest, ok := strings.CutPrefix(k, "schema:"); ok {
		k = rest
	}
	return strings.TrimPrefix(k, "@")
}

// IsConcept reports whether a note's frontmatter, with its keys as
// written, makes the note a concept: it has a prefLabel property (even an
// empty one).
func IsConcept(frontmatter map[string]any) bool {
	for k := range frontmatter {
		if key(k) == "preflabel" {
			return true
		}
	}
	return false
}

// Extract reads a concept from a note's frontmatter properties, with every
// scalar as written (as markdown.Note.Properties gives them): strings,
// nil, []any and map[string]any. name is the note's name, the label when
// prefLabel is empty. It returns nil when the note is not a concept.
//
// Values of the wrong shape (a mapping where a label belongs, say) are
// left out; relation targets are kept exactly as written, for the caller
// to resolve and to report when they lead nowhere.
func Extract(props map[string]any, name string) *Concept {
	if !IsConcept(props) {
		return nil
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	// The same property may be written twice ("broader" and
	// "skos:broader"): lists are joined and the first scalar wins, in an
	// order that does not depend on the map's.
	slices.Sort(keys)
	c := &Concept{}
	for _, k := range keys {
		v := props[k]
		switch f := key(k); f {
		case "preflabel":
			if c.PrefLabel == "" {
				c.PrefLabel = first(v)
			}
		case "altlabel":
			c.AltLabels = append(c.AltLabels, labels(v)...)
		case "definition":
			if c.Definition == "" {
				c.Definition = strings.Join(scalars(v), "\n")
			}
		case "notation":
			if c.Notation == "" {
				c.Notation = first(v)
			}
		case "inscheme":
			c.InScheme = append(c.InScheme, targets(v)...)
		case "broader", "narrower", "related", "prerequisite":
			r, _ := ParseRelation(f)
			c.Relations[r] = append(c.Relations[r], refs(v)...)
		case "schema":
			if m, ok := v.(map[string]any); ok {
				inner := make([]string, 0, len(m))
				for ik := range m {
					inner = append(inner, ik)
				}
				slices.Sort(inner)
				for _, ik := range inner {
					c.Schema.set(key(ik), m[ik])
				}
			}
		default:
			c.Schema.set(f, v)
		}
	}
	if c.PrefLabel == "" {
		c.PrefLabel = strings.TrimSpace(name)
	}
	c.AltLabels, c.InScheme = unique(c.AltLabels), unique(c.InScheme)
	c.Schema.About, c.Schema.Teaches = unique(c.Schema.About), unique(c.Schema.Teaches)
	for r := range c.Relations {
		c.Relations[r] = uniqueRefs(c.Relations[r])
	}
	c.label = Fold(c.PrefLabel)
	c.definition = Fold(c.Definition)
	c.alts = make([]string, len(c.AltLabels))
	for i, a := range c.AltLabels {
		c.alts[i] = Fold(a)
	}
	c.mask = wordMask(append([]string{c.label, c.definition, Fold(c.Notation)}, c.alts...)...)
	return c
}

// set fills the Schema.org property f (a key as key() gives it), unless
// it is set already; other keys are not Schema.org properties.
func (s *Schema) set(f string, v any) {
	switch f {
	case "type":
		if s.Type == "" {
			s.Type = strings.Join(scalars(v), ", ")
		}
	case "about":
		s.About = append(s.About, targets(v)...)
	case "teaches":
		s.Teaches = append(s.Teaches, targets(v)...)
	case "educationallevel":
		if s.EducationalLevel == "" {
			s.EducationalLevel = first(v)
		}
	case "learningresourcetype":
		if s.LearningResourceType == "" {
			s.LearningResourceType = first(v)
		}
	}
}

// scalars returns the non-empty strings in v: v itself, or the items of a
// list (nested lists flattened), trimmed. Mappings are left out.
func scalars(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if s := strings.TrimSpace(v); s != "" {
				out = append(out, s)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// first is the first of scalars(v), or "".
func first(v any) string {
	if s := scalars(v); len(s) > 0 {
		return s[0]
	}
	return ""
}

// labels reads a label list: a list, or one string of comma-separated
// labels, as Obsidian reads aliases.
func labels(v any) []string {
	if s, ok := v.(string); ok {
		var out []string
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		return out
	}
	return scalars(v)
}

// targets is refs(v) reduced to their targets.
func targets(v any) []string {
	rs := refs(v)
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Target
	}
	return out
}

// refs reads a relation's value: one string (comma-separated targets), or
// a list of targets, where an unquoted [[wikilink]] is a nested list.
func refs(v any) []Ref {
	var out []Ref
	switch v := v.(type) {
	case string:
		out = splitRefs(v)
	case []any:
		for _, item := range v {
			listRefs(item, 1, &out)
		}
	}
	return out
}

// listRefs collects the targets of a list item at the given nesting
// depth. A string inside a nested list is what YAML makes of an unquoted
// wikilink: `broader: [[A]]` is a list holding the list ["A"].
func listRefs(v any, depth int, out *[]Ref) {
	switch v := v.(type) {
	case string:
		s := strings.TrimSpace(v)
		if depth >= 2 && !strings.HasPrefix(s, "[[") {
			if r, ok := ParseRef("[[" + s + "]]"); ok {
				*out = append(*out, r)
			}
			return
		}
		*out = append(*out, wikilinksOr(s)...)
	case []any:
		for _, x := range v {
			listRefs(x, depth+1, out)
		}
	}
}

// splitRefs reads a string of comma-separated targets. Commas inside
// brackets or parentheses ([[A, B|x]], k-NN (a, b)) do not separate.
func splitRefs(s string) []Ref {
	var out []Ref
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, wikilinksOr(s[start:i])...)
				start = i + 1
			}
		}
	}
	return append(out, wikilinksOr(s[start:])...)
}

// wikilinksOr reads one target, or every wikilink in s when s holds more
// than one ("[[A]] [[B]]").
func wikilinksOr(s string) []Ref {
	s = strings.TrimSpace(s)
	if strings.Count(s, "[[") <= 1 {
		if r, ok := ParseRef(s); ok {
			return []Ref{r}
		}
		return nil
	}
	var out []Ref
	for {
		i := strings.Index(s, "[[")
		if i < 0 {
			return out
		}
		j := strings.Index(s[i+2:], "]]")
		if j < 0 {
			return out
		}
		if r, ok := ParseRef(s[i : i+2+j+2]); ok {
			out = append(out, r)
		}
		s = s[i+2+j+2:]
	}
}

// ParseRef reads one relation target as written: a wikilink ("[[Note]]",
// "[[folder/Note|alias]]", "[[Note#Heading]]", "![[Note]]"), a Markdown
// link ("[text](folder/Note%20Name.md)", "[text](<Note Name.md>)"), or a
// plain name, path or id. ok is false when nothing is named.
func ParseRef(s string) (Ref, bool) {
	raw := strings.TrimSpace(s)
	t := strings.TrimPrefix(raw, "!")
	switch {
	case strings.HasPrefix(t, "[[") && strings.HasSuffix(t, "]]") && len(t) >= 4:
		t = t[2 : len(t)-2]
		if i := strings.IndexByte(t, '|'); i >= 0 {
			t = strings.TrimSuffix(t[:i], `\`) // [[A\|alias]] in a table
		}
		if i := strings.IndexByte(t, '#'); i >= 0 {
			t = t[:i]
		}
	case strings.HasPrefix(t, "[") && strings.HasSuffix(t, ")") && strings.Contains(t, "]("):
		dest := t[strings.Index(t, "](")+2 : len(t)-1]
		dest = strings.TrimSpace(dest)
		if strings.HasPrefix(dest, "<") && strings.HasSuffix(dest, ">") {
			dest = dest[1 : len(dest)-1]
		} else if u, err := url.PathUnescape(dest); err == nil {
			dest = u
		}
		if i := strings.IndexByte(dest, '#'); i >= 0 {
			dest = dest[:i]
		}
		t = dest
	default:
		t = raw
	}
	t = strings.TrimSpace(t)
	if t == "" || t == "." || path.Clean(t) == "/" {
		return Ref{}, false
	}
	return Ref{Raw: raw, Target: t}, true
}

// uniqueRefs drops the refs whose target (folded) came before.
func uniqueRefs(list []Ref) []Ref {
	if len(list) < 2 {
		return list
	}
	seen := make(map[string]bool, len(list))
	return slices.DeleteFunc(list, func(r Ref) bool {
		f := Fold(r.Target)
		if seen[f] {
			return true
		}
		seen[f] = true
		return false
	})
}

// unique drops the strings (folded) that came before.
func unique(list []string) []string {
	if len(list) < 2 {
		return list
	}
	seen := make(map[string]bool, len(list))
	return slices.DeleteFunc(list, func(s string) bool {
		f := Fold(s)
		if seen[f] {
			return true
		}
		seen[f] = true
		return false
	})
}
