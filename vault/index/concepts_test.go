package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/concept"
)

// graphOf describes the live concept graph: for each concept, its id and
// label, its neighbours by relation (as ids) and its unresolved targets;
// plus the stats. Two indexes over the same files must describe alike.
func graphOf(t *testing.T, ix *Index) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := ix.Concepts(ctx, func(v *ConceptView) error {
		for rel := range v.g.nodes {
			c, _ := v.Note(rel)
			var b strings.Builder
			fmt.Fprintf(&b, "id=%s label=%q", c.ID, c.PrefLabel)
			for r := range concept.NumRelations {
				if nb := v.Neighbors(rel, r); len(nb) > 0 {
					fmt.Fprintf(&b, " %s=%v", r, nb)
				}
			}
			for _, u := range v.Unresolved(rel) {
				fmt.Fprintf(&b, " unresolved:%s=%s", u.Relation, u.Raw)
			}
			out[rel] = b.String()
		}
		out["<stats>"] = fmt.Sprintf("%+v", v.Stats())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// neighbors returns rel's neighbours of relation r as ids.
func neighbors(t *testing.T, ix *Index, rel string, r concept.Relation) []string {
	t.Helper()
	var out []string
	err := ix.Concepts(ctx, func(v *ConceptView) error {
		for _, nb := range v.Neighbors(rel, r) {
			c, _ := v.Note(nb)
			out = append(out, c.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func lookup(t *testing.T, ix *Index, name string) []string {
	t.Helper()
	var out []string
	if err := ix.Concepts(ctx, func(v *ConceptView) error { out = v.Lookup(name); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConceptResolution(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"ml/Machine Learning.md":    "---\nprefLabel: Machine Learning\naltLabel: [ML]\n---\n",
		"ml/Supervised Learning.md": "---\nprefLabel: Supervised Learning\nbroader: [[Machine Learning]]\n---\n",
		"ml/regression.md": "---\nprefLabel: Regression Analysis\n" +
			"broader: supervised_learning\n" + // an id
			"narrower: \"[[Linear Regression|linear]], Logistic\"\n" + // a wikilink and an altLabel
			"related: [Correlation Coefficient, ml/missing, Statistics, ML]\n" + // a label, nothing, a plain note, an altLabel
			"---\n# Regression\n",
		"ml/linear/Linear Regression.md": "---\nprefLabel: Linear Regression\n---\n",
		"ml/logit.md":                    "---\nprefLabel: Logistic Regression\naltLabel: Logistic\n---\n",
		"stats/corr.md":                  "---\nprefLabel: Correlation Coefficient\n---\n",
		"Statistics.md":                  "# Not a concept\n",
	})
	want := map[concept.Relation][]string{
		concept.Broader:  {"supervised_learning"},
		concept.Narrower: {"linear_regression", "logit"},
		concept.Related:  {"corr", "machine_learning"},
	}
	for r, w := range want {
		if got := neighbors(t, ix, "ml/regression.md", r); !reflect.DeepEqual(got, w) {
			t.Errorf("regression %s = %v, want %v", r, got, w)
		}
	}
	// Inverse edges.
	if got := neighbors(t, ix, "ml/Machine Learning.md", concept.Narrower); !reflect.DeepEqual(got, []string{"supervised_learning"}) {
		t.Errorf("machine learning narrower = %v", got)
	}
	if got := neighbors(t, ix, "ml/Machine Learning.md", concept.Related); !reflect.DeepEqual(got, []string{"regression"}) {
		t.Errorf("related is symmetric: %v", got)
	}
	if got := neighbors(t, ix, "ml/logit.md", concept.Broader); !reflect.DeepEqual(got, []string{"regression"}) {
		t.Errorf("logit broader = %v", got)
	}
	g := graphOf(t, ix)
	if !strings.Contains(g["ml/regression.md"], "unresolved:related=ml/missing unresolved:related=Statistics") {
		t.Errorf("unresolved targets not reported: %s", g["ml/regression.md"])
	}
	if !strings.Contains(g["<stats>"], "Concepts:6 Relations:6 Broader:4 Related:2 Prerequisite:0 Unresolved:2") {
		t.Errorf("stats = %s", g["<stats>"])
	}
}

func TestConceptLookup(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"concepts/regression.md":       "---\nprefLabel: Regression Analysis\naltLabel: [Regression model]\n---\n",
		"concepts/Neural Network.md":   "---\nprefLabel: NN\n---\n",
		"concepts/ensemble.md":         "---\nprefLabel: Ensemble Methods\n---\n",
		"archive/Ensemble.md":          "---\nprefLabel: Old Ensemble\n---\n",
		"concepts/Régularisation.md":   "---\nprefLabel: Regularisation\naltLabel: Shared\n---\n",
		"concepts/other.md":            "---\nprefLabel: Other\naltLabel: Shared\n---\n",
		"concepts/k-NN (k.Nearest).md": "---\nprefLabel: k nearest neighbours\n---\n",
		"plain.md":                     "no concept",
	})
	tests := []struct {
		name string
		want []string
	}{
		{"regression", []string{"concepts/regression.md"}},                      // id
		{"  REGRESSION ", []string{"concepts/regression.md"}},                   // id, any case
		{"regression analysis", []string{"concepts/regression.md"}},             // prefLabel
		{"Regression Model", []string{"concepts/regression.md"}},                // altLabel
		{"concepts/regression.md", []string{"concepts/regression.md"}},          // path
		{"concepts/regression", []string{"concepts/regression.md"}},             // path without .md
		{"[[regression|r]]", []string{"concepts/regression.md"}},                // wikilink
		{"Neural Network", []string{"concepts/Neural Network.md"}},              // the file name, as a link
		{"neural-network", []string{"concepts/Neural Network.md"}},              // the file name in id form
		{"ensemble", []string{"archive/Ensemble.md", "concepts/ensemble.md"}},   // ambiguous id
		{"archive/Ensemble.md", []string{"archive/Ensemble.md"}},                // ...reachable by path
		{"régularisation", []string{"concepts/Régularisation.md"}},              // non-ASCII id
		{"re\u0301gularisation", []string{"concepts/Régularisation.md"}},        // in NFD
		{"shared", []string{"concepts/other.md", "concepts/Régularisation.md"}}, // ambiguous altLabel
		{"k_nn_(k.nearest)", []string{"concepts/k-NN (k.Nearest).md"}},
		{"plain", nil},
		{"plain.md", nil},
		{"", nil},
		{"xyz", nil},
	}
	for _, tc := range tests {
		if got := lookup(t, ix, tc.name); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lookup(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Every kind of change is seen by the next query: a write, an edit that
// changes labels, a rename, a delete, a plain note turning into a concept,
// a file of the same name shadowing a link.
func TestConceptsLive(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"a.md": "---\nprefLabel: A\nbroader: \"[[B]]\"\nrelated: Cee\n---\n",
		"b.md": "---\nprefLabel: B\n---\n",
	})
	write := func(rel, content string) {
		t.Helper()
		if _, err := v.WriteFile(ctx, rel, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if got := neighbors(t, ix, "a.md", concept.Related); got != nil {
		t.Fatalf("related before c exists: %v", got)
	}
	write("x/c.md", "---\nprefLabel: Cee\n---\n")
	if got := neighbors(t, ix, "a.md", concept.Related); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("after c is written: %v", got)
	}
	write("x/c.md", "---\nprefLabel: Sea\n---\n") // the label a named is gone
	if got := neighbors(t, ix, "a.md", concept.Related); got != nil {
		t.Errorf("after c's label changed: %v", got)
	}
	write("x/c.md", "---\nprefLabel: Sea\naltLabel: Cee\n---\n")
	if got := neighbors(t, ix, "a.md", concept.Related); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("after c gained the altLabel: %v", got)
	}
	if got := neighbors(t, ix, "b.md", concept.Narrower); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("b narrower = %v", got)
	}
	if _, err := v.RenameFile(ctx, "b.md", "sub/b2.md", nil); err != nil {
		t.Fatal(err)
	}
	// No file is named B any more: [[B]] finds the concept labelled B.
	if got := neighbors(t, ix, "a.md", concept.Broader); !reflect.DeepEqual(got, []string{"b2"}) {
		t.Errorf("broader after b moved to b2: %v", got)
	}
	write("B.md", "plain note, not a concept")
	write("sub/b2.md", "---\nprefLabel: B\n---\n")
	// [[B]] opens the plain note B.md; the concept labelled B is the
	// fallback.
	if got := neighbors(t, ix, "a.md", concept.Broader); !reflect.DeepEqual(got, []string{"b2"}) {
		t.Errorf("broader by label after the link went to a plain note: %v", got)
	}
	write("B.md", "---\nprefLabel: Bee\n---\n") // the plain note becomes a concept
	if got := neighbors(t, ix, "a.md", concept.Broader); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("broader after B.md became a concept: %v", got)
	}
	if _, err := v.DeleteFile(ctx, "B.md"); err != nil {
		t.Fatal(err)
	}
	if got := neighbors(t, ix, "a.md", concept.Broader); !reflect.DeepEqual(got, []string{"b2"}) {
		t.Errorf("broader after B.md went: %v", got)
	}
	if got := neighbors(t, ix, "sub/b2.md", concept.Narrower); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("b2 narrower = %v", got)
	}
	write("a.md", "no longer a concept")
	if got := neighbors(t, ix, "sub/b2.md", concept.Narrower); got != nil {
		t.Errorf("b2 narrower after a stopped being a concept: %v", got)
	}
	checkAgainstRebuild(t, v, ix)
}

// checkAgainstRebuild compares the live graph with one built from scratch
// over the same files.
func checkAgainstRebuild(t *testing.T, v *vault.Vault, ix *Index) {
	t.Helper()
	fresh := New(v, nil)
	if err := fresh.Build(ctx); err != nil {
		t.Fatal(err)
	}
	live, want := graphOf(t, ix), graphOf(t, fresh)
	if reflect.DeepEqual(live, want) {
		return
	}
	var keys []string
	for k := range live {
		keys = append(keys, k)
	}
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		if live[k] != want[k] {
			t.Errorf("%s:\n  live    %s\n  rebuilt %s", k, live[k], want[k])
		}
	}
}

// Random writes, renames and deletes of concept notes leave the live
// graph equal to a fresh build, step after step.
func TestConceptsRandomChanges(t *testing.T) {
	v, ix := newVault(t, nil)
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	folders := []string{"", "x/", "y/z/"}
	pick := func() string { return folders[r.IntN(len(folders))] + names[r.IntN(len(names))] + ".md" }
	target := func() string {
		n := names[r.IntN(len(names))]
		switch r.IntN(5) {
		case 0:
			return "\"[[" + n + "]]\""
		case 1:
			return "[[" + strings.ToUpper(n) + "]]"
		case 2:
			return "Label " + n
		case 3:
			return "alt-" + n
		}
		return n
	}
	for step := 0; step < 150; step++ {
		rel := pick()
		switch op := r.IntN(10); {
		case op < 6:
			content := "plain"
			if r.IntN(5) > 0 {
				n := names[r.IntN(len(names))]
				content = fmt.Sprintf("---\nprefLabel: Label %s\naltLabel: alt-%s\nbroader: %s\nrelated: %s\nprerequisite: %s\n---\nbody\n",
					n, names[r.IntN(len(names))], target(), target(), target())
			}
			if _, err := v.WriteFile(ctx, rel, []byte(content)); err != nil {
				t.Fatal(err)
			}
		case op < 8:
			if _, err := v.DeleteFile(ctx, rel); err != nil && !strings.Contains(err.Error(), "not found") {
				t.Fatal(err)
			}
		default:
			to := pick()
			if _, err := v.RenameFile(ctx, rel, to, nil); err != nil && !strings.Contains(err.Error(), "not found") && !strings.Contains(strings.ToLower(err.Error()), "exists") {
				t.Fatal(err)
			}
		}
		if step%10 == 9 {
			checkAgainstRebuild(t, v, ix)
			if t.Failed() {
				t.Fatalf("after step %d", step)
			}
		}
	}
}

func TestConceptContent(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"c.md": "---\nprefLabel: C\n---\n# C\n\nBody.\n",
	})
	err := ix.Concepts(ctx, func(v *ConceptView) error {
		if got := string(v.Content("c.md")); got != "# C\n\nBody.\n" {
			t.Errorf("content = %q", got)
		}
		if v.Content("missing.md") != nil {
			t.Error("content of a missing note")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
