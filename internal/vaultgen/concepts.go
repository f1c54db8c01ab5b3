package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Concept notes: concept k is note k*step (step = Notes/Concepts), so the
// rest of the vault links to it as to any note. The concepts form a tree
// of fan-out 4 by broader (concept k's parent is (k-1)/4), with an
// explicit narrower list now and then, two related concepts each, a
// prerequisite for one in ten and a target that names nothing for one in
// fifty. Every relation form the extractor reads turns up: quoted and
// unquoted wikilinks, aliases, paths, ids, labels, lists and
// comma-separated strings, skos: keys.

// conceptIndex reports whether note i of n is a concept note, and which.
func conceptIndex(i, n, concepts int) (int, bool) {
	if concepts <= 0 {
		return 0, false
	}
	step := max(1, n/concepts)
	if i%step != 0 || i/step >= concepts {
		return 0, false
	}
	return i / step, true
}

// ConceptNote returns the note index of concept k in a vault of n notes
// with the given number of concepts.
func ConceptNote(k, n, concepts int) int { return k * max(1, n/concepts) }

// ConceptID is the concept id of concept k (its note's name in id form).
func ConceptID(k, n, concepts int) string {
	return strings.ToLower(strings.ReplaceAll(Name(ConceptNote(k, n, concepts)), " ", "_"))
}

// ConceptLabel is the prefLabel of concept k.
func ConceptLabel(k int) string {
	r := rand.New(rand.NewPCG(uint64(k), 0xc0ffee))
	return fmt.Sprintf("%s %s %d", title(words[r.IntN(len(words))]), title(words[r.IntN(len(words))]), k)
}

func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// withConcept adds concept k's properties to a note's frontmatter.
func withConcept(content string, k, n int, opts Options) string {
	concepts := opts.Concepts
	r := rand.New(rand.NewPCG(opts.Seed^uint64(k), 0x5eed))
	ref := func(j, form int) string {
		note := ConceptNote(j, n, concepts)
		switch form % 6 {
		case 0:
			return `"[[` + Name(note) + `]]"`
		case 1:
			return "[[" + Name(note) + "]]" // unquoted: a nested YAML list
		case 2:
			return ConceptID(j, n, concepts)
		case 3:
			return ConceptLabel(j)
		case 4:
			return `"[[` + strings.TrimSuffix(Path(note), ".md") + `]]"`
		}
		return `"[[` + Name(note) + `|` + ConceptLabel(j) + `]]"`
	}
	var b strings.Builder
	key := "prefLabel"
	if opts.ConceptsInert {
		key = "xrefLabel"
	}
	fmt.Fprintf(&b, "%s: %s\n", key, ConceptLabel(k))
	fmt.Fprintf(&b, "altLabel: [%s %d]\n", words[r.IntN(len(words))], k)
	b.WriteString("definition:")
	for w := 0; w < 8+r.IntN(8); w++ {
		b.WriteString(" " + words[r.IntN(len(words))])
	}
	fmt.Fprintf(&b, "\nnotation: C.%d\n", k)
	if k > 0 {
		key := "broader"
		if k%6 == 5 {
			key = "skos:broader"
		}
		fmt.Fprintf(&b, "%s: %s\n", key, ref((k-1)/4, k))
	}
	if k%7 == 0 {
		var kids []string
		for c := 4*k + 1; c <= 4*k+4 && c < concepts; c++ {
			kids = append(kids, ConceptID(c, n, concepts))
		}
		if len(kids) > 0 {
			fmt.Fprintf(&b, "narrower: %q\n", strings.Join(kids, ", "))
		}
	}
	a, c := r.IntN(concepts), r.IntN(concepts)
	if k%3 == 0 {
		fmt.Fprintf(&b, "related:\n  - %s\n  - %s\n", ref(a, k+1), ref(c, k+2))
	} else {
		rel := []string{strings.Trim(ref(a, 0), `"`), strings.Trim(ref(c, 2), `"`)}
		if k%50 == 0 {
			rel = append(rel, fmt.Sprintf("[[Missing Concept %d]]", k))
		}
		fmt.Fprintf(&b, "related: %q\n", strings.Join(rel, ", "))
	}
	if k%10 == 0 {
		fmt.Fprintf(&b, "prerequisite: %s\n", ref(r.IntN(concepts), k+3))
	}
	if k%4 == 0 {
		fmt.Fprintf(&b, "schema:\n  type: DefinedTerm\n  about: [%s, %s]\n", words[r.IntN(len(words))], words[r.IntN(len(words))])
	}
	return strings.Replace(content, "---\n", "---\n"+b.String(), 1)
}
