package markdown

import (
	"go.yaml.in/yaml/v3"
)

// maxPropertyNodes bounds the YAML nodes Properties visits. Aliases make a
// small frontmatter expand into a huge tree ("billion laughs"); past the
// bound the rest of the tree is left out.
const maxPropertyNodes = 10000

// maxPropertyDepth bounds nesting, for the same reason.
const maxPropertyDepth = 64

// Properties returns the frontmatter with every scalar kept as written:
// Frontmatter reads `notation: 1.10` as the number 1.1 and `date:
// 2025-01-02` as a time, where a property's reader wants the text the user
// typed. Scalars are strings (without their quotes), null values are nil,
// sequences are []any and mappings are map[string]any. An unquoted
// `up: [[Note]]` is a nested sequence ([]any{[]any{"Note"}}), as YAML reads
// it. Aliases are followed and merge keys (<<) applied, within a bound on
// the nodes visited. nil when the note has no readable frontmatter.
//
// Each call builds a new map: the parse keeps the YAML tree, not this
// view of it, since most callers never ask.
func (n *Note) Properties() map[string]any {
	if n.props == nil && n.fmText != "" {
		// The fast path read this text once and reads it again, as
		// written this time.
		var y fastYAML
		if ok, empty := y.tree(n.fmText); ok && !empty {
			return y.value(0, true).(map[string]any)
		}
	}
	if n.props == nil {
		if n.Frontmatter != nil {
			return map[string]any{} // an empty block
		}
		return nil
	}
	budget := maxPropertyNodes
	m, _ := literal(n.props, &budget, 0).(map[string]any)
	return m
}

// literal converts a YAML node to the plain form Properties documents,
// spending one unit of budget per node visited.
func literal(v *yaml.Node, budget *int, depth int) any {
	if v == nil || *budget <= 0 || depth > maxPropertyDepth {
		return nil
	}
	*budget--
	switch v.Kind {
	case yaml.DocumentNode:
		if len(v.Content) == 0 {
			return nil
		}
		return literal(v.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return literal(v.Alias, budget, depth+1)
	case yaml.ScalarNode:
		if v.ShortTag() == "!!null" {
			return nil
		}
		return v.Value
	case yaml.SequenceNode:
		out := make([]any, 0, len(v.Content))
		for _, item := range v.Content {
			if *budget <= 0 {
				break
			}
			out = append(out, literal(item, budget, depth+1))
		}
		return out
	case yaml.MappingNode:
		out := make(map[string]any, len(v.Content)/2)
		mergeInto(out, v, budget, depth)
		return out
	}
	return nil
}

// mergeInto adds a mapping's entries to out. Keys written in the mapping
// win over those merged in with <<, as in YAML; the first of duplicate
// keys is kept.
func mergeInto(out map[string]any, v *yaml.Node, budget *int, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(v.Content) && *budget > 0; i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			merges = append(merges, val)
			continue
		}
		if _, dup := out[k.Value]; dup {
			continue
		}
		out[k.Value] = literal(val, budget, depth+1)
	}
	for _, m := range merges {
		for *budget > 0 && m != nil && m.Kind == yaml.AliasNode {
			*budget--
			m = m.Alias
		}
		if m == nil || depth > maxPropertyDepth {
			continue
		}
		var sources []*yaml.Node
		switch m.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{m}
		case yaml.SequenceNode:
			for _, s := range m.Content {
				for *budget > 0 && s != nil && s.Kind == yaml.AliasNode {
					*budget--
					s = s.Alias
				}
				if s != nil && s.Kind == yaml.MappingNode {
					sources = append(sources, s)
				}
			}
		}
		for _, s := range sources {
			extra := make(map[string]any)
			mergeInto(extra, s, budget, depth+1)
			for k, val := range extra {
				if _, ok := out[k]; !ok {
					out[k] = val
				}
			}
		}
	}
}
