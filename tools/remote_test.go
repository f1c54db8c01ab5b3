package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/tools"
)

// named is a field under test: the name an answer gave a file, and the
// file's path in the vault.
type named struct{ got, rel string }

// TestRemoteClientPaths: the answers that name files or the vault by the
// server's absolute paths (file_path, absolute_path, vault_path) keep them
// for a local client, and give a remote one (tools.ForRemoteClient) the
// paths within the vault and the vault's folder name: no answer to it
// holds the vault's absolute path.
func TestRemoteClientPaths(t *testing.T) {
	h, d := mlVault(t, map[string]string{"Notes/Linker.md": "See [[regression]].\n"})
	root := h.root
	yes := true
	calls := []struct {
		tool string
		run  func(ctx context.Context) (any, error)
		// fields lists the answer's file names and the files they name.
		fields func(res any) []named
	}{
		{"get_concept", func(ctx context.Context) (any, error) {
			return tools.Concept(ctx, d, tools.GetConceptArgs{ConceptID: "regression", IncludeRelations: &yes})
		}, func(res any) []named {
			r := res.(*tools.ConceptResult)
			return []named{{r.FilePath, r.Path}}
		}},
		{"expand_context", func(ctx context.Context) (any, error) {
			return tools.ExpandConcept(ctx, d, tools.ExpandContextArgs{ConceptID: "regression"})
		}, func(res any) []named {
			r := res.(*tools.ExpandContextResult)
			out := []named{{r.FocusConcept.FilePath, r.FocusConcept.Path}}
			for _, n := range r.ContextNotes {
				out = append(out, named{n.FilePath, n.Path})
			}
			return out
		}},
		{"search_concepts", func(ctx context.Context) (any, error) {
			return tools.FindConcepts(ctx, d, tools.SearchConceptsArgs{Query: "regression"})
		}, func(res any) []named {
			var out []named
			for _, c := range res.(*tools.SearchConceptsResult).Results {
				out = append(out, named{c.FilePath, c.Path})
			}
			return out
		}},
		{"get_backlinks", func(ctx context.Context) (any, error) {
			return tools.Backlinks(ctx, d, tools.BacklinksArgs{Path: "concepts/regression.md"})
		}, func(res any) []named {
			var out []named
			for _, b := range res.(*tools.BacklinksResult).Backlinks {
				out = append(out, named{b.AbsolutePath, b.File})
			}
			return out
		}},
		{"get_statistics", func(ctx context.Context) (any, error) {
			return tools.Statistics(ctx, d, tools.GetStatisticsArgs{})
		}, func(res any) []named {
			return []named{{res.(*tools.StatisticsResult).VaultPath, ""}}
		}},
	}
	for _, remote := range []bool{false, true} {
		ctx := context.Background()
		if remote {
			ctx = tools.ForRemoteClient(ctx)
		}
		for _, c := range calls {
			res, err := c.run(ctx)
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			fields := c.fields(res)
			if len(fields) < 2 && c.tool != "get_concept" && c.tool != "get_statistics" {
				t.Fatalf("%s: too few files in the answer to test: %v", c.tool, fields)
			}
			for _, f := range fields {
				want := filepath.Join(root, filepath.FromSlash(f.rel))
				switch {
				case remote && f.rel == "":
					want = filepath.Base(root) // the vault itself: its folder's name
				case remote:
					want = f.rel
				}
				if f.got != want {
					t.Errorf("remote=%v: %s names %q as %q, want %q", remote, c.tool, f.rel, f.got, want)
				}
			}
			if b, _ := json.Marshal(res); remote && strings.Contains(string(b), root) {
				t.Errorf("%s answers a remote client with the vault's absolute path: %s", c.tool, b)
			}
		}
	}
}
