package guides

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		topic, noteType string
		want            []string // substrings of the answer
		not             []string
	}{
		{Conventions, "", []string{"# Vault conventions", "[[Note|shown text]]", "![[Note#Heading]]", "^cache-rule", "> [!note]", "#status/active"}, nil},
		{SearchStrategy, "", []string{"# Search strategy", "`grep`", "`search_files`", "`find_files`", "`get_backlinks`", "`expand_context`"}, nil},
		{CreateNote, "", []string{"# New note: zettel"}, nil},
		{CreateNote, "daily", []string{"# New note: daily", "## Log"}, nil},
		{CreateNote, "meeting", []string{"# New note: meeting", "## Action items"}, nil},
		{CreateNote, "project", []string{"# New note: project", "status: active"}, nil},
		{CreateNote, "zettel", []string{"# New note: zettel"}, nil},
		{CreateNote, "literature", []string{"# New note: literature", "#^point-1"}, nil},
		{Conventions, "daily", []string{"# Vault conventions"}, []string{"# New note"}}, // a valid type is ignored
		{All, "", []string{"# Vault conventions", "# New note: daily", "# New note: meeting", "# New note: project",
			"# New note: zettel", "# New note: literature", "# Search strategy"}, nil},
		{All, "meeting", []string{"# Vault conventions", "# New note: meeting", "# Search strategy"}, []string{"# New note: daily"}},
	}
	for _, tt := range tests {
		got, err := Lookup(tt.topic, tt.noteType, nil)
		if err != nil {
			t.Errorf("Lookup(%q, %q): %v", tt.topic, tt.noteType, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Lookup(%q, %q) lacks %q", tt.topic, tt.noteType, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("Lookup(%q, %q) has %q", tt.topic, tt.noteType, n)
			}
		}
	}
}

func TestLookupErrors(t *testing.T) {
	tests := []struct {
		topic, noteType string
		kind            error
		want            string
	}{
		{"", "", ErrUnknownTopic, `unknown guide topic ""; valid topics: conventions, create-note, search-strategy, all`},
		{"Conventions", "", ErrUnknownTopic, `unknown guide topic "Conventions"; valid topics: conventions, create-note, search-strategy, all`},
		{"templates", "", ErrUnknownTopic, `valid topics: conventions, create-note, search-strategy, all`},
		{CreateNote, "recipe", ErrUnknownNoteType, `unknown note type "recipe"; valid note types: daily, meeting, project, zettel, literature`},
		{Conventions, "Daily", ErrUnknownNoteType, `valid note types: daily, meeting, project, zettel, literature`},
		{All, "x", ErrUnknownNoteType, `unknown note type "x"`},
	}
	for _, tt := range tests {
		_, err := Lookup(tt.topic, tt.noteType, nil)
		if !errors.Is(err, tt.kind) || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Lookup(%q, %q) = %v, want %v mentioning %q", tt.topic, tt.noteType, err, tt.kind, tt.want)
		}
	}
}

// brokenFS fails every read with something other than "not found".
type brokenFS struct{}

func (brokenFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

func TestOverride(t *testing.T) {
	over := fstest.MapFS{
		"conventions.md":       {Data: []byte("# Our conventions\nKebab-case everything.\n")},
		"create-note/daily.md": {Data: []byte("# Our daily note\n")},
		"search-strategy.md":   {Data: []byte(" \n\t\n")}, // blank: the built-in one stays
	}
	tests := []struct {
		topic, noteType string
		override        fs.FS
		want, not       string
	}{
		{Conventions, "", over, "Kebab-case everything.", "# Vault conventions"},
		{CreateNote, "daily", over, "# Our daily note", "## Log"},
		{CreateNote, "meeting", over, "# New note: meeting", ""},
		{SearchStrategy, "", over, "# Search strategy", ""},
		{All, "", over, "Kebab-case everything.", "# Vault conventions"},
		{Conventions, "", brokenFS{}, "# Vault conventions", ""},
		{Conventions, "", fstest.MapFS{}, "# Vault conventions", ""},
	}
	for _, tt := range tests {
		got, err := Lookup(tt.topic, tt.noteType, tt.override)
		if err != nil {
			t.Errorf("Lookup(%q, %q): %v", tt.topic, tt.noteType, err)
			continue
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("Lookup(%q, %q) lacks %q:\n%s", tt.topic, tt.noteType, tt.want, got)
		}
		if tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("Lookup(%q, %q) still has the built-in %q", tt.topic, tt.noteType, tt.not)
		}
	}
	all, _ := Lookup(All, "", over)
	if !strings.Contains(all, "# Our daily note") || !strings.Contains(all, "# New note: zettel") {
		t.Errorf("all mixes overrides and built-ins wrongly:\n%s", all)
	}
}

