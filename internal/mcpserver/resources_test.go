package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/text/unicode/norm"
)

func TestNoteURI(t *testing.T) {
	tests := []struct{ rel, uri string }{
		{"a.md", "vault:///a.md"},
		{"Daily Notes/2026-02-08.md", "vault:///Daily%20Notes/2026-02-08.md"},
		{"q/what?#1 100%.md", "vault:///q/what%3F%231%20100%25.md"},
		{"Ünïcode/ß.md", "vault:///%C3%9Cn%C3%AFcode/%C3%9F.md"},
		{"a+b=c&d.md", "vault:///a+b=c&d.md"},
	}
	for _, tt := range tests {
		if got := NoteURI(tt.rel); got != tt.uri {
			t.Errorf("NoteURI(%q) = %q, want %q", tt.rel, got, tt.uri)
		}
		if got, err := NotePath(tt.uri); err != nil || got != tt.rel {
			t.Errorf("NotePath(%q) = %q, %v", tt.uri, got, err)
		}
	}
	for _, bad := range []string{"", "vault://a.md", "file:///a.md", "vault:///", "vault:///a%zz", "vault:///a?x=1", "vault:///a#h"} {
		if _, err := NotePath(bad); err == nil {
			t.Errorf("NotePath(%q) accepted", bad)
		}
	}
}

// fuzz: whatever a client sends, NotePath never panics, and a path it
// returns maps back to the same URI's meaning.
func FuzzNotePath(f *testing.F) {
	for _, s := range []string{"vault:///a.md", "vault:///%2e%2e/x", "vault:///a/../../b", "vault:///%00", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		rel, err := NotePath(uri)
		if err != nil {
			return
		}
		if back, err := NotePath(NoteURI(rel)); err != nil || back != rel {
			t.Errorf("%q -> %q -> %q (%v)", uri, rel, back, err)
		}
	})
}

func listAll(t *testing.T, cn *conn) (uris []string, pages int, byURI map[string]mcp.Resource) {
	t.Helper()
	ctx, cancel := cn.ctx()
	defer cancel()
	byURI = map[string]mcp.Resource{}
	var req mcp.ListResourcesRequest
	for {
		res, err := cn.c.ListResourcesByPage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(res.Resources) > PageSize {
			t.Errorf("page of %d resources", len(res.Resources))
		}
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
			byURI[r.URI] = r
		}
		if res.NextCursor == "" {
			return uris, pages, byURI
		}
		req.Params.Cursor = res.NextCursor
	}
}

