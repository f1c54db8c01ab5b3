package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "vaultmcp"

// A pattern names packages of the module without the module's prefix:
// "vault/index" is that package, "gitsync/..." is gitsync and every package
// below it.

// leaves are libraries that know nothing of the vault, git or MCP: every
// package may import them, and they import none of ours.
var leaves = []string{
	"internal/atomicfile",
	"internal/audit",
	"internal/editdist",
	"internal/regularfile",
	"internal/lastread",
	"internal/memlimit",
	"internal/mcpwire/answer",
	"internal/ratelimit",
	"internal/syncfs",
	"internal/tokens",
	"internal/topk",
	"internal/vaultgen",
	"internal/when",
}

// vaultLeaves are the vault's own libraries below the vault package: one
// note's syntax, the access scope, the change feed's type, pure concept
// and date logic. They import no vault package above them.
var vaultLeaves = []string{
	"vault/access",
	"vault/canvas",
	"vault/changes",
	"vault/concept",
	"vault/daily",
	"vault/edit",
	"vault/markdown",
	"vault/pattern",
}

// allowed says, for each of the module's packages, which of the module's
// packages it may import (besides the leaves, which all may). The first
// row whose pattern matches a package applies. A package no row matches
// fails the test: give it a row here and a line in docs/architecture.md.
var allowed = []struct {
	pkg string
	may []string
}{
	// The leaves import none of ours; testutil is for tests only (see
	// TestTestutilOnlyInTests) and imports the leaves at most.
	{"internal/mcpwire/answer", nil},
	{"internal/testutil", nil},
	{"internal/archtest", nil},

	// The vault's leaves: one note's syntax below the rest.
	{"vault/edit", []string{"vault/markdown"}},
	{"vault/canvas", []string{"vault/markdown"}},
	{"vault/access", nil},
	{"vault/changes", nil},
	{"vault/concept", nil},
	{"vault/daily", nil},
	{"vault/markdown", nil},
	{"vault/pattern", nil},

	// vault: the boundary and the changes on disk. It knows nothing of
	// git (gitsync implements vault's hand-off interface and cmd wires
	// them), of the index built over it, or of MCP.
	{"vault", vaultLeaves},

	// The vault's services over the vault: the index and what reads it.
	// They may import each other (in the direction the compiler allows)
	// but nothing above the vault: no git, no tools, no transport.
	{"vault/...", append([]string{"vault", "vault/..."}, vaultLeaves...)},

	// gitsync: its internals import nothing of ours but each other; the
	// history reads the store through an interface, never the Repo; and
	// no part of it knows the vault package or its index (paths are
	// checked with the access scope only).
	{"gitsync/internal/textmerge", nil},
	{"gitsync/internal/store", []string{"gitsync/internal/textmerge"}},
	{"gitsync/history", []string{"gitsync/internal/...", "vault/access"}},
	{"gitsync/...", []string{"gitsync/...", "vault/access", "vault/changes"}},

	// Lower internal packages.
	{"internal/idempotency", nil},
	{"internal/auth", []string{"vault/access"}},
	{"internal/oauth", []string{"internal/auth"}},
	{"internal/config", []string{"vault", "vault/access"}},

	// Built-in guides and prompts: content over the vault.
	{"guides", nil},
	{"prompts", []string{"guides", "vault", "vault/access"}},

	// tools: the work of each MCP tool over the vault, its index and git.
	// It knows no transport.
	{"tools", []string{"vault", "vault/...", "gitsync", "gitsync/history", "guides", "internal/auth", "internal/idempotency"}},

	// The MCP wire: bytes on stdio and the encodings made ahead of time.
	// It knows the tools only as listings handed to it, never package
	// tools.
	{"internal/mcpwire/...", []string{"internal/mcpwire/...", "vault/access", "guides"}},

	// Assembly and transports.
	{"internal/mcpserver", []string{"tools", "prompts", "guides", "vault", "vault/...", "gitsync", "gitsync/history", "internal/mcpwire/..."}},
	{"internal/httpserver", []string{"tools", "vault", "vault/...", "gitsync", "gitsync/history", "internal/mcpserver", "internal/mcpwire/...", "internal/auth", "internal/oauth", "internal/idempotency"}},

	// Commands wire everything; nothing imports them.
	{"cmd/...", []string{"vault", "vault/...", "gitsync", "gitsync/history", "tools", "guides", "prompts",
		"internal/auth", "internal/oauth", "internal/idempotency", "internal/config",
		"internal/mcpserver", "internal/mcpwire/...", "internal/httpserver"}},

	// Test-only and data packages.
	{"e2e", nil},
	{"deploy", nil},
}

