// Command vaultbench measures vaultmcp against its performance budget (the
// table in the README's Performance section) on generated vaults and prints each figure beside its budget
// and, where there is one, beside the git CLI or ripgrep doing the same
// work in the same run. `make bench` runs it.
//
// Usage:
//
//	vaultbench [--notes 10000] [--large 100000] [--plain] [--commits 2000] [--only section,section] [--keep]
//
// The vault is a varied one by default (internal/vaultgen's Varied: names
// and prose in six languages and four scripts, deep folders, attachments),
// as real vaults are; --plain measures the plain generated vault instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"vaultmcp/internal/vaultgen"
)

// env is what every section gets: a generated vault (read-only: sections
// that write make their own) and the built server binary.
type env struct {
	notes   int
	commits int  // history length of the history section
	large   int  // notes in the scale section's vault; 0 skips it
	plain   bool // plain generated vaults rather than varied ones
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
	{"rename", benchRename},
	{"notes", benchNotes},
	{"concepts", benchConcepts},
	{"http", benchHTTP},
	{"scale", benchScale},
}

func main() {
	notes := flag.Int("notes", 10000, "notes in the generated vault")
	large := flag.Int("large", 100000, "notes in the scale section's vault (0 skips it)")
	plain := flag.Bool("plain", false, "measure plain generated vaults, not varied ones")
	commits := flag.Int("commits", 2000, "commits in the history section's generated history")
	only := flag.String("only", "", "comma-separated sections to run (default all)")
	keep := flag.Bool("keep", false, "keep the generated vaults")
	flag.Parse()
	if err := run(&env{notes: *notes, large: *large, plain: *plain, commits: *commits}, *only, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "vaultbench:", err)
		os.Exit(1)
	}
}

func run(e *env, only string, keep bool) error {
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
	e.bin, e.tmp = bin, tmp
	if e.vault, err = e.generate("vault", e.notes, 1); err != nil {
		return err
	}

	var want []string
	if only != "" {
		want = strings.Split(only, ",")
	}
	fmt.Println(machine())
	fmt.Println()
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

// generate writes a vault of n notes into the scratch folder name, varied
// unless --plain, and says what it wrote.
func (e *env) generate(name string, n int, seed uint64) (*vaultgen.Vault, error) {
	start := time.Now()
	v, err := vaultgen.Generate(filepath.Join(e.tmp, name), vaultgen.Options{Notes: n, Seed: seed, Varied: !e.plain})
	if err != nil {
		return nil, err
	}
	// A vault this server serves is a git repository: on one that was
	// never committed, every start would first hash and commit all of
	// it in the background, and the figures would measure that.
	if err := gitInit(v.Dir); err != nil {
		return nil, fmt.Errorf("commit the generated vault: %w", err)
	}
	kind := "varied"
	if e.plain {
		kind = "plain"
	}
	fmt.Printf("generated and committed a %s vault of %d notes (%.1f MB, %d attachments of %.1f MB) in %s\n",
		kind, len(v.Paths), float64(v.Bytes)/(1<<20), len(v.Attachments), float64(v.AttachmentBytes)/(1<<20), time.Since(start).Round(time.Millisecond))
	return v, nil
}

// rareName is a note name linked from a handful of notes, for searches:
// in a varied vault a Greek one, so case-insensitive matching meets
// letters beyond ASCII.
func (e *env) rareName() string {
	if e.plain {
		return e.vault.Name(1234)
	}
	return e.vault.Name(1237)
}

// machine describes where the figures come from: cores, CPU model, load.
func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	load := "?"
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	return fmt.Sprintf("machine: %d cores (%s), %s, load average %s at start", runtime.NumCPU(), model, runtime.Version(), load)
}
