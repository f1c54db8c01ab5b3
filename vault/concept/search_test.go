package concept_test

import (
	"testing"

	"vaultmcp/vault/concept"
)

func TestQueryMatch(t *testing.T) {
	nn := extract(t, "prefLabel: Neural Network\naltLabel: [ANN, Artificial neural net]\ndefinition: Computing system inspired by biological neural networks\nnotation: ML.NN.001")
	cnn := extract(t, "prefLabel: Convolutional Neural Network\ndefinition: Neural network with convolutional layers")
	dl := extract(t, "prefLabel: Deep Learning\naltLabel: Deep neural networks\ndefinition: Learning with many layers")
	reg := extract(t, "prefLabel: Régression Analysis\ndefinition: Statistical method")
	ml := extract(t, "prefLabel: 機械学習\naltLabel: [マシンラーニング]\ndefinition: データから学習するアルゴリズムの研究")
	ko := extract(t, "prefLabel: 기계학습\ndefinition: 데이터로부터 학습하는 방법")
	th := extract(t, "prefLabel: การเรียนรู้ของเครื่อง\ndefinition: สาขาหนึ่งของปัญญาประดิษฐ์")
	tests := []struct {
		query string
		c     *concept.Concept
		id    string
		rank  concept.Rank
		ok    bool
	}{
		{"neural network", nn, "neural_network", concept.ExactLabel, true},
		{"  NEURAL   network ", nn, "neural_network", concept.ExactLabel, true},
		{"neural_network", nn, "neural_network", concept.ExactLabel, true}, // the id
		{"ann", nn, "neural_network", concept.ExactAltLabel, true},
		{"ml.nn.001", nn, "neural_network", concept.ExactAltLabel, true}, // the notation
		{"neural", nn, "neural_network", concept.LabelPrefix, true},
		{"network neural", nn, "neural_network", concept.LabelWords, true},
		{"neural network", cnn, "cnn", concept.LabelWords, true},
		{"neural net", dl, "deep_learning", concept.AltLabelWords, true},
		{"artificial", nn, "neural_network", concept.AltLabelWords, true},
		{"biological", nn, "neural_network", concept.DefinitionWords, true},
		{"layers", dl, "deep_learning", concept.DefinitionWords, true},
		{"ayers", dl, "deep_learning", 0, false}, // words match at their start only
		{"neural network", reg, "regression", 0, false},
		{"régression", reg, "regression", concept.LabelPrefix, true},
		{"RÉGRESSION ANALYSIS", reg, "regression", concept.ExactLabel, true},
		{"re\u0301gression", reg, "regression", concept.LabelPrefix, true}, // NFD query
		{"---", nn, "neural_network", 0, false},
		// Scripts written without spaces match inside a run of text,
		// ranked as word matches, after exact and prefix label matches.
		{"機械学習", ml, "機械学習", concept.ExactLabel, true},
		{"機械", ml, "機械学習", concept.LabelPrefix, true},
		{"学習", ml, "機械学習", concept.LabelWords, true},
		{"学", ml, "機械学習", concept.LabelWords, true},
		{"ラーニング", ml, "機械学習", concept.AltLabelWords, true},
		{"アルゴリズム", ml, "機械学習", concept.DefinitionWords, true},
		{"学習 研究", ml, "機械学習", concept.DefinitionWords, true},
		{"研究 データ", ml, "機械学習", concept.DefinitionWords, true},
		{"深層学習", ml, "機械学習", 0, false},
		{"학습", ko, "기계학습", concept.LabelWords, true},
		{"방법", ko, "기계학습", concept.DefinitionWords, true},
		{"เรียนรู้", th, "การเรียนรู้ของเครื่อง", concept.LabelWords, true},
		{"ปัญญาประดิษฐ์", th, "การเรียนรู้ของเครื่อง", concept.DefinitionWords, true},
		{"earning", dl, "deep_learning", 0, false}, // spaced scripts still match at word starts only
		{"", nn, "neural_network", 0, false},
	}
	for _, tc := range tests {
		q := concept.NewQuery(tc.query)
		rank, ok := q.Match(tc.c, tc.id)
		if ok != tc.ok || (ok && rank != tc.rank) {
			t.Errorf("%q on %q: %v %v, want %v %v", tc.query, tc.c.PrefLabel, rank, ok, tc.rank, tc.ok)
		}
	}
	if !concept.NewQuery(" \t").Empty() || concept.NewQuery("x").Empty() {
		t.Error("Empty is wrong")
	}
}