func TestResourcesList(t *testing.T) {
	files := map[string]string{
		"Welcome.md":            "# hi\n",
		"Daily Notes/a b.md":    "x\n",
		"attachments/pic.png":   "\x89PNG\r\n\x1a\n",
		".obsidian/app.json":    "{}\n",
		".trash/old.md":         "old\n",
		".claude/secret.md":     "hidden\n",
		"notes/.hidden.md":      "dot\n",
		".vaultmcp/guides/x.md": "guide\n",
	}
	for i := range 450 {
		files[fmt.Sprintf("bulk/n%03d.md", i)] = "x\n"
	}
	r := newRig(t, files)
	cn := r.connect("2025-11-25")
	if cn.init.Capabilities.Resources == nil || !cn.init.Capabilities.Resources.Subscribe || !cn.init.Capabilities.Resources.ListChanged {
		t.Fatalf("resources capability: %+v", cn.init.Capabilities.Resources)
	}
	uris, pages, byURI := listAll(t, cn)
	if pages != 3 || len(uris) != 453 {
		t.Errorf("%d resources in %d pages, want 453 in 3", len(uris), pages)
	}
	if !slices.IsSorted(uris) || len(slices.Compact(slices.Clone(uris))) != len(uris) {
		t.Errorf("resources not sorted or repeated")
	}
	for _, u := range uris {
		if strings.Contains(u, "vault:///.") || strings.Contains(u, "/.") {
			t.Errorf("dot-file listed: %s", u)
		}
	}
	want := map[string][3]string{ // name, title, mime
		"vault:///Welcome.md":             {"Welcome.md", "Welcome", "text/markdown"},
		"vault:///Daily%20Notes/a%20b.md": {"Daily Notes/a b.md", "a b", "text/markdown"},
		"vault:///attachments/pic.png":    {"attachments/pic.png", "pic.png", "image/png"},
	}
	for uri, w := range want {
		got, ok := byURI[uri]
		if !ok {
			t.Errorf("%s not listed", uri)
			continue
		}
		if got.Name != w[0] || got.Title != w[1] || got.MIMEType != w[2] {
			t.Errorf("%s: %+v", uri, got)
		}
	}

	// A cursor stays valid while files come and go.
	ctx, cancel := cn.ctx()
	defer cancel()
	first, err := cn.c.ListResourcesByPage(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	r.write("bulk/n000-new.md", "x\n") // sorts into the first page
	r.publish("bulk/n000-new.md")
	var req mcp.ListResourcesRequest
	req.Params.Cursor = first.NextCursor
	second, err := cn.c.ListResourcesByPage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if second.Resources[0].URI <= first.Resources[len(first.Resources)-1].URI {
		t.Errorf("second page starts at %s, before the end of the first", second.Resources[0].URI)
	}

	// A cursor that is not ours is a protocol error (invalid params).
	raw := rawRPC(t, r, "resources/list", `{"cursor":"%%%"}`)
	if e, ok := raw["error"].(map[string]any); !ok || e["code"] != float64(mcp.INVALID_PARAMS) {
		t.Errorf("bad cursor: %v", raw)
	}

	templates, err := cn.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(templates.ResourceTemplates) != 1 {
		t.Fatalf("templates: %+v, %v", templates, err)
	}
	tpl := templates.ResourceTemplates[0]
	if tpl.URITemplate.Raw() != NoteTemplate || tpl.Name == "" || tpl.Description == "" {
		t.Errorf("template %+v", tpl)
	}
}

// rawRPC sends one request without a session, as a stateless client
// would.
func rawRPC(t *testing.T, r *rig, method, params string) map[string]any {
	t.Helper()
	initialize(t, r.s)
	return send(t, r.s, 7, method, params)
}

func readResource(t *testing.T, cn *conn, uri string) (*mcp.ReadResourceResult, error) {
	t.Helper()
	ctx, cancel := cn.ctx()
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	return cn.c.ReadResource(ctx, req)
}

func TestResourcesRead(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 20)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "secret.md")
	if err := os.WriteFile(secret, []byte("server secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, map[string]string{
		"Daily Notes/2026-02-08.md": "# Today\n[[Link]]\n",
		"q/what?#1 100%.md":         "odd name\n",
		"Ünïcode.md":                "unicode\n",
		"attachments/pic.png":       png,
		"attachments/notes.txt":     "plain\n",
		"attachments/data.bin":      "\x00\x01\x02\xff",
		"attachments/huge.png":      strings.Repeat("\x00", 3<<20),
		"big.md":                    strings.Repeat("é", 2000),
		"folder/inner.md":           "x\n",
		".obsidian/app.json":        "{}\n",
		".trash/old.md":             "old\n",
	}, withMaxResult(3000)) // text up to 1,976 bytes, blobs up to 1,482
	if err := os.Symlink(secret, filepath.Join(r.root, "escape.md")); err != nil {
		t.Fatal(err)
	}
	cn := r.connect("2025-11-25")

	texts := []struct{ uri, mime, text string }{
		{"vault:///Daily%20Notes/2026-02-08.md", "text/markdown", "# Today\n[[Link]]\n"},
		{"vault:///q/what%3F%231%20100%25.md", "text/markdown", "odd name\n"},
		{"vault:///%C3%9Cn%C3%AFcode.md", "text/markdown", "unicode\n"},
		{"vault:///attachments/notes.txt", "text/plain", "plain\n"},
	}
	for _, tt := range texts {
		res, err := readResource(t, cn, tt.uri)
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		c, ok := res.Contents[0].(mcp.TextResourceContents)
		if len(res.Contents) != 1 || !ok || c.URI != tt.uri || c.MIMEType != tt.mime || c.Text != tt.text {
			t.Errorf("%s: %+v", tt.uri, res.Contents)
		}
	}

	blobs := []struct{ uri, mime, data string }{
		{"vault:///attachments/pic.png", "image/png", png},
		{"vault:///attachments/data.bin", "application/octet-stream", "\x00\x01\x02\xff"},
	}
	for _, tt := range blobs {
		res, err := readResource(t, cn, tt.uri)
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		c, ok := res.Contents[0].(mcp.BlobResourceContents)
		data, _ := base64.StdEncoding.DecodeString(c.Blob)
		if !ok || c.URI != tt.uri || c.MIMEType != tt.mime || !bytes.Equal(data, []byte(tt.data)) {
			t.Errorf("%s: %+v", tt.uri, res.Contents)
		}
	}

	// Text past the read limit is cut on a rune boundary, with a notice.
	res, err := readResource(t, cn, "vault:///big.md")
	if err != nil {
		t.Fatal(err)
	}
	text := res.Contents[0].(mcp.TextResourceContents).Text
	if !strings.HasPrefix(text, strings.Repeat("é", 988)+"\n\n[... truncated: showing the first 1.9 KB of 3.9 KB") {
		t.Errorf("big.md: %q", text)
	}

	errs := []struct{ uri, want string }{
		{"vault:///attachments/huge.png", "is 3.0 MB, more than the 1.4 KB a resource read returns"},
		{"vault:///missing.md", "resource not found: vault:///missing.md"},
		{"vault:///folder", "is a folder"},
		{"vault:///..%2Fescape.md", "outside the vault"},
		{"vault:///escape.md", "outside the vault"},
		{"vault:///.obsidian/app.json", "resource not found"},
		{"vault:///.trash/old.md", "resource not found"},
		{"vault:///.git/config", "hidden"},
		{"vault:///a%00b.md", "NUL"},
		{"test://nonexistent-resource-for-conformance-testing", "not found"},
	}
	for _, tt := range errs {
		_, err := readResource(t, cn, tt.uri)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.uri, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), r.root) {
			t.Errorf("%s: error leaks the vault's path: %v", tt.uri, err)
		}
	}
}

