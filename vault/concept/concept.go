package concept

import (
	"path"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Relation is a kind of edge between two concepts.
type Relation uint8

// The relations a concept note declares, and the one the graph adds.
const (
	// Broader points at a more general concept; its inverse is Narrower.
	Broader Relation = iota
	// Narrower points at a more specific concept; its inverse is Broader.
	Narrower
	// Related is symmetric: a related b makes b related a.
	Related
	// Prerequisite points at a concept to learn first. It is one-way: the
	// graph keeps the inverse only as PrerequisiteOf, for paths.
	Prerequisite
	// PrerequisiteOf is Prerequisite seen from its target. Notes do not
	// declare it; the graph derives it.
	PrerequisiteOf

	// NumRelations is the number of relations, for arrays indexed by
	// Relation.
	NumRelations
)

// Declared are the relations a note can declare, in the order answers
// list them.
var Declared = []Relation{Broader, Narrower, Related, Prerequisite}

// Hierarchy are the relations expand_context follows unless told
// otherwise: SKOS's broader, narrower and related.
var Hierarchy = []Relation{Broader, Narrower, Related}

var relationNames = [NumRelations]string{"broader", "narrower", "related", "prerequisite", "prerequisite_of"}

// String is the relation's name in answers ("broader").
func (r Relation) String() string {
	if r < NumRelations {
		return relationNames[r]
	}
	return "unknown"
}

// Inverse is the relation seen from the other end: Broader for Narrower,
// Related for Related, PrerequisiteOf for Prerequisite.
func (r Relation) Inverse() Relation {
	switch r {
	case Broader:
		return Narrower
	case Narrower:
		return Broader
	case Prerequisite:
		return PrerequisiteOf
	case PrerequisiteOf:
		return Prerequisite
	}
	return r
}

// ParseRelation reads a declared relation's name, case-insensitively.
func ParseRelation(s string) (Relation, bool) {
	for _, r := range Declared {
		if strings.EqualFold(s, relationNames[r]) {
			return r, true
		}
	}
	return 0, false
}

// Concept is what one concept note's frontmatter says.
type Concept struct {
	// PrefLabel is the preferred label; the note's name when the property
	// is empty.
	PrefLabel string
	// AltLabels are the alternative labels (altLabel), in order.
	AltLabels []string
	// Definition is the definition, as written.
	Definition string
	// Notation is the notation (a code such as "ML.REG.001"), as written.
	Notation string
	// InScheme names the concept schemes the concept belongs to, as
	// written (wikilink brackets removed).
	InScheme []string
	// Relations are the declared edges by relation, targets as written;
	// PrerequisiteOf is always empty.
	Relations [NumRelations][]Ref
	// Schema holds the Schema.org properties.
	Schema Schema

	// Folded forms for Query, computed once at extraction.
	label, definition string
	alts              []string
	mask              uint64 // wordMask of the labels, notation and definition
}

// Ref is one relation target as written in the frontmatter.
type Ref struct {
	// Raw is the value as written ("[[Supervised Learning|SL]]"); an
	// unquoted wikilink, which YAML splits into lists, is put back as
	// "[[…]]".
	Raw string
	// Target is the name, path or id it points at, without brackets,
	// alias or heading ("Supervised Learning").
	Target string
}

// Schema holds a concept's Schema.org properties.
type Schema struct {
	Type                 string   // type or @type
	About                []string // what the concept is about
	Teaches              []string // what it teaches
	EducationalLevel     string   // e.g. "graduate"
	LearningResourceType string   // e.g. "lecture"
}

// IsZero reports whether no Schema.org property is set.
func (s Schema) IsZero() bool {
	return s.Type == "" && len(s.About) == 0 && len(s.Teaches) == 0 && s.EducationalLevel == "" && s.LearningResourceType == ""
}

// ID is the id of the concept note at the vault path rel: its file name
// without ".md", lowercased, with spaces and '-' turned into '_'
// ("concepts/Gradient-Descent Method.md" is "gradient_descent_method").
// Any other character is kept.
func ID(rel string) string {
	base := path.Base(rel)
	if len(base) > 3 && strings.EqualFold(base[len(base)-3:], ".md") {
		base = base[:len(base)-3]
	}
	return idOf(base)
}

// idOf turns a name into id form.
func idOf(name string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return '_'
		}
		return r
	}, Fold(name))
}

// IDOf is the id a name would have as a file name ("Supervised Learning"
// is "supervised_learning"), for lookups that accept a name where an id
// is expected.
func IDOf(name string) string { return idOf(strings.TrimSpace(name)) }

// URI is the concept's URI, vault://concepts#<id>.
func URI(id string) string { return "vault://concepts#" + id }

// Fold is the form names and labels are compared in: lower case, Unicode
// NFC (a label typed on one system finds a file named on another).
func Fold(s string) string {
	return strings.ToLower(norm.NFC.String(s))
}
