package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// mlVault copies testdata/mlvault (36 machine-learning concept notes and a
// few plain notes) into a temp dir and serves it with a built index. It
// returns the harness, for calls as a client makes them, and the
// dependencies, for calls of the typed functions as the REST API makes
// them.
func mlVault(t *testing.T, extra map[string]string) (*harness, tools.Deps) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "mlvault")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeAt(filepath.Join(root, rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range extra {
		if err := writeAt(filepath.Join(root, filepath.FromSlash(rel)), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ix := index.New(v, logger)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	v.Observe(ix.Changed)
	d := tools.Deps{Vault: v, Index: ix, Logger: logger, ServerVersion: "1.2.3"}
	s, err := mcpserver.New(d, "1.2.3", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, v: v, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return h, d
}

func writeAt(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// answer calls a concept tool that must succeed and returns its JSON
// text, checking that structuredContent says the same.
func (h *harness) answer(tool, args string) string {
	h.t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	if res == nil {
		h.t.Fatalf("%s %s: no result: %v", tool, args, resp)
	}
	content, _ := res["content"].([]any)
	text, _ := content[0].(map[string]any)["text"].(string)
	if res["isError"] == true {
		h.t.Fatalf("%s %s: error %s", tool, args, text)
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		h.t.Fatalf("%s: text is not JSON: %v", tool, err)
	}
	if !reflect.DeepEqual(fromText, res["structuredContent"]) {
		h.t.Errorf("%s: structuredContent differs from the text:\n%v\n%v", tool, res["structuredContent"], fromText)
	}
	return text
}

// sameJSON fails unless got and want are equal JSON values; {{root}} in
// want stands for the vault's root.
func sameJSON(t *testing.T, what, got, want string, root string) {
	t.Helper()
	want = strings.ReplaceAll(want, "{{root}}", root)
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the test's JSON: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		pretty, _ := json.MarshalIndent(g, "", "  ")
		t.Errorf("%s:\ngot  %s\nwant %s", what, pretty, want)
	}
}

// The example answers of the concept tools' specification, reproduced on
// the test vault. Fields beyond the specification's (uri, altLabel,
// inScheme, path, prerequisite, relation_counts, depth, via, relation,
// match, total) are
// additive. Where the specification's examples contradict themselves the
// test follows our contract:
//   - get_concept lists prediction as related to regression, while
//     expand_context's example shows only correlation: here both do.
//   - search_concepts' example gives the id convolutional_neural_network
//     to concepts/cnn.md; ids come from file names, so the note here is
//     "Convolutional Neural Network.md".
//   - get_concept_path's example says length 2 for a path of four
//     concepts; length counts edges: 3.
//   - transitive_relations lists every relation asked for, related too.
func TestConceptSeedExamples(t *testing.T) {
	h, _ := mlVault(t, nil)
	root := h.root

	sameJSON(t, "get_concept", h.answer("get_concept", `{"concept_id":"regression","include_relations":true}`), `{
	  "id": "regression",
	  "uri": "vault://concepts#regression",
	  "prefLabel": "Regression Analysis",
	  "altLabel": ["Regression"],
	  "definition": "Statistical method for modeling relationships between variables",
	  "notation": "ML.REG.001",
	  "inScheme": ["ML Taxonomy"],
	  "file_path": "{{root}}/concepts/regression.md",
	  "path": "concepts/regression.md",
	  "schema": {
	    "type": "EducationalMaterial",
	    "about": ["statistics", "prediction"],
	    "educationalLevel": "graduate"
	  },
	  "broader": ["supervised_learning"],
	  "narrower": ["linear_regression", "logistic_regression"],
	  "related": ["correlation", "prediction"],
	  "prerequisite": [],
	  "relation_counts": {"broader": 1, "narrower": 2, "related": 2, "prerequisite": 0}
	}`, root)

	sameJSON(t, "expand_context", h.answer("expand_context",
		`{"concept_id":"regression","relation_types":["broader","narrower","related"],"max_depth":2,"include_content":true}`), `{
	  "focus_concept": {
	    "id": "regression",
	    "uri": "vault://concepts#regression",
	    "prefLabel": "Regression Analysis",
	    "definition": "Statistical method for modeling relationships between variables",
	    "file_path": "{{root}}/concepts/regression.md",
	    "path": "concepts/regression.md",
	    "content": "# Regression Analysis\n\nRegression is a statistical method for estimating the relationship between a dependent variable and one or more independent variables.\n"
	  },
	  "direct_relations": {
	    "broader": [
	      {"id": "supervised_learning", "prefLabel": "Supervised Learning", "definition": "ML paradigm with labeled training data",
	       "path": "concepts/supervised_learning.md", "depth": 1}
	    ],
	    "narrower": [
	      {"id": "linear_regression", "prefLabel": "Linear Regression", "definition": "Models a linear relationship between inputs and a continuous output",
	       "path": "concepts/linear_regression.md", "depth": 1},
	      {"id": "logistic_regression", "prefLabel": "Logistic Regression", "definition": "Models the probability of a class with the logistic function",
	       "path": "concepts/logistic_regression.md", "depth": 1}
	    ],
	    "related": [
	      {"id": "correlation", "prefLabel": "Correlation", "definition": "Strength of the linear association between two variables",
	       "path": "concepts/correlation.md", "depth": 1},
	      {"id": "prediction", "prefLabel": "Prediction", "definition": "Estimating an unknown value from known data",
	       "path": "concepts/prediction.md", "depth": 1}
	    ]
	  },
	  "transitive_relations": {
	    "broader": [
	      {"id": "machine_learning", "prefLabel": "Machine Learning",
	       "definition": "Field of study in which computers learn from data without being explicitly programmed",
	       "path": "concepts/machine_learning.md", "via": "supervised_learning", "depth": 2}
	    ],
	    "narrower": [],
	    "related": []
	  },
	  "context_notes": [
	    {"id": "supervised_learning", "label": "Supervised Learning",
	     "content": "# Supervised Learning\n\nSupervised learning is learning a function from labeled examples.\n",
	     "file_path": "{{root}}/concepts/supervised_learning.md", "path": "concepts/supervised_learning.md", "relation": "broader", "depth": 1},
	    {"id": "linear_regression", "label": "Linear Regression",
	     "content": "# Linear Regression\n\nLinear regression uses a linear function of the inputs, fitted by least squares.\n",
	     "file_path": "{{root}}/concepts/linear_regression.md", "path": "concepts/linear_regression.md", "relation": "narrower", "depth": 1},
	    {"id": "logistic_regression", "label": "Logistic Regression",
	     "content": "# Logistic Regression\n\nDespite its name, a classification method.\n",
	     "file_path": "{{root}}/concepts/logistic_regression.md", "path": "concepts/logistic_regression.md", "relation": "narrower", "depth": 1},
	    {"id": "correlation", "label": "Correlation",
	     "content": "# Correlation\n\nCorrelation is not causation.\n",
	     "file_path": "{{root}}/concepts/correlation.md", "path": "concepts/correlation.md", "relation": "related", "depth": 1},
	    {"id": "prediction", "label": "Prediction",
	     "content": "# Prediction\n\nWhat a fitted model is for.\n",
	     "file_path": "{{root}}/concepts/prediction.md", "path": "concepts/prediction.md", "relation": "related", "depth": 1},
	    {"id": "machine_learning", "label": "Machine Learning",
	     "content": "# Machine Learning\n\nMachine learning builds models from data. See [[Supervised Learning]] and [[Unsupervised Learning]].\n",
	     "file_path": "{{root}}/concepts/machine_learning.md", "path": "concepts/machine_learning.md", "relation": "broader", "depth": 2}
	  ],
	  "total": 6
	}`, root)

	sameJSON(t, "search_concepts", h.answer("search_concepts", `{"query":"neural network","limit":5}`), `{
	  "query": "neural network",
	  "count": 3,
	  "results": [
	    {"id": "neural_network", "uri": "vault://concepts#neural_network", "prefLabel": "Neural Network",
	     "definition": "Computing system inspired by biological neural networks",
	     "file_path": "{{root}}/concepts/neural_network.md", "path": "concepts/neural_network.md", "match": "exact_label"},
	    {"id": "convolutional_neural_network", "uri": "vault://concepts#convolutional_neural_network", "prefLabel": "Convolutional Neural Network",
	     "definition": "Neural network with convolutional layers",
	     "file_path": "{{root}}/concepts/Convolutional Neural Network.md", "path": "concepts/Convolutional Neural Network.md", "match": "label_words"},
	    {"id": "recurrent_neural_network", "uri": "vault://concepts#recurrent_neural_network", "prefLabel": "Recurrent Neural Network",
	     "definition": "Neural network with feedback connections",
	     "file_path": "{{root}}/concepts/Recurrent-Neural-Network.md", "path": "concepts/Recurrent-Neural-Network.md", "match": "label_words"}
	  ],
	  "total": 3
	}`, root)

	sameJSON(t, "get_concept_path", h.answer("get_concept_path", `{"from_concept":"linear_regression","to_concept":"machine_learning"}`), `{
	  "from": "linear_regression",
	  "to": "machine_learning",
	  "length": 3,
	  "path": [
	    {"id": "linear_regression", "prefLabel": "Linear Regression", "path": "concepts/linear_regression.md"},
	    {"id": "regression", "prefLabel": "Regression Analysis", "path": "concepts/regression.md", "relation": "broader"},
	    {"id": "supervised_learning", "prefLabel": "Supervised Learning", "path": "concepts/supervised_learning.md", "relation": "broader"},
	    {"id": "machine_learning", "prefLabel": "Machine Learning", "path": "concepts/machine_learning.md", "relation": "broader"}
	  ]
	}`, root)

	sameJSON(t, "get_concept_path without a path", h.answer("get_concept_path", `{"from_concept":"linear_regression","to_concept":"blockchain"}`), `{
	  "from": "linear_regression",
	  "to": "blockchain",
	  "path": null,
	  "message": "No path found between concepts"
	}`, root)

	// 36 concepts (concepts/broken.md has a frontmatter YAML cannot read).
	// Broader pairs: 23 (a narrower edge that repeats a broader one, as
	// supervised_learning/machine_learning, counts once; the
	// hyperparameter/model_selection cycle twice); related pairs: 10
	// (regularization and overfitting name each other: once);
	// prerequisites: 4. Unresolved targets: Q-Learning and Statistics
	// Overview (a plain note). ensemble is the id of two notes.
	sameJSON(t, "get_statistics", h.answer("get_statistics", `{}`), `{
	  "total_concepts": 36,
	  "total_relations": 37,
	  "vault_path": "{{root}}",
	  "server_version": "1.2.3",
	  "relations_by_type": {"broader": 23, "related": 10, "prerequisite": 4},
	  "unresolved_relations": 2,
	  "ambiguous_ids": 1,
	  "unreadable_frontmatter": 1
	}`, root)

	r := h.fails("get_concept", `{"concept_id":"xyz"}`)
	if r.errMsg != "Concept 'xyz' not found" || r.errBody["available_count"] != float64(36) {
		t.Errorf("not found: %s", r.text)
	}
}

// conceptOf calls get_concept and decodes the answer.
func conceptOf(h *harness, args string) tools.ConceptResult {
	h.t.Helper()
	var c tools.ConceptResult
	if err := json.Unmarshal([]byte(h.answer("get_concept", args)), &c); err != nil {
		h.t.Fatal(err)
	}
	return c
}

func TestGetConceptLookups(t *testing.T) {
	h, _ := mlVault(t, nil)
	tests := []struct{ name, want string }{
		{"regression", "concepts/regression.md"},
		{"REGRESSION", "concepts/regression.md"},
		{"Regression Analysis", "concepts/regression.md"},    // prefLabel
		{"regression analysis", "concepts/regression.md"},    // any case
		{"kNN", "concepts/k-NN (k.Nearest Neighbors).md"},    // altLabel
		{"concepts/regression.md", "concepts/regression.md"}, // path
		{"[[Regression|r]]", "concepts/regression.md"},       // wikilink
		{"Convolutional Neural Network", "concepts/Convolutional Neural Network.md"},
		{"recurrent_neural_network", "concepts/Recurrent-Neural-Network.md"},
		{"Recurrent-Neural-Network", "concepts/Recurrent-Neural-Network.md"},
		{"k_nn_(k.nearest_neighbors)", "concepts/k-NN (k.Nearest Neighbors).md"}, // ids keep ( and .
		{"régularisation", "concepts/Régularisation.md"},                         // non-ASCII id
		{"re\u0301gularisation", "concepts/Régularisation.md"},                   // NFD
		{"gradient_descent_method", "concepts/optimization/Gradient-Descent Method.md"},
		{"archive/Ensemble.md", "archive/Ensemble.md"}, // an ambiguous id, by path
	}
	for _, tc := range tests {
		args, _ := json.Marshal(map[string]any{"concept_id": tc.name, "include_relations": false})
		if got := conceptOf(h, string(args)); got.Path != tc.want {
			t.Errorf("get_concept %q = %s, want %s", tc.name, got.Path, tc.want)
		} else if got.Broader != nil || got.Unresolved != nil {
			t.Errorf("get_concept %q: relations with include_relations false", tc.name)
		}
	}

	r := h.fails("get_concept", `{"concept_id":"ensemble"}`, "ambiguous", "archive/Ensemble.md", "concepts/ensemble.md")
	if c, _ := r.errBody["candidates"].([]any); len(c) != 2 {
		t.Errorf("ambiguous: candidates %v", r.errBody["candidates"])
	}
	r = h.fails("get_concept", `{"concept_id":"regresion"}`, "Concept 'regresion' not found")
	if s, _ := r.errBody["suggestions"].([]any); len(s) == 0 || s[0] != "regression" {
		t.Errorf("suggestions for a typo: %v", r.errBody["suggestions"])
	}
	r = h.fails("get_concept", `{"concept_id":"neural"}`, "not found")
	if s, _ := r.errBody["suggestions"].([]any); len(s) != 3 || s[0] != "neural_network" {
		t.Errorf("suggestions for a prefix: %v", r.errBody["suggestions"])
	}
	// A plain note is named as one, with what would make it a concept.
	for _, name := range []string{"Statistics Overview", "[[Statistics Overview]]", "statistics overview.md"} {
		h.fails("get_concept", `{"concept_id":"`+name+`"}`, "Concept '"+name+"' not found: note Statistics Overview.md is no concept, as its frontmatter has no prefLabel")
	}
	// A note whose frontmatter is not YAML is no concept; the error says
	// why, by its name, id, path or link.
	for _, name := range []string{"broken", "Broken", "concepts/broken.md", "[[broken]]"} {
		h.fails("get_concept", `{"concept_id":"`+name+`"}`, "Concept '"+name+"' not found: note concepts/broken.md has frontmatter that is not valid YAML (line 3: ",
			`; quote wikilinks in lists: broader: ["[[A]]", "[[B]]"]`)
	}
	if r := h.fails("get_concept", `{"concept_id":"xyz"}`); strings.Contains(r.text, h.root) {
		t.Errorf("error leaks the vault's path: %s", r.text)
	}
}

func TestGetConceptFieldForms(t *testing.T) {
	h, _ := mlVault(t, nil)
	nn := conceptOf(h, `{"concept_id":"neural_network"}`)
	want := tools.ConceptSchema{Type: "DefinedTerm", About: []string{"neuroscience", "computation"},
		Teaches: []string{"forward pass", "activation functions"}, LearningResourceType: "concept note"}
	if !reflect.DeepEqual(nn.Schema, want) {
		t.Errorf("top-level Schema.org keys: %+v", nn.Schema)
	}
	if !reflect.DeepEqual(nn.AltLabel, []string{"ANN", "Artificial Neural Network"}) {
		t.Errorf("altLabel = %v", nn.AltLabel)
	}
	// Comma-separated wikilinks; the inverse narrower edges below.
	if !reflect.DeepEqual(*nn.Broader, []string{"machine_learning", "deep_learning"}) {
		t.Errorf("broader = %v", *nn.Broader)
	}
	if !reflect.DeepEqual(*nn.Narrower, []string{"convolutional_neural_network", "recurrent_neural_network"}) {
		t.Errorf("narrower = %v", *nn.Narrower)
	}
	if !reflect.DeepEqual(*nn.Related, []string{"backpropagation"}) {
		t.Errorf("related (declared by backpropagation only) = %v", *nn.Related)
	}

	ai := conceptOf(h, `{"concept_id":"ai"}`) // altLabel from a comma-separated skos:altLabel
	if ai.ID != "artificial_intelligence" || ai.Definition != "Intelligence demonstrated by machines" || ai.Notation != "AI" ||
		!reflect.DeepEqual(ai.AltLabel, []string{"AI", "Machine intelligence"}) {
		t.Errorf("skos: keys: %+v", ai)
	}
	if !reflect.DeepEqual(*ai.Narrower, []string{"machine_learning"}) {
		t.Errorf("unquoted [[wikilink]] as broader: AI's narrower = %v", *ai.Narrower)
	}

	ml := conceptOf(h, `{"concept_id":"machine_learning"}`)
	if got := *ml.Narrower; !reflect.DeepEqual(got, []string{"supervised_learning", "unsupervised_learning", "reinforcement_learning",
		"deep_learning", "neural_network", "unnamed_concept"}) {
		t.Errorf("ML narrower (a comma-separated string, then the notes naming it broader, by id) = %v", got)
	}
	if ml.Schema.Type != "DefinedTerm" || !reflect.DeepEqual(ml.InScheme, []string{"ML Taxonomy"}) {
		t.Errorf("ML type/inScheme: %+v", ml)
	}

	rl := conceptOf(h, `{"concept_id":"reinforcement_learning"}`)
	if !reflect.DeepEqual(*rl.Prerequisite, []string{"markov_decision_process"}) ||
		!reflect.DeepEqual(rl.Unresolved, map[string][]string{"related": {"[[Q-Learning]]"}}) {
		t.Errorf("prerequisite/unresolved: %v %v", *rl.Prerequisite, rl.Unresolved)
	}
	mdp := conceptOf(h, `{"concept_id":"MDP"}`)
	if len(*mdp.Prerequisite) != 0 || len(*mdp.Narrower) != 0 {
		t.Errorf("prerequisite is one-way: %+v", mdp)
	}
	corr := conceptOf(h, `{"concept_id":"correlation"}`)
	if !reflect.DeepEqual(corr.Unresolved, map[string][]string{"related": {"[[Statistics Overview]]"}}) {
		t.Errorf("a plain note is no concept: %v", corr.Unresolved)
	}

	un := conceptOf(h, `{"concept_id":"unnamed_concept"}`)
	if un.PrefLabel != "Unnamed Concept" {
		t.Errorf("empty prefLabel: label %q, want the note's name", un.PrefLabel)
	}
	rf := conceptOf(h, `{"concept_id":"random_forest"}`)
	if !reflect.DeepEqual(*rf.Broader, []string{"ensemble"}) || !reflect.DeepEqual(*rf.Related, []string{"decision_tree"}) {
		t.Errorf("path wikilink and Markdown link targets: %v %v", *rf.Broader, *rf.Related)
	}
	bp := conceptOf(h, `{"concept_id":"backpropagation"}`)
	if !reflect.DeepEqual(*bp.Prerequisite, []string{"gradient_descent_method"}) {
		t.Errorf("unquoted wikilink to a file name with -: %v", *bp.Prerequisite)
	}
}

func TestExpandContextWalks(t *testing.T) {
	h, _ := mlVault(t, nil)
	expand := func(args string) tools.ExpandContextResult {
		t.Helper()
		var r tools.ExpandContextResult
		if err := json.Unmarshal([]byte(h.answer("expand_context", args)), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	ids := func(items []tools.RelatedConcept) []string {
		out := []string{}
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	// Depth 3 along broader only: ancestors, never siblings.
	r := expand(`{"concept_id":"linear_regression","relation_types":["broader"],"max_depth":3,"include_content":false}`)
	if got := ids(r.TransitiveRelations["broader"]); !reflect.DeepEqual(got, []string{"supervised_learning", "machine_learning"}) {
		t.Errorf("transitive broader = %v", got)
	}
	if len(r.DirectRelations) != 1 || r.FocusConcept.Content != nil || r.ContextNotes[0].Content != nil {
		t.Errorf("only broader asked, no content: %+v", r)
	}
	// A broader cycle ends the walk; model_selection is both broader and
	// narrower than hyperparameter, and listed once.
	r = expand(`{"concept_id":"hyperparameter","max_depth":3}`)
	if r.Total != 1 || !reflect.DeepEqual(ids(r.DirectRelations["broader"]), []string{"model_selection"}) || len(r.DirectRelations["narrower"]) != 0 {
		t.Errorf("cycle: %+v", r)
	}
	// prerequisite chains.
	r = expand(`{"concept_id":"backpropagation","relation_types":["prerequisite"],"max_depth":3}`)
	if got := ids(r.DirectRelations["prerequisite"]); !reflect.DeepEqual(got, []string{"gradient_descent_method"}) {
		t.Errorf("prerequisite = %v", got)
	}
	if got := ids(r.TransitiveRelations["prerequisite"]); !reflect.DeepEqual(got, []string{"calculus"}) {
		t.Errorf("transitive prerequisite = %v", got)
	}
	// Paging: the whole expansion of machine_learning at depth 3, three
	// concepts at a time, lists each concept once.
	all := expand(`{"concept_id":"machine_learning","max_depth":3,"include_content":false,"limit":500}`)
	var paged []string
	for offset := 0; ; {
		p := expand(fmt.Sprintf(`{"concept_id":"machine_learning","max_depth":3,"include_content":false,"limit":3,"offset":%d}`, offset))
		if p.Total != all.Total || len(p.ContextNotes) > 3 {
			t.Fatalf("page at %d: total %d, %d notes", offset, p.Total, len(p.ContextNotes))
		}
		for _, n := range p.ContextNotes {
			paged = append(paged, n.ID)
		}
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	var whole []string
	for _, n := range all.ContextNotes {
		whole = append(whole, n.ID)
	}
	if !reflect.DeepEqual(paged, whole) || all.Total != len(whole) || all.NextOffset != nil {
		t.Errorf("pages %v\nwhole %v (total %d)", paged, whole, all.Total)
	}
}

// Each note's text is cut at 50,000 characters, and one answer carries at
// most max_content characters of text (12,000 unless told, 60,000 at
// most): nearest first, the rest omitted, and the notice says how to get
// it.
func TestExpandContextContentBudget(t *testing.T) {
	big := func(label, fill string, n int) string {
		return "---\nprefLabel: " + label + "\nbroader: Hub\n---\n" + strings.Repeat(fill, n)
	}
	h, d := mlVault(t, map[string]string{
		"big/hub.md": "---\nprefLabel: Hub\n---\n\n\n" + strings.Repeat("é", 60000), // over the per-note cut, in characters
		"big/a.md":   big("A", "a", 4000),
		"big/b.md":   big("B", "b", 40000),
		"big/c.md":   big("C", "c", 10),
	})
	most := tools.MaxExpandContent
	res, err := tools.ExpandConcept(context.Background(), d, tools.ExpandContextArgs{ConceptID: "hub", MaxContent: &most})
	if err != nil {
		t.Fatal(err)
	}
	focus := *res.FocusConcept.Content
	if !res.FocusConcept.ContentTruncated || !strings.HasSuffix(focus, tools.ContentTruncatedNotice) ||
		strings.Count(focus, "é") != tools.MaxNoteContent || strings.HasPrefix(focus, "\n") {
		t.Errorf("focus: truncated %v, %d characters", res.FocusConcept.ContentTruncated, len([]rune(focus)))
	}
	notes := res.ContextNotes
	if len(notes) != 3 || notes[0].ID != "a" || notes[1].ID != "b" || notes[2].ID != "c" {
		t.Fatalf("notes %+v", notes)
	}
	// 60,000 - 50,000 = 10,000 left: a (4,000) whole, b cut to the
	// remaining 6,000, then nothing left for c.
	if notes[0].ContentTruncated || len(*notes[0].Content) != 4000 {
		t.Errorf("a: %d, truncated %v", len(*notes[0].Content), notes[0].ContentTruncated)
	}
	if !notes[1].ContentTruncated || strings.Count(*notes[1].Content, "b") != 6000 {
		t.Errorf("b: %d b's, truncated %v", strings.Count(*notes[1].Content, "b"), notes[1].ContentTruncated)
	}
	if notes[2].Content != nil || !notes[2].ContentOmitted {
		t.Errorf("c: %+v", notes[2])
	}
	// At the most, the notice does not offer more.
	if want := "note text omitted for 1 of the 3 concepts listed (max_content of 60,000 characters spent): call again with offset=2 to get theirs, or read_file"; !strings.HasPrefix(res.Notice, want) {
		t.Errorf("notice %q, want it to start %q", res.Notice, want)
	}
	// The next page starts with a fresh budget.
	two := 2
	res, err = tools.ExpandConcept(context.Background(), d, tools.ExpandContextArgs{ConceptID: "hub", MaxContent: &most, Paging: tools.Paging{Offset: 2, Limit: &two}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ContextNotes) != 1 || res.ContextNotes[0].Content == nil || *res.ContextNotes[0].Content != strings.Repeat("c", 10) {
		t.Errorf("page 2: %+v", res.ContextNotes)
	}
	text := h.answer("expand_context", `{"concept_id":"hub","max_content":60000}`)
	if len(text) > 60_000*2+20_000 { // é is two bytes
		t.Errorf("answer of %d bytes", len(text))
	}

	// By default the focus alone spends the 12,000 characters; the notice
	// says where the omitted text starts, and that offset brings it.
	res, err = tools.ExpandConcept(context.Background(), d, tools.ExpandContextArgs{ConceptID: "hub"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(*res.FocusConcept.Content, "é"); n != tools.DefaultExpandContent || !res.FocusConcept.ContentTruncated {
		t.Errorf("default focus: %d characters, truncated %v", n, res.FocusConcept.ContentTruncated)
	}
	for _, n := range res.ContextNotes {
		if n.Content != nil || !n.ContentOmitted {
			t.Errorf("default %s: %+v", n.ID, n)
		}
	}
	if want := "note text omitted for 3 of the 3 concepts listed (the default max_content of 12,000 characters spent): call again with offset=0 to get theirs, raise max_content (at most 60,000), or read_file"; !strings.HasPrefix(res.Notice, want) {
		t.Errorf("notice %q, want it to start %q", res.Notice, want)
	}
	no := false
	res, err = tools.ExpandConcept(context.Background(), d, tools.ExpandContextArgs{ConceptID: "hub", IncludeContent: &no})
	if err != nil {
		t.Fatal(err)
	}
	if res.Notice != "" {
		t.Errorf("without content: notice %q", res.Notice)
	}
	// With a page notice, the omission follows it.
	one := 1
	res, err = tools.ExpandConcept(context.Background(), d, tools.ExpandContextArgs{ConceptID: "hub", Paging: tools.Paging{Limit: &one}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Notice, "showing 1–1 of 3 concepts; call again with offset=1 for the next page; note text omitted for 1 of the 1 concepts listed") {
		t.Errorf("paged notice %q", res.Notice)
	}
}

// Bad arguments are refused with an error naming them: by the schema
// check for MCP clients, by the typed functions for the REST API (as
// vault.ErrInvalidInput), and lookups fail as vault.ErrNotFound and
// vault.ErrAmbiguous.
func TestConceptArgumentErrors(t *testing.T) {
	h, d := mlVault(t, nil)
	long := strings.Repeat("x", tools.MaxConceptQuery+1)
	mcpCases := []struct {
		tool, args string
		want       []string
	}{
		{"get_concept", `{}`, []string{"concept_id"}},
		{"get_concept", `{"concept_id":""}`, []string{"concept_id", "empty"}},
		{"get_concept", `{"concept_id":"` + long + `"}`, []string{"concept_id"}},
		{"expand_context", `{"concept_id":"regression","max_depth":4}`, []string{"max_depth"}},
		{"expand_context", `{"concept_id":"regression","max_depth":0}`, []string{"max_depth"}},
		{"expand_context", `{"concept_id":"regression","relation_types":["cousin"]}`, []string{"relation_types"}},
		{"expand_context", `{"concept_id":"regression","relation_types":[]}`, []string{"relation_types"}},
		{"expand_context", `{"concept_id":"regression","max_content":999}`, []string{"max_content"}},
		{"expand_context", `{"concept_id":"regression","max_content":60001}`, []string{"max_content"}},
		{"search_concepts", `{"query":"x","limit":101}`, []string{"limit"}},
		{"search_concepts", `{"query":"` + long + `"}`, []string{"query"}},
		{"search_concepts", `{"query":"   "}`, []string{"query", "empty"}},
		{"get_concept_path", `{"from_concept":"regression"}`, []string{"to_concept"}},
		{"get_concept_path", `{"from_concept":"regression","to_concept":"nope"}`, []string{"Concept 'nope' not found"}},
	}
	for _, tc := range mcpCases {
		h.fails(tc.tool, tc.args, tc.want...)
	}

	ctx := context.Background()
	four, zero, many := 4, 0, 101
	typed := []struct {
		name string
		call func() error
		kind error
	}{
		{"empty id", func() error { _, err := tools.Concept(ctx, d, tools.GetConceptArgs{}); return err }, vault.ErrInvalidInput},
		{"long id", func() error { _, err := tools.Concept(ctx, d, tools.GetConceptArgs{ConceptID: long}); return err }, vault.ErrInvalidInput},
		{"depth 4", func() error {
			_, err := tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression", MaxDepth: &four})
			return err
		}, vault.ErrInvalidInput},
		{"limit 0", func() error {
			_, err := tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression", Paging: tools.Paging{Limit: &zero}})
			return err
		}, vault.ErrInvalidInput},
		{"max_content 0", func() error {
			_, err := tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression", MaxContent: &zero})
			return err
		}, vault.ErrInvalidInput},
		{"max_content over", func() error {
			over := tools.MaxExpandContent + 1
			_, err := tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression", MaxContent: &over})
			return err
		}, vault.ErrInvalidInput},
		{"negative offset", func() error {
			_, err := tools.FindConcepts(ctx, d, tools.SearchConceptsArgs{Query: "x", Paging: tools.Paging{Offset: -1}})
			return err
		}, vault.ErrInvalidInput},
		{"unknown relation", func() error {
			_, err := tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression", RelationTypes: []string{"sibling"}})
			return err
		}, vault.ErrInvalidInput},
		{"search limit", func() error {
			_, err := tools.FindConcepts(ctx, d, tools.SearchConceptsArgs{Query: "x", Paging: tools.Paging{Limit: &many}})
			return err
		}, vault.ErrInvalidInput},
		{"not found", func() error { _, err := tools.Concept(ctx, d, tools.GetConceptArgs{ConceptID: "xyz"}); return err }, vault.ErrNotFound},
		{"path not found", func() error {
			_, err := tools.ConceptPath(ctx, d, tools.GetConceptPathArgs{FromConcept: "xyz", ToConcept: "regression"})
			return err
		}, vault.ErrNotFound},
		{"ambiguous", func() error { _, err := tools.Concept(ctx, d, tools.GetConceptArgs{ConceptID: "ensemble"}); return err }, vault.ErrAmbiguous},
	}
	for _, tc := range typed {
		err := tc.call()
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: %v, want an error of kind %v", tc.name, err, tc.kind)
		}
	}
	var nf *tools.ConceptNotFoundError
	if _, err := tools.Concept(ctx, d, tools.GetConceptArgs{ConceptID: "xyz"}); !errors.As(err, &nf) || nf.Available != 36 {
		t.Errorf("not found: %#v", err)
	}
}

// Concept answers follow the vault: the next call sees a write.
func TestConceptToolsSeeWrites(t *testing.T) {
	h, _ := mlVault(t, nil)
	h.ok("write_file", `{"path":"concepts/lasso.md","content":"---\nprefLabel: Lasso Regression\nbroader: \"[[Régularisation]]\"\nrelated: ridge_regression\n---\n# Lasso\n"}`)
	ridge := conceptOf(h, `{"concept_id":"ridge_regression"}`)
	if !reflect.DeepEqual(*ridge.Related, []string{"linear_regression", "lasso"}) {
		t.Errorf("ridge related after lasso was written: %v", *ridge.Related)
	}
	h.ok("edit_file", `{"path":"concepts/lasso.md","old_text":"related: ridge_regression","new_text":"related: overfitting"}`)
	ridge = conceptOf(h, `{"concept_id":"ridge_regression"}`)
	if !reflect.DeepEqual(*ridge.Related, []string{"linear_regression"}) {
		t.Errorf("ridge related after the edit: %v", *ridge.Related)
	}
	h.ok("rename_file", `{"old_path":"concepts/lasso.md","new_path":"concepts/l1/Lasso.md"}`)
	if got := conceptOf(h, `{"concept_id":"Lasso Regression"}`); got.Path != "concepts/l1/Lasso.md" {
		t.Errorf("after rename: %s", got.Path)
	}
	h.ok("delete_file", `{"path":"concepts/l1/Lasso.md"}`)
	h.fails("get_concept", `{"concept_id":"lasso"}`, "not found")
}

// The five concept tools are offered whenever the index is.
func TestConceptToolsListed(t *testing.T) {
	h, _ := mlVault(t, nil)
	resp := h.rpc("tools/list", `{}`)
	list, _ := resp["result"].(map[string]any)["tools"].([]any)
	want := map[string]bool{"get_concept": true, "expand_context": true, "search_concepts": true, "get_concept_path": true, "get_statistics": true}
	for _, x := range list {
		delete(want, x.(map[string]any)["name"].(string))
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}

// A concept with more relations than one answer should hold lists the
// first 500 of each and counts them all.
func TestGetConceptCapsRelations(t *testing.T) {
	extra := map[string]string{"hub/hub.md": "---\nprefLabel: Hub\n---\n"}
	for i := range 600 {
		extra[fmt.Sprintf("hub/leaf %03d.md", i)] = "---\nprefLabel: Leaf\nbroader: \"[[hub]]\"\n---\n"
	}
	h, _ := mlVault(t, extra)
	hub := conceptOf(h, `{"concept_id":"hub"}`)
	if len(*hub.Narrower) != tools.MaxConceptRelations || hub.RelationCounts["narrower"] != 600 || (*hub.Narrower)[0] != "leaf_000" {
		t.Errorf("narrower: %d listed, %d counted", len(*hub.Narrower), hub.RelationCounts["narrower"])
	}
}
