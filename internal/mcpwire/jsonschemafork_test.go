package mcpwire

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJSONSchemaFork fails when the build no longer uses the fork in
// jsonschemafork/ of the version it was made from: when an upgrade of
// mcp-go requires another version of the package, the patch must be
// carried over to that version (jsonschemafork/vaultmcp.patch), or the
// fork dropped if upstream no longer compiles the drafts in init.
func TestJSONSchemaFork(t *testing.T) {
	const (
		module = "github.com/santhosh-tekuri/jsonschema/v6"
		forked = "v6.0.2" // jsonschemafork/README.vaultmcp.md
	)
	out, err := exec.Command("go", "list", "-m", "-json", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v (if mcp-go no longer requires it, drop jsonschemafork and its replace in go.mod)", module, err)
	}
	var m struct {
		Version string
		Replace *struct{ Dir string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go list -m: %v: %s", err, out)
	}
	if m.Version != forked {
		t.Errorf("go.mod requires %s %s, but jsonschemafork is %s patched: apply jsonschemafork/vaultmcp.patch to %s (or drop the fork if upstream compiles its drafts lazily) and update this test", module, m.Version, forked, m.Version)
	}
	dir, err := filepath.Abs("jsonschemafork")
	if err != nil {
		t.Fatal(err)
	}
	if m.Replace == nil || m.Replace.Dir != dir {
		t.Errorf("%s is not replaced by %s in go.mod: the server would pay for its init at every start", module, dir)
	}
}
