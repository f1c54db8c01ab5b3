package concept_test

import (
	"reflect"
	"testing"

	"vaultmcp/vault/concept"
	"vaultmcp/vault/markdown"
)

// extract parses a note's frontmatter the way the index does.
func extract(t testing.TB, fm string) *concept.Concept {
	t.Helper()
	n := markdown.Parse([]byte("---\n" + fm + "\n---\n# Body\n"))
	if !concept.IsConcept(n.Frontmatter) {
		return nil
	}
	return concept.Extract(n.Properties(), "Note Name")
}

// targets lists a relation's targets.
func targets(c *concept.Concept, r concept.Relation) []string {
	var out []string
	for _, ref := range c.Relations[r] {
		out = append(out, ref.Target)
	}
	return out
}

func TestExtractRelationForms(t *testing.T) {
	tests := []struct {
		name string
		fm   string
		want []string
		raw  []string // Raw of each ref, when checked
	}{
		{"quoted wikilink", `broader: "[[Supervised Learning]]"`, []string{"Supervised Learning"}, []string{"[[Supervised Learning]]"}},
		{"unquoted wikilink (a nested YAML list)", `broader: [[Supervised Learning]]`, []string{"Supervised Learning"}, []string{"[[Supervised Learning]]"}},
		{"unquoted wikilinks in a block list", "broader:\n  - [[A]]\n  - [[B|bee]]", []string{"A", "B"}, []string{"[[A]]", "[[B|bee]]"}},
		{"unquoted wikilink with alias and heading", `broader: [[folder/A#Part|the a]]`, []string{"folder/A"}, nil},
		{"plain name", `broader: Supervised Learning`, []string{"Supervised Learning"}, nil},
		{"id", `broader: supervised_learning`, []string{"supervised_learning"}, nil},
		{"flow list of names", `broader: [a, b]`, []string{"a", "b"}, nil},
		{"block list of quoted wikilinks", "broader:\n  - \"[[A]]\"\n  - '[[B]]'", []string{"A", "B"}, nil},
		{"comma-separated string", `broader: "a, [[B|x, y]], c"`, []string{"a", "B", "c"}, nil},
		{"comma-separated wikilinks", `related: "[[A]], [[B]]"`, []string{"A", "B"}, nil},
		{"several wikilinks in one string", `related: "[[A]] [[B]]"`, []string{"A", "B"}, nil},
		{"list item is never split on commas", "related:\n  - \"Smith, John\"", []string{"Smith, John"}, nil},
		{"parentheses keep commas", `related: "k-NN (a, b), c"`, []string{"k-NN (a, b)", "c"}, nil},
		{"markdown link", `related: "[SL](concepts/Supervised%20Learning.md)"`, []string{"concepts/Supervised Learning.md"}, nil},
		{"markdown link in angle brackets", `related: "[SL](<concepts/Supervised Learning.md>)"`, []string{"concepts/Supervised Learning.md"}, nil},
		{"embed", `related: "![[A]]"`, []string{"A"}, nil},
		{"escaped pipe", `related: "[[A\\|x]]"`, []string{"A"}, nil},
		{"duplicates dropped, first spelling kept", `related: "[[A]], a, [[a|x]]"`, []string{"A"}, nil},
		{"skos prefix joins the plain key", "related: a\nskos:related: b", []string{"a", "b"}, nil},
		{"empty and null values", "related:\n  -\n  - \"\"\n  - \"[[]]\"", nil, nil},
		{"mapping value is no target", "related: {a: b}", nil, nil},
		{"number", "related: 42", []string{"42"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := extract(t, "prefLabel: X\n"+tc.fm)
			if c == nil {
				t.Fatal("not a concept")
			}
			r := concept.Broader
			if len(c.Relations[r]) == 0 {
				r = concept.Related
			}
			if got := targets(c, r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("targets = %q, want %q", got, tc.want)
			}
			if tc.raw != nil {
				var raw []string
				for _, ref := range c.Relations[r] {
					raw = append(raw, ref.Raw)
				}
				if !reflect.DeepEqual(raw, tc.raw) {
					t.Errorf("raw = %q, want %q", raw, tc.raw)
				}
			}
		})
	}
}