// Every file Lookup can ask for is embedded, and every embedded file is
// reachable through Lookup.
func TestEveryGuideEmbedded(t *testing.T) {
	reached := map[string]bool{}
	for _, topic := range Topics() {
		for _, nt := range append(NoteTypes(), "") {
			if _, err := Lookup(topic, nt, nil); err != nil {
				t.Errorf("Lookup(%q, %q): %v", topic, nt, err)
			}
		}
	}
	reached[Conventions+".md"], reached[SearchStrategy+".md"] = true, true
	for _, nt := range NoteTypes() {
		reached[templateFile(nt)] = true
	}
	err := fs.WalkDir(builtin, "builtin", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if name := strings.TrimPrefix(p, "builtin/"); !reached[name] {
			t.Errorf("embedded %s is never served", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	fence       = regexp.MustCompile("(?s)```markdown\n(.*?)\n```")
	frontmatter = regexp.MustCompile(`(?s)\A---\n(.*?)\n---\n`)
)

// The templates are what agents copy: each holds one Markdown template
// whose properties are valid YAML, with tags written without '#' and
// links quoted (unquoted, YAML reads [[X]] as a nested list and Obsidian
// shows no link).
func TestTemplatesAreValidObsidian(t *testing.T) {
	for _, nt := range NoteTypes() {
		text, err := Lookup(CreateNote, nt, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := fence.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: no ```markdown template", nt)
			continue
		}
		fm := frontmatter.FindStringSubmatch(m[1])
		if fm == nil {
			t.Errorf("%s: template does not start with --- properties ---", nt)
			continue
		}
		var props map[string]any
		if err := yaml.Unmarshal([]byte(fm[1]), &props); err != nil {
			t.Errorf("%s: properties are not YAML: %v", nt, err)
			continue
		}
		tags, ok := props["tags"].([]any)
		if !ok || len(tags) == 0 {
			t.Errorf("%s: tags is not a list: %v", nt, props["tags"])
			continue
		}
		for _, tag := range tags {
			if s, _ := tag.(string); strings.HasPrefix(s, "#") || s == "" {
				t.Errorf("%s: tag %v in properties", nt, tag)
			}
		}
		if tags[0] != nt {
			t.Errorf("%s: first tag %v, want the note type", nt, tags[0])
		}
		for key, val := range props {
			checkNoBareLink(t, nt+"."+key, val)
		}
	}
}

// checkNoBareLink fails on a nested list, which is what an unquoted
// [[link]] becomes in YAML.
func checkNoBareLink(t *testing.T, where string, val any) {
	t.Helper()
	list, ok := val.([]any)
	if !ok {
		return
	}
	for _, item := range list {
		if _, nested := item.([]any); nested {
			t.Errorf("%s: unquoted [[link]] in properties", where)
		}
	}
}

// The conventions guide's own examples must be right: its properties
// block parses, and the callout types it lists are Obsidian's.
func TestConventionsExamples(t *testing.T) {
	text, _ := Lookup(Conventions, "", nil)
	m := regexp.MustCompile("(?s)```yaml\n---\n(.*?)\n---\n```").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no properties example")
	}
	var props map[string]any
	if err := yaml.Unmarshal([]byte(m[1]), &props); err != nil {
		t.Fatalf("properties example is not YAML: %v", err)
	}
	if props["related"] != "[[Design System]]" {
		t.Errorf("related = %#v, want the quoted link", props["related"])
	}
	for _, callout := range []string{"note", "abstract", "info", "todo", "tip", "success", "question",
		"warning", "failure", "danger", "bug", "example", "quote"} {
		if !strings.Contains(text, "`"+callout+"`") {
			t.Errorf("callout type %s not listed", callout)
		}
	}
}
