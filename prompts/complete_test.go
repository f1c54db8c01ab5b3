package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	folders = []string{"Archive", "Daily Notes", "Projects", "Projects/Webapp", "Projects/Webapp/design", "Resources/Papers", "Été 2026"}
	tags    = []string{"project", "status/active", "meeting", "status/done", "Programming"}
)

func completer() Options {
	return Options{
		Folders: func(context.Context) []string { return folders },
		Tags:    func(context.Context) []string { return tags },
	}
}

// complete sends completion/complete over the wire and returns the answer.
func complete(t *testing.T, o Options, ref, arg, value string) (values []string, total int, hasMore bool) {
	t.Helper()
	params := fmt.Sprintf(`{"ref":%s,"argument":{"name":%q,"value":%q}}`, ref, arg, value)
	resp := rpc(t, newServer(o), "completion/complete", params)
	if e, ok := resp["error"]; ok {
		t.Fatalf("completion/complete %s: protocol error %v", params, e)
	}
	raw, _ := json.Marshal(resp["result"].(map[string]any)["completion"])
	var c struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if c.Values == nil {
		t.Fatalf("values is not an array: %s", raw)
	}
	return c.Values, c.Total, c.HasMore
}

func TestCompletion(t *testing.T) {
	createNote := `{"type":"ref/prompt","name":"obsidian-create-note"}`
	tests := []struct {
		ref, arg, value string
		want            []string
	}{
		{createNote, "note_type", "", []string{"daily", "meeting", "project", "zettel", "literature"}},
		{createNote, "note_type", "m", []string{"meeting"}},
		{createNote, "note_type", "LIT", []string{"literature"}},
		{createNote, "note_type", "e", []string{"meeting", "project", "zettel", "literature"}},
		{createNote, "note_type", "recipe", []string{}},
		{createNote, "folder", "proj", []string{"Projects", "Projects/Webapp", "Projects/Webapp/design"}},
		{createNote, "folder", "/proj", []string{"Projects", "Projects/Webapp", "Projects/Webapp/design"}},
		{createNote, "folder", "web", []string{"Projects/Webapp", "Projects/Webapp/design"}}, // a segment
		{createNote, "folder", "pap", []string{"Resources/Papers"}},
		{createNote, "folder", "otes", []string{"Daily Notes"}}, // inside a word, last
		{createNote, "folder", "n", []string{"Daily Notes", "Projects/Webapp/design"}},
		{createNote, "folder", "ete", []string{"Été 2026"}}, // accents and case fold
		{createNote, "tags", "", []string{"project", "status/active", "meeting", "status/done", "Programming"}},
		{createNote, "tags", "pro", []string{"project", "Programming"}},
		{createNote, "tags", "#pro", []string{"project", "Programming"}},
		{createNote, "tags", "project, st", []string{"project, status/active", "project, status/done"}},
		{createNote, "tags", "project,status/active,", []string{"project,status/active,meeting", "project,status/active,status/done", "project,status/active,Programming"}},
		{createNote, "tags", "done", []string{"status/done"}},
		// Unknown prompt or argument: an empty list, not an error.
		{createNote, "topic", "x", []string{}},
		{createNote, "colour", "", []string{}},
		{`{"type":"ref/prompt","name":"obsidian-conventions"}`, "note_type", "", []string{}},
		{`{"type":"ref/prompt","name":"test_prompt_with_arguments"}`, "arg1", "test", []string{}},
	}
	for _, tt := range tests {
		got, total, more := complete(t, completer(), tt.ref, tt.arg, tt.value)
		if !slices.Equal(got, tt.want) || total != len(tt.want) || more {
			t.Errorf("%s %s=%q: %q (total %d, hasMore %v), want %q", tt.ref, tt.arg, tt.value, got, total, more, tt.want)
		}
	}
	// No sources: nothing to offer, still no error.
	if got, _, _ := complete(t, Options{}, createNote, "folder", "a"); len(got) != 0 {
		t.Errorf("no folders source: %q", got)
	}
}

func TestCompletionCap(t *testing.T) {
	var many []string
	for i := range 250 {
		many = append(many, fmt.Sprintf("folder%03d", i))
	}
	o := Options{Folders: func(context.Context) []string { return many }}
	got, total, more := complete(t, o, `{"type":"ref/prompt","name":"obsidian-create-note"}`, "folder", "fold")
	if len(got) != MaxValues || total != 250 || !more || got[0] != "folder000" {
		t.Errorf("%d values (first %q), total %d, hasMore %v", len(got), got[0], total, more)
	}
}

func TestCompletionPanic(t *testing.T) {
	o := Options{Tags: func(context.Context) []string { panic("index gone") }}
	if got, _, _ := complete(t, o, `{"type":"ref/prompt","name":"obsidian-create-note"}`, "tags", "a"); len(got) != 0 {
		t.Errorf("got %q", got)
	}
}

// Whatever a client types, completion answers without panicking, within
// the limit, and every value keeps what was typed before the last comma.
func FuzzCompleteTags(f *testing.F) {
	for _, s := range []string{"", "pro", "project, st", "a,,#b, ", "\xff,é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		res := completeTags(tags, typed)
		if len(res.Values) > MaxValues || res.Total < len(res.Values) {
			t.Fatalf("%d values, total %d", len(res.Values), res.Total)
		}
		head := typed[:strings.LastIndexByte(typed, ',')+1]
		for _, v := range res.Values {
			if !strings.HasPrefix(v, head) {
				t.Errorf("%q does not keep %q", v, head)
			}
		}
	})
}

// Complete ignores case, accents and Unicode form on both sides and
// returns values as given (a folder stored decomposed comes back
// decomposed, the spelling the file tools accept).
func TestCompleteFoldsAccents(t *testing.T) {
	nfd := norm.NFD.String
	values := []string{"Archive", "Été 2026", nfd("Zettel/Énergie"), "Projets/Café", "한국어", "機械学習"}
	tests := []struct {
		typed string
		want  []string
	}{
		{"ete", []string{"Été 2026"}},
		{"ÉTÉ", []string{"Été 2026"}},
		{nfd("été"), []string{"Été 2026"}},
		{"energ", []string{nfd("Zettel/Énergie")}},
		{"Énergie", []string{nfd("Zettel/Énergie")}},
		{"cafe", []string{"Projets/Café"}},
		{"e", []string{"Été 2026", nfd("Zettel/Énergie"), "Archive", "Projets/Café"}},
		{"한국", []string{"한국어"}},
		{"学習", []string{"機械学習"}},
		{"x", []string{}},
	}
	for _, tt := range tests {
		got := Complete(values, tt.typed).Values
		if !slices.Equal(got, tt.want) {
			t.Errorf("Complete(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// Whatever is typed, in whatever Unicode form, Complete offers the same
// values, within the limit.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{"", "ete", "É", "e\u0301", "\u0301", "한", "学", "\xff"} {
		f.Add(s)
	}
	values := []string{"Été 2026", norm.NFD.String("Zettel/Énergie décomposée"), "Projects", "한국어", "e\u0301\u0301"}
	f.Fuzz(func(t *testing.T, typed string) {
		res := Complete(values, typed)
		if len(res.Values) > MaxValues || res.Total < len(res.Values) {
			t.Fatalf("%d values, total %d", len(res.Values), res.Total)
		}
		if !utf8.ValidString(typed) {
			return
		}
		if other := Complete(values, norm.NFD.String(typed)).Values; !slices.Equal(res.Values, other) {
			t.Errorf("%q offers %q, its NFD form %q", typed, res.Values, other)
		}
	})
}
