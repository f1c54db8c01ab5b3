package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// conceptNotes is a small machine-learning concept graph.
var conceptNotes = map[string]string{
	"concepts/machine_learning.md":    "---\nprefLabel: Machine Learning\n---\n# Machine Learning\n",
	"concepts/supervised_learning.md": "---\nprefLabel: Supervised Learning\nbroader: [[Machine Learning]]\n---\n# Supervised Learning\n",
	"concepts/regression.md": "---\nprefLabel: Regression Analysis\nbroader: \"[[supervised_learning]]\"\n" +
		"narrower: linear_regression\nrelated: [correlation]\n---\n# Regression Analysis\n\nRegression is a statistical method.\n",
	"concepts/linear_regression.md": "---\nprefLabel: Linear Regression\nbroader: regression\n---\n# Linear Regression\n\nLeast squares.\n",
	"concepts/correlation.md":       "---\nprefLabel: Correlation\n---\n# Correlation\n",
	"notes/plain.md":                "A plain note about [[regression]].\n",
}

// expansion is what the e2e tests read of an expand_context answer.
type expansion struct {
	Focus struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"focus_concept"`
	Direct     map[string][]struct{ ID, PrefLabel string } `json:"direct_relations"`
	Transitive map[string][]struct{ ID, PrefLabel string } `json:"transitive_relations"`
	Notes      []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"context_notes"`
	Total int `json:"total"`
}

func expandRegression(t *testing.T, s *session) expansion {
	t.Helper()
	var e expansion
	text := s.ok(t, "expand_context", map[string]any{"concept_id": "regression", "max_depth": 2})
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("expand_context: %v in %s", err, text)
	}
	return e
}

// labels lists "id=prefLabel" of one relation of an expansion.
func (e expansion) labels(direct bool, rel string) []string {
	m := e.Transitive
	if direct {
		m = e.Direct
	}
	var out []string
	for _, c := range m[rel] {
		out = append(out, c.ID+"="+c.PrefLabel)
	}
	return out
}

// The concept graph follows the vault without a restart: a write through
// the server is seen by the very next call; an edit on disk (Obsidian on
// the same machine) and a change pulled from the remote (the phone) are
// seen as soon as the server has taken them in.
func TestConceptsFollowTheVault(t *testing.T) {
	t.Parallel()
	v, remote := newRemoteVault(t, conceptNotes)
	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))

	e := expandRegression(t, s)
	if e.Focus.ID != "regression" || !strings.Contains(e.Focus.Content, "Regression is a statistical method.") {
		t.Fatalf("focus: %+v", e.Focus)
	}
	if got := e.labels(true, "narrower"); !slices.Equal(got, []string{"linear_regression=Linear Regression"}) {
		t.Errorf("narrower at start: %v", got)
	}
	if got := e.labels(false, "broader"); !slices.Equal(got, []string{"machine_learning=Machine Learning"}) {
		t.Errorf("transitive broader at start: %v", got)
	}

	// A write through the server: read-your-writes.
	s.ok(t, "write_file", map[string]any{"path": "concepts/lasso.md",
		"content": "---\nprefLabel: Lasso Regression\nbroader: \"[[Regression Analysis]]\"\n---\n# Lasso\n\nAn L1 penalty.\n"})
	e = expandRegression(t, s)
	if got := e.labels(true, "narrower"); !slices.Equal(got, []string{"linear_regression=Linear Regression", "lasso=Lasso Regression"}) {
		t.Errorf("narrower after write_file: %v", got)
	}
	s.ok(t, "edit_file", map[string]any{"path": "concepts/regression.md", "old_text": "related: [correlation]", "new_text": "related: []"})
	if got := expandRegression(t, s).labels(true, "related"); len(got) != 0 {
		t.Errorf("related after edit_file: %v", got)
	}

	// An edit on disk, behind the server's back.
	v.write(t, "concepts/linear_regression.md", "---\nprefLabel: Ordinary Least Squares\nbroader: regression\n---\n# OLS\n\nEdited in Obsidian.\n")
	testutil.WaitFor(t, "the edit on disk in expand_context", func() bool {
		return slices.Contains(expandRegression(t, s).labels(true, "narrower"), "linear_regression=Ordinary Least Squares")
	})
	e = expandRegression(t, s)
	if i := slices.IndexFunc(e.Notes, func(n struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}) bool {
		return n.ID == "linear_regression"
	}); i < 0 || !strings.Contains(e.Notes[i].Content, "Edited in Obsidian.") {
		t.Errorf("context note after the edit on disk: %+v", e.Notes)
	}

	// Changes pulled from the remote: a new concept, a deleted one, a
	// label changed higher up the hierarchy.
	laptop := filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)
	writeAt(t, filepath.Join(laptop, "concepts/polynomial_regression.md"), "---\nprefLabel: Polynomial Regression\nbroader: regression\n---\n# Polynomial\n")
	writeAt(t, filepath.Join(laptop, "concepts/machine_learning.md"), "---\nprefLabel: Statistical Learning\n---\n# Renamed on the laptop\n")
	gitCLI(t, laptop, "rm", "-q", "concepts/supervised_learning.md")
	laptopPush(t, laptop, "laptop: concept edits")
	testutil.WaitFor(t, "the pulled concepts in expand_context", func() bool {
		e := expandRegression(t, s)
		return slices.Contains(e.labels(true, "narrower"), "polynomial_regression=Polynomial Regression") && len(e.labels(true, "broader")) == 0
	})
	e = expandRegression(t, s)
	if got := e.labels(false, "broader"); len(got) != 0 {
		t.Errorf("transitive broader after supervised_learning was deleted: %v", got)
	}
	stats := s.ok(t, "get_statistics", map[string]any{})
	wantContains(t, "get_statistics", stats, `"total_concepts":6`)
	var st struct {
		Unresolved int `json:"unresolved_relations"`
	}
	if err := json.Unmarshal([]byte(stats), &st); err != nil || st.Unresolved != 1 { // regression's broader [[supervised_learning]]
		t.Errorf("unresolved after the pull: %s", stats)
	}
	ml := s.ok(t, "get_concept", map[string]any{"concept_id": "machine_learning"})
	wantContains(t, "get_concept after the pull", ml, `"prefLabel":"Statistical Learning"`)
	path := s.ok(t, "get_concept_path", map[string]any{"from_concept": "polynomial_regression", "to_concept": "lasso"})
	wantContains(t, "get_concept_path", path, `"length":2`)
	msg := s.fail(t, "get_concept", map[string]any{"concept_id": "supervised_learning"})
	wantContains(t, "get_concept error", msg, "not found")
}
