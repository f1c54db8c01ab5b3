package tools_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault/index"
)

// allTools returns every tool tools.All can offer: the index and history
// tools are only listed when their dependencies exist, so stand-ins are
// given (definitions are static; no handler runs here).
func allTools() []server.ServerTool {
	return tools.All(tools.Deps{Index: &index.Index{}, Git: &gitsync.Repo{}})
}

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/schemas")

// TestSchemaSnapshots pins every tool's public definition (name,
// description, input and output schema, annotations): a change to what
// clients see must show up in review as a change to testdata/schemas.
// Run `go test ./tools -update` to accept a change.
func TestSchemaSnapshots(t *testing.T) {
	all := allTools()
	dir := filepath.Join("testdata", "schemas")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, st := range all {
		name := st.Tool.Name
		if seen[name] {
			t.Errorf("tool %s defined twice", name)
		}
		seen[name] = true
		got, err := json.MarshalIndent(st.Tool, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got = append(got, '\n')
		file := filepath.Join(dir, name+".json")
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no snapshot (run go test ./tools -update): %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: definition differs from %s (run go test ./tools -update if intended)\ngot:\n%s", name, file, got)
		}
	}
	// No stale snapshot of a tool that is gone.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()[:len(e.Name())-len(filepath.Ext(e.Name()))]
		if !seen[name] {
			if *update {
				os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("snapshot %s has no tool", e.Name())
		}
	}
}

// Every tool states all four behaviour hints itself: mcp-go's defaults
// (destructive, open world) are wrong for a vault.
func TestAnnotationsExplicit(t *testing.T) {
	for _, st := range allTools() {
		a := st.Tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not all set: %+v", st.Tool.Name, a)
			continue
		}
		if a.Title == "" {
			t.Errorf("%s: no title", st.Tool.Name)
		}
		if *a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive at once", st.Tool.Name)
		}
		if *a.OpenWorldHint {
			t.Errorf("%s: open world, but no tool reaches outside the vault", st.Tool.Name)
		}
		if st.Tool.Description == "" {
			t.Errorf("%s: no description", st.Tool.Name)
		}
		for prop, schema := range st.Tool.InputSchema.Properties {
			m, ok := schema.(map[string]any)
			if !ok || m["description"] == nil || m["description"] == "" {
				t.Errorf("%s: argument %s has no description", st.Tool.Name, prop)
			}
		}
	}
	want := map[string][2]bool{ // readOnly, destructive
		"read_file":        {true, false},
		"list_directory":   {true, false},
		"write_file":       {false, true},
		"edit_file":        {false, true},
		"delete_file":      {false, true},
		"rename_file":      {false, false},
		"create_directory": {false, false},
	}
	for _, st := range allTools() {
		w, ok := want[st.Tool.Name]
		if !ok {
			continue
		}
		a := st.Tool.Annotations
		if *a.ReadOnlyHint != w[0] || *a.DestructiveHint != w[1] {
			t.Errorf("%s: readOnly=%v destructive=%v, want %v %v", st.Tool.Name, *a.ReadOnlyHint, *a.DestructiveHint, w[0], w[1])
		}
	}
}
