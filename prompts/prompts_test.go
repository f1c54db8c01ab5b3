package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/guides"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newServer serves the prompts and their completion as the real server
// does, for tests that look at what goes over the wire.
func newServer(o Options) *server.MCPServer {
	o.Logger = quiet
	s := server.NewMCPServer("t", "0", server.WithCompletions(), server.WithPromptCompletionProvider(NewCompleter(o)))
	s.AddPrompts(All(o)...)
	return s
}

func rpc(t *testing.T, s *server.MCPServer, method, params string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	raw, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// getPrompt returns the prompt's description and its one message's text,
// or the protocol error's message.
func getPrompt(t *testing.T, s *server.MCPServer, name string, args map[string]string) (desc, text, errMsg string) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	resp := rpc(t, s, "prompts/get", string(params))
	if e, ok := resp["error"].(map[string]any); ok {
		return "", "", e["message"].(string)
	}
	res := resp["result"].(map[string]any)
	msgs := res["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("%s: %d messages", name, len(msgs))
	}
	m := msgs[0].(map[string]any)
	if m["role"] != "user" {
		t.Errorf("%s: role %v", name, m["role"])
	}
	content := m["content"].(map[string]any)
	if content["type"] != "text" {
		t.Errorf("%s: content type %v", name, content["type"])
	}
	return res["description"].(string), content["text"].(string), ""
}

func TestList(t *testing.T) {
	resp := rpc(t, newServer(Options{}), "prompts/list", `{}`)
	list := resp["result"].(map[string]any)["prompts"].([]any)
	type arg struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	}
	var got []string
	for _, p := range list {
		raw, _ := json.Marshal(p)
		var prompt struct {
			Name, Title, Description string
			Arguments                []arg
		}
		if err := json.Unmarshal(raw, &prompt); err != nil {
			t.Fatal(err)
		}
		if prompt.Description == "" || prompt.Title == "" {
			t.Errorf("%s: no description or title", prompt.Name)
		}
		var args []string
		for _, a := range prompt.Arguments {
			args = append(args, fmt.Sprintf("%s:%v", a.Name, a.Required))
		}
		got = append(got, prompt.Name+"("+strings.Join(args, ",")+")")
	}
	want := []string{"obsidian-conventions()", "obsidian-create-note(topic:true,note_type:false,folder:false,tags:false)", "obsidian-search-strategy()"}
	if !slices.Equal(got, want) {
		t.Errorf("prompts/list = %q, want %q", got, want)
	}
}

func TestGuidePrompts(t *testing.T) {
	s := newServer(Options{})
	for name, topic := range map[string]string{Conventions: guides.Conventions, SearchStrategy: guides.SearchStrategy} {
		want, _ := guides.Lookup(topic, "", nil)
		desc, text, errMsg := getPrompt(t, s, name, nil)
		if errMsg != "" || text != want || desc == "" {
			t.Errorf("%s: %q %q, want the %s guide", name, errMsg, desc, topic)
		}
		if _, _, errMsg := getPrompt(t, s, name, map[string]string{"topic": "x"}); errMsg != `prompt `+name+`: unknown argument "topic" (it takes no arguments)` {
			t.Errorf("%s with an argument: %q", name, errMsg)
		}
	}
}

func TestCreateNotePrompt(t *testing.T) {
	s := newServer(Options{})
	_, text, errMsg := getPrompt(t, s, CreateNote, map[string]string{"topic": "Spaced repetition"})
	zettel, _ := guides.Lookup(guides.CreateNote, "zettel", nil)
	if errMsg != "" || !strings.HasPrefix(text, "Create a new zettel note in the Obsidian vault about: Spaced repetition\n") ||
		!strings.HasSuffix(text, zettel) || !strings.Contains(text, "get_claude_context") {
		t.Errorf("default: %q\n%s", errMsg, text)
	}
	_, text, errMsg = getPrompt(t, s, CreateNote, map[string]string{
		"topic": "Webapp planning", "note_type": "meeting", "folder": "/Meetings/2026/", "tags": "meeting, #project/webapp, ,",
	})
	meeting, _ := guides.Lookup(guides.CreateNote, "meeting", nil)
	for _, want := range []string{
		"Create a new meeting note in the Obsidian vault about: Webapp planning\n",
		"Put it in the folder `Meetings/2026/`.\n",
		"Give it these tags (in the `tags` property, without #): meeting, project/webapp.\n",
		meeting,
	} {
		if errMsg != "" || !strings.Contains(text, want) {
			t.Errorf("meeting: %q lacks %q", errMsg, want)
		}
	}

	errs := []struct {
		args map[string]string
		want string
	}{
		{nil, `prompt obsidian-create-note: missing required argument "topic"`},
		{map[string]string{"topic": "  "}, `missing required argument "topic"`},
		{map[string]string{"topic": "x", "note_type": "recipe"}, `argument "note_type": unknown note type "recipe"; valid note types: daily, meeting, project, zettel, literature`},
		{map[string]string{"topic": "x", "colour": "red"}, `unknown argument "colour" (it takes arguments: topic, note_type, folder, tags)`},
	}
	for _, e := range errs {
		if _, _, errMsg := getPrompt(t, s, CreateNote, e.args); !strings.Contains(errMsg, e.want) {
			t.Errorf("%v: error %q, want %q", e.args, errMsg, e.want)
		}
	}
	if _, _, errMsg := getPrompt(t, s, "obsidian-nope", nil); !strings.Contains(errMsg, "not found") {
		t.Errorf("unknown prompt: %q", errMsg)
	}
}

// The prompts read the vault's own guides, as get_obsidian_guide does.
func TestPromptOverrides(t *testing.T) {
	s := newServer(Options{Guides: fstest.MapFS{
		"conventions.md":       {Data: []byte("# Our rules\n")},
		"create-note/daily.md": {Data: []byte("# Our daily template\n")},
	}})
	if _, text, _ := getPrompt(t, s, Conventions, nil); text != "# Our rules\n" {
		t.Errorf("conventions: %q", text)
	}
	if _, text, _ := getPrompt(t, s, CreateNote, map[string]string{"topic": "today", "note_type": "daily"}); !strings.HasSuffix(text, "# Our daily template\n") {
		t.Errorf("daily: %q", text)
	}
}

type panicFS struct{}

func (panicFS) Open(string) (fs.File, error) { panic("disk on fire") }

// A panic in a prompt handler is an error answer; the server goes on.
func TestPromptPanic(t *testing.T) {
	s := newServer(Options{Guides: panicFS{}})
	for _, name := range []string{Conventions, SearchStrategy} {
		if _, _, errMsg := getPrompt(t, s, name, nil); errMsg != "internal error in prompt "+name+"; the server logged the details" {
			t.Errorf("%s: %q", name, errMsg)
		}
	}
	if _, _, errMsg := getPrompt(t, s, CreateNote, map[string]string{"topic": "x"}); !strings.Contains(errMsg, "internal error") {
		t.Errorf("create-note: %q", errMsg)
	}
	if resp := rpc(t, s, "ping", `{}`); resp["result"] == nil {
		t.Errorf("server gone after a panic: %v", resp)
	}
}
