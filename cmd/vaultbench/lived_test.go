package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/vaultgen"
)

// gitInitLived leaves the vault's files as generated, committed at the end
// of a history of livedCommits commits after the first that adds, renames,
// edits and deletes notes, the same history for the same seed.
func TestGitInitLived(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	const notes = 1000
	opts := vaultgen.Options{Notes: notes, Seed: 2, Varied: true, ExtraBrokenNames: extraBrokenNames}
	lived := func(dir string) *vaultgen.Vault {
		v, err := vaultgen.Generate(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := gitInitLived(v, opts.Seed); err != nil {
			t.Fatal(err)
		}
		t.Logf("history of a %d-note vault written in %s", notes, time.Since(start).Round(time.Millisecond))
		return v
	}
	a, b := lived(filepath.Join(t.TempDir(), "a")), lived(filepath.Join(t.TempDir(), "b"))
	fresh, err := vaultgen.Generate(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, rel := range fresh.Paths {
		want, err := os.ReadFile(filepath.Join(fresh.Dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(a.Dir, filepath.FromSlash(a.Paths[i])))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s is not as generated (%v)", rel, err)
		}
	}
	run := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, gitEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	if n, _ := strconv.Atoi(run(a.Dir, "rev-list", "--count", "HEAD")); n != 1+livedCommits {
		t.Errorf("%d commits, want %d", n, 1+livedCommits)
	}
	if got := run(a.Dir, "ls-files"); len(strings.Split(got, "\n")) != notes+len(a.Attachments)+3 {
		t.Errorf("%d files committed, want the %d notes, %d attachments and 3 others", len(strings.Split(got, "\n")), notes, len(a.Attachments))
	}
	if st := run(a.Dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	if ha, hb := run(a.Dir, "rev-parse", "HEAD"), run(b.Dir, "rev-parse", "HEAD"); ha != hb {
		t.Errorf("two histories of the same vault and seed end at %s and %s", ha, hb)
	}
	// Every kind of change is there, renames as git sees them.
	log := run(a.Dir, "log", "--format=", "--name-status", "-M")
	for _, kind := range []string{"A\t", "D\t", "M\t", "R100\t"} {
		if !strings.Contains(log, "\n"+kind) {
			t.Errorf("no change %q in the history", kind)
		}
	}
	if packs, _ := filepath.Glob(filepath.Join(a.Dir, ".git", "objects", "pack", "*.pack")); len(packs) != 1 {
		t.Errorf("%d packs, want 1", len(packs))
	}
}