// thirdParty keeps two dependencies at their boundary: MCP (mcp-go) in the
// packages that speak it, git (go-git) in gitsync and the commands that
// set a repository up.
var thirdParty = []struct {
	prefix string
	only   []string
}{
	{"github.com/mark3labs/mcp-go", []string{"tools", "prompts", "internal/mcpwire/...", "internal/mcpserver", "internal/httpserver", "cmd/..."}},
	{"github.com/go-git/", []string{"gitsync/...", "cmd/..."}},
}

// matches reports whether the package path (without the module prefix)
// is named by pattern.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, pkg) })
}

// listed is what `go list -json` says of one package.
type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// packages lists the module's packages with `go list`, which applies the
// build constraints of this platform.
func packages(t *testing.T) []listed {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list's output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; run the test from within the module", len(pkgs))
	}
	return pkgs
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// ours returns path without the module prefix, and whether it is one of
// the module's packages.
func ours(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

// check returns the violations of the tables in one package's imports.
func check(pkg string, imports []string) []string {
	var bad []string
	var may []string
	found := false
	for _, row := range allowed {
		if matches(row.pkg, pkg) {
			may, found = row.may, true
			break
		}
	}
	if !found && !slices.Contains(leaves, pkg) {
		return []string{fmt.Sprintf("%s has no row in the import table of internal/archtest: add one (and its line in docs/architecture.md)", pkg)}
	}
	for _, imp := range imports {
		if dep, ok := ours(imp); ok {
			switch {
			case dep == pkg:
			case slices.Contains(leaves, pkg):
				bad = append(bad, fmt.Sprintf("%s imports %s: it is a leaf library and imports none of the module's packages", pkg, dep))
			case matches("cmd/...", dep):
				bad = append(bad, fmt.Sprintf("%s imports %s: nothing imports a command", pkg, dep))
			case dep == "internal/testutil":
				bad = append(bad, fmt.Sprintf("%s imports %s outside its tests: testutil is for tests only", pkg, dep))
			case slices.Contains(leaves, dep) || matchesAny(may, dep):
			default:
				bad = append(bad, fmt.Sprintf("%s imports %s, which it may not (it may import the leaves and %s)", pkg, dep, describe(may)))
			}
			continue
		}
		for _, tp := range thirdParty {
			if strings.HasPrefix(imp, tp.prefix) && !matchesAny(tp.only, pkg) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which only %s may", pkg, imp, strings.Join(tp.only, ", ")))
			}
		}
	}
	return bad
}

func describe(may []string) string {
	if len(may) == 0 {
		return "nothing else of ours"
	}
	return strings.Join(may, ", ")
}

// TestImportDirections fails when a package imports one of the module's
// packages across the direction docs/architecture.md allows, naming the
// package and the import.
func TestImportDirections(t *testing.T) {
	for _, p := range packages(t) {
		pkg, ok := ours(p.ImportPath)
		if !ok || strings.Contains(pkg, "node_modules/") {
			// An npm package installed for the e2e or conformance
			// clients may ship Go files of its own.
			continue
		}
		for _, msg := range check(pkg, p.Imports) {
			t.Error(msg)
		}
	}
}

// TestTestutilOnlyInTests: the shared test helpers are imported by tests
// only (TestImportDirections checks the production imports).
func TestTestutilOnlyInTests(t *testing.T) {
	for _, p := range packages(t) {
		if slices.Contains(p.Imports, module+"/internal/testutil") {
			t.Errorf("%s imports internal/testutil outside its tests", p.ImportPath)
		}
	}
}

