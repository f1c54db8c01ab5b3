package index

import (
	"bytes"
	"path"
	"strings"

	"vaultmcp/vault/concept"
	"vaultmcp/vault/markdown"
)

// document is what the index keeps of a parsed note: the parser's full
// result holds more (headings, offsets) than queries need in memory.
type document struct {
	links   []docLink
	tags    []string // as spelled, without '#'
	tagKeys []string // key(tags[i]), folded once at parse time
	props   []Property

	concept *concept.Concept // nil unless the note is a concept
	body    int              // where the body starts, after the frontmatter
}

// docLink is one link of a note.
type docLink struct {
	raw    string // as written, for get_backlinks' "links" field
	target string // path or name part; "" links to the note itself
	bucket string // linkKey(target), "" for a link to the note itself
	line   int32  // 1-based line the link is on, for get_backlinks
	// exact: the target is a vault path, resolved as exactly that file
	// (a canvas's file node), not as a link's name.
	exact bool
}

// parse extracts a document from the bytes of the note at rel, and says
// whether its frontmatter could not be read. Keys are folded and concepts
// extracted here, on the parallel part of a build, not under the index's
// lock. The parser's result goes into md when it is not nil (a build's
// worker parses every note into the same one), else into a new one:
// nothing of it is kept but strings. Keys come from keys when it is not
// nil (a build's worker's), else each is folded into a string of its own.
func parse(rel string, content []byte, md *markdown.Note, keys keyCache) (document, bool) {
	n := md
	if n == nil {
		n = new(markdown.Note)
	}
	markdown.ParseSharedInto(n, content)
	d := document{
		links:   make([]docLink, len(n.Links)),
		tags:    make([]string, len(n.Tags)),
		tagKeys: make([]string, len(n.Tags)),
		props:   properties(n.Frontmatter, content[:n.BodyOffset]),
		body:    n.BodyOffset,
	}
	if concept.IsConcept(n.Frontmatter) {
		name := path.Base(rel)
		d.concept = concept.Extract(n.Properties(), strings.TrimSuffix(name, path.Ext(name)))
	}
	// The parser's strings slice content itself (ParseShared), which the
	// note keeps unmodified: what is kept of them costs no copy.
	for i, l := range n.Links {
		d.links[i] = docLink{raw: l.Raw, target: l.Target, line: int32(l.Line)}
		if l.Target != "" {
			d.links[i].bucket = keys.linkKey(l.Target)
		}
	}
	for i, t := range n.Tags {
		d.tags[i] = t.Name
		d.tagKeys[i] = keys.key(t.Name)
	}
	return d, n.FrontmatterErr != nil && n.Frontmatter == nil
}

// rawLinks returns the note's links as written, deduplicated, in order.
func (d document) rawLinks() []string {
	out := make([]string, 0, len(d.links))
	seen := make(map[string]bool, len(d.links))
	for _, l := range d.links {
		if !seen[l.raw] {
			seen[l.raw] = true
			out = append(out, l.raw)
		}
	}
	return out
}

// keyCache holds the keys one build worker has folded (link buckets and
// tag keys), each under itself. Most links of a vault point to a few
// thousand names, most tags are a few dozen words: folded one string per
// link or tag, they were a tenth of a build's allocations, all but the
// first copy of each garbage by the end of the build (the vault-wide maps
// keep one). A key is folded into a buffer on the stack and looked up;
// only a key not met before becomes a string. The nil cache folds each
// key into a string of its own.
type keyCache map[string]string

// linkKey is linkKey(target), from the cache.
func (c keyCache) linkKey(target string) string {
	if c == nil {
		return linkKey(target)
	}
	var buf [96]byte
	k := appendKey(buf[:0], path.Base(target))
	return c.intern(bytes.TrimSuffix(k, []byte(".md")))
}

// key is key(s), from the cache.
func (c keyCache) key(s string) string {
	if c == nil {
		return key(s)
	}
	var buf [96]byte
	return c.intern(appendKey(buf[:0], s))
}

func (c keyCache) intern(k []byte) string {
	if s, ok := c[string(k)]; ok {
		return s
	}
	s := string(k)
	c[s] = s
	return s
}