func TestResourceCompletion(t *testing.T) {
	r := newRig(t, map[string]string{
		"Daily Notes/2026-02-08.md": "x", "Daily Notes/2026-02-09.md": "x", "Projects/Webapp/README.md": "#project #status/active",
		"Projects/Mobile/README.md": "#project", ".obsidian/app.json": "{}",
		norm.NFD.String("Été 2026/Énergie.md"): "x", // stored decomposed, as macOS writes it
	})
	cn := r.connect("2025-11-25")
	complete := func(ref any, arg, value string) []string {
		t.Helper()
		ctx, cancel := cn.ctx()
		defer cancel()
		var req mcp.CompleteRequest
		req.Params.Ref = ref
		req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		res, err := cn.c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("complete %v %s=%q: %v", ref, arg, value, err)
		}
		return res.Completion.Values
	}
	note := mcp.ResourceReference{Type: "ref/resource", URI: NoteTemplate}
	createNote := mcp.PromptReference{Type: "ref/prompt", Name: "obsidian-create-note"}
	tests := []struct {
		ref        any
		arg, value string
		want       []string
	}{
		{note, "path", "daily", []string{"Daily Notes/2026-02-08.md", "Daily Notes/2026-02-09.md"}},
		{note, "path", "readme", []string{"Projects/Mobile/README.md", "Projects/Webapp/README.md"}},
		{note, "path", "app.json", []string{}},
		{note, "other", "x", []string{}},
		{mcp.ResourceReference{Type: "ref/resource", URI: "test://template/{id}/data"}, "id", "", []string{}},
		{createNote, "folder", "proj", []string{"Projects", "Projects/Mobile", "Projects/Webapp"}},
		{createNote, "folder", "web", []string{"Projects/Webapp"}},
		// Accents, case and Unicode form fold; the value is the name as stored.
		{createNote, "folder", "ete", []string{norm.NFD.String("Été 2026")}},
		{createNote, "folder", "Été", []string{norm.NFD.String("Été 2026")}},
		{note, "path", "énergie", []string{norm.NFD.String("Été 2026/Énergie.md")}},
		{createNote, "tags", "", []string{"project", "status/active"}},
		{createNote, "tags", "project, s", []string{"project, status/active"}},
		{createNote, "note_type", "z", []string{"zettel"}},
		{mcp.PromptReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test", []string{}},
	}
	for _, tt := range tests {
		if got := complete(tt.ref, tt.arg, tt.value); !slices.Equal(got, tt.want) {
			t.Errorf("%v %s=%q: %q, want %q", tt.ref, tt.arg, tt.value, got, tt.want)
		}
	}
	// On the wire, an empty answer is an array, as clients require.
	resp := rawRPC(t, r, "completion/complete", `{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}`)
	raw, _ := json.Marshal(resp["result"])
	if string(raw) != `{"completion":{"values":[]}}` {
		t.Errorf("empty completion on the wire: %s", raw)
	}
}

// Prompts are served through the assembled server, from the same guides
// as the tool, and fail cleanly.
func TestPromptsThroughServer(t *testing.T) {
	r := newRig(t, map[string]string{".vaultmcp/guides/search-strategy.md": "# Our search rules\n"})
	cn := r.connect("2025-11-25")
	ctx, cancel := cn.ctx()
	defer cancel()
	list, err := cn.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(list.Prompts) != 3 {
		t.Fatalf("prompts/list: %+v, %v", list, err)
	}
	var req mcp.GetPromptRequest
	req.Params.Name = "obsidian-search-strategy"
	res, err := cn.c.GetPrompt(ctx, req)
	if err != nil || res.Messages[0].Content.(mcp.TextContent).Text != "# Our search rules\n" {
		t.Errorf("search strategy prompt: %+v, %v", res, err)
	}
	req.Params.Name = "obsidian-create-note"
	if _, err := cn.c.GetPrompt(ctx, req); err == nil || !strings.Contains(err.Error(), `missing required argument "topic"`) {
		t.Errorf("create-note without a topic: %v", err)
	}
}
