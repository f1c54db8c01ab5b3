// Command vaultbench measures vaultmcp against the performance budget in
// DESIGN.md on generated vaults and prints each figure beside its budget
// and, where there is one, beside the git CLI or ripgrep doing the same
// work in the same run. `make bench` runs it.
//
// Usage:
//
//	vaultbench [--notes 10000] [--commits 2000] [--only section,section] [--keep]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vaultmcp/internal/vaultgen"
)

// env is what every section gets: a generated vault (read-only: sections
// that write make their own) and the built server binary.
type env struct {
	notes   int
	commits int // history length of the history section
	vault   *vaultgen.Vault
	bin     string
	tmp     string // scratch space, removed at exit unless --keep
}

// section measures one area of the budget.
type section struct {
	name string
	run  func(ctx context.Context, e *env) ([]figure, error)
}

// sections lists every area measured, in the order printed.
var sections = []section{
	{"startup", benchStartup},
	{"index", benchIndex},
	{"git", benchGit},
	{"history", benchHistory},
	{"search", benchSearch},
	{"notes", benchNotes},
	{"concepts", benchConcepts},
	{"http", benchHTTP},
}

func main() {
	notes := flag.Int("notes", 10000, "notes in the generated vault")
	commits := flag.Int("commits", 2000, "commits in the history section's generated history")
	only := flag.String("only", "", "comma-separated sections to run (default all)")
	keep := flag.Bool("keep", false, "keep the generated vaults")
	flag.Parse()
	if err := run(*notes, *commits, *only, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "vaultbench:", err)
		os.Exit(1)
	}
}

func run(notes, commits int, only string, keep bool) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "vaultbench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("vaults kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "vaultmcp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vaultmcp")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build vaultmcp: %w", err)
	}
	start := time.Now()
	v, err := vaultgen.Generate(filepath.Join(tmp, "vault"), vaultgen.Options{Notes: notes, Seed: 1})
	if err != nil {
		return err
	}
	fmt.Printf("generated %d notes (%.1f MB) in %s\n\n", len(v.Paths), float64(v.Bytes)/(1<<20), time.Since(start).Round(time.Millisecond))
	e := &env{notes: notes, commits: commits, vault: v, bin: bin, tmp: tmp}

	var want []string
	if only != "" {
		want = strings.Split(only, ",")
	}
	printHeader()
	failed := false
	for _, s := range sections {
		if want != nil && !slices.Contains(want, s.name) {
			continue
		}
		figs, err := s.run(ctx, e)
		for _, f := range figs {
			f.print()
		}
		if err != nil {
			fmt.Printf("  %s: error: %v\n", s.name, err)
			failed = true
		}
	}
	if failed {
		return fmt.Errorf("some sections failed")
	}
	return nil
}