// The rules themselves: a forbidden import is reported with the package
// and the import, so a failure says what to move.
func TestCheck(t *testing.T) {
	tests := []struct {
		pkg     string
		imports []string
		want    string // "" for none
	}{
		{"vault", []string{"vaultmcp/vault/access", "vaultmcp/internal/syncfs", "os"}, ""},
		{"vault", []string{"vaultmcp/gitsync"}, "vault imports gitsync, which it may not"},
		{"vault", []string{"vaultmcp/tools"}, "vault imports tools, which it may not"},
		{"vault", []string{"vaultmcp/vault/index"}, "vault imports vault/index, which it may not"},
		{"vault/index", []string{"vaultmcp/vault", "vaultmcp/vault/canvas", "vaultmcp/internal/regularfile"}, ""},
		{"vault/index", []string{"vaultmcp/gitsync"}, "vault/index imports gitsync"},
		{"vault/markdown", []string{"vaultmcp/vault"}, "vault/markdown imports vault, which it may not"},
		{"vault/bases", []string{"vaultmcp/tools"}, "vault/bases imports tools"},
		{"vault/canvas", []string{"vaultmcp/internal/mcpserver"}, "vault/canvas imports internal/mcpserver"},
		{"gitsync", []string{"vaultmcp/vault/index"}, "gitsync imports vault/index"},
		{"gitsync", []string{"vaultmcp/vault"}, "gitsync imports vault, which it may not"},
		{"gitsync", []string{"vaultmcp/gitsync/history", "vaultmcp/gitsync/internal/store", "vaultmcp/vault/access"}, ""},
		{"gitsync/history", []string{"vaultmcp/gitsync"}, "gitsync/history imports gitsync, which it may not"},
		{"gitsync/history", []string{"vaultmcp/gitsync/internal/store"}, ""},
		{"gitsync/internal/store", []string{"vaultmcp/gitsync/internal/textmerge"}, ""},
		{"gitsync/internal/store", []string{"vaultmcp/internal/regularfile", "vaultmcp/internal/syncfs"}, ""},
		{"gitsync/internal/store", []string{"vaultmcp/gitsync"}, "gitsync/internal/store imports gitsync"},
		{"gitsync/internal/textmerge", []string{"vaultmcp/gitsync/internal/store"}, "gitsync/internal/textmerge imports gitsync/internal/store"},
		{"tools", []string{"vaultmcp/internal/httpserver"}, "tools imports internal/httpserver"},
		{"tools", []string{"vaultmcp/internal/mcpserver"}, "tools imports internal/mcpserver"},
		{"tools", []string{"vaultmcp/cmd/vaultmcp"}, "tools imports cmd/vaultmcp: nothing imports a command"},
		{"internal/mcpwire", []string{"vaultmcp/tools"}, "internal/mcpwire imports tools"},
		{"internal/mcpwire", []string{"vaultmcp/internal/mcpwire/answer"}, ""},
		{"internal/atomicfile", []string{"vaultmcp/vault"}, "internal/atomicfile imports vault: it is a leaf library"},
		{"internal/when", []string{"vaultmcp/gitsync"}, "internal/when imports gitsync: it is a leaf library"},
		{"internal/httpserver", []string{"vaultmcp/internal/testutil"}, "testutil is for tests only"},
		{"internal/brandnew", nil, "internal/brandnew has no row"},
		{"vault", []string{"github.com/mark3labs/mcp-go/mcp"}, "vault imports github.com/mark3labs/mcp-go/mcp, which only"},
		{"vault/index", []string{"github.com/go-git/go-git/v5"}, "vault/index imports github.com/go-git/go-git/v5, which only"},
		{"tools", []string{"github.com/mark3labs/mcp-go/mcp"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.pkg+" "+strings.Join(tt.imports, ","), func(t *testing.T) {
			got := check(tt.pkg, tt.imports)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("unexpected violations: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("got %q, want one violation containing %q", got, tt.want)
			}
		})
	}
}

// TestArchitectureDocNamesEveryPackage: docs/architecture.md, the page
// that explains the import table, names every package of the module, so
// a new package gets its line there as well as its row here.
func TestArchitectureDocNamesEveryPackage(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packages(t) {
		pkg, ok := ours(p.ImportPath)
		if !ok || strings.Contains(pkg, "node_modules/") {
			continue
		}
		if !bytes.Contains(doc, []byte("`"+pkg+"`")) {
			t.Errorf("docs/architecture.md does not name package %s (as `%s`): say what it provides and may import", pkg, pkg)
		}
	}
}