func TestExtractFields(t *testing.T) {
	c := extract(t, `skos:prefLabel: Regression Analysis
skos:altLabel: [Regression, Regression model]
Definition: >
  Statistical method for modeling
  relationships between variables
notation: 1.10
inScheme: "[[ML Taxonomy]]"
broader: [[supervised_learning]]
narrower: "[[Linear Regression]], logistic_regression"
related: [correlation, prediction]
prerequisite: "[[Statistics]]"
"@type": EducationalMaterial
schema:about: [statistics, "[[prediction]]"]
teaches: least squares, model fitting
schema:
  educationalLevel: graduate
  learningResourceType: lecture
  type: Ignored because @type came first
tags: [ml]`)
	if c == nil {
		t.Fatal("not a concept")
	}
	type fields struct {
		PrefLabel, Definition, Notation string
		AltLabels, InScheme             []string
		Schema                          concept.Schema
	}
	got := fields{c.PrefLabel, c.Definition, c.Notation, c.AltLabels, c.InScheme, c.Schema}
	want := fields{
		PrefLabel:  "Regression Analysis",
		Definition: "Statistical method for modeling relationships between variables",
		Notation:   "1.10",
		AltLabels:  []string{"Regression", "Regression model"},
		InScheme:   []string{"ML Taxonomy"},
		Schema: concept.Schema{
			Type:                 "EducationalMaterial",
			About:                []string{"statistics", "prediction"},
			Teaches:              []string{"least squares", "model fitting"},
			EducationalLevel:     "graduate",
			LearningResourceType: "lecture",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	rels := map[concept.Relation][]string{
		concept.Broader:      {"supervised_learning"},
		concept.Narrower:     {"Linear Regression", "logistic_regression"},
		concept.Related:      {"correlation", "prediction"},
		concept.Prerequisite: {"Statistics"},
	}
	for r, w := range rels {
		if g := targets(c, r); !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %q, want %q", r, g, w)
		}
	}
}

func TestIsConcept(t *testing.T) {
	tests := []struct {
		fm   string
		want bool
	}{
		{"prefLabel: A", true},
		{"skos:prefLabel: A", true},
		{"PREFLABEL: A", true},
		{"prefLabel:", true}, // empty: the note's name is the label
		{"title: A\nbroader: b", false},
		{"preflabels: A", false},
	}
	for _, tc := range tests {
		c := extract(t, tc.fm)
		if (c != nil) != tc.want {
			t.Errorf("%q: concept = %v, want %v", tc.fm, c != nil, tc.want)
		}
		if c != nil && tc.fm == "prefLabel:" && c.PrefLabel != "Note Name" {
			t.Errorf("empty prefLabel: label %q, want the note's name", c.PrefLabel)
		}
	}
	// A frontmatter YAML cannot read is no concept (Obsidian shows no
	// properties either).
	n := markdown.Parse([]byte("---\nprefLabel: A\nbroader: [[A]], [[B]]\n---\n"))
	if concept.IsConcept(n.Frontmatter) {
		t.Error("unreadable frontmatter made a concept")
	}
}

func TestID(t *testing.T) {
	tests := map[string]string{
		"concepts/regression.md":                   "regression",
		"concepts/Gradient-Descent Method.md":      "gradient_descent_method",
		"Régularisation.MD":                        "régularisation",
		"k-NN (k.Nearest Neighbors).md":            "k_nn_(k.nearest_neighbors)",
		"e\u0301tude.md":                           "\u00e9tude", // NFD file name, NFC id
		"deep/er/Support Vector Machine.md":        "support_vector_machine",
		"notes.md.md":                              "notes.md",
		"Machine_Learning.md":                      "machine_learning",
		"UPPER CASE.md":                            "upper_case",
		"x.txt":                                    "x.txt",
		"concepts/Convolutional Neural Network.md": "convolutional_neural_network",
	}
	for rel, want := range tests {
		if got := concept.ID(rel); got != want {
			t.Errorf("ID(%q) = %q, want %q", rel, got, want)
		}
	}
	if got := concept.URI("regression"); got != "vault://concepts#regression" {
		t.Errorf("URI = %q", got)
	}
}
