package gitsync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// diskReader reads the worktree as the vault would, for PlanRevert.
func diskReader(dir string) CurrentFunc {
	return func(p string) ([]byte, bool, error) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return data, err == nil, err
	}
}

// applyPlan carries out a plan on the worktree and commits it, as the
// revert tool does through the vault.
func applyPlan(t *testing.T, r *Repo, plan RevertPlan) {
	t.Helper()
	dir := r.Dir()
	var paths []string
	for _, f := range plan.Files {
		switch {
		case f.Delete:
			os.Remove(filepath.Join(dir, f.Path))
		default:
			if f.MoveFrom != "" {
				os.Remove(filepath.Join(dir, f.MoveFrom))
				paths = append(paths, f.MoveFrom)
			}
			writeFile(t, dir, f.Path, string(f.Content))
		}
		paths = append(paths, f.Path)
	}
	if _, err := r.Commit(context.Background(), plan.Summary, paths); err != nil {
		t.Fatal(err)
	}
}

func TestRevertMiddleCommitKeepsLaterEdits(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	base := noteLines(12, "doc")
	record(t, r, "write doc.md", "doc.md", base)
	record(t, r, "edit doc.md", "doc.md", strings.Replace(base, "doc line 2\n", "doc line TWO\n", 1))
	middle := git(t, dir, "rev-parse", "--short", "HEAD")
	later := strings.Replace(readFile(t, dir, "doc.md"), "doc line 10\n", "doc line TEN\n", 1)
	record(t, r, "edit doc.md", "doc.md", later)

	plan, err := r.PlanRevert(ctx, RevertOptions{Commit: middle}, diskReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 0 || len(plan.Files) != 1 || plan.Summary != "revert "+middle+": MCP: edit doc.md" {
		t.Fatalf("plan: %+v", plan)
	}
	want := strings.Replace(base, "doc line 10\n", "doc line TEN\n", 1)
	if got := string(plan.Files[0].Content); got != want {
		t.Errorf("reverted content:\n%s\nwant:\n%s", got, want)
	}
	applyPlan(t, r, plan)
	if msg := git(t, dir, "log", "-1", "--format=%s"); msg != "MCP: revert "+middle+": MCP: edit doc.md" {
		t.Errorf("message %q", msg)
	}
	// Reverting again finds nothing to do.
	again, err := r.PlanRevert(ctx, RevertOptions{Commit: middle}, diskReader(dir))
	if err != nil || len(again.Files) != 0 || len(again.Unchanged) != 1 {
		t.Errorf("second revert: %+v %v", again, err)
	}
	assertClean(t, dir)
}

func TestRevertConflictShowsLines(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write s.md", "s.md", "title\nstatus: draft\nend\n")
	record(t, r, "edit s.md", "s.md", "title\nstatus: review\nend\n")
	middle := git(t, dir, "rev-parse", "--short", "HEAD")
	record(t, r, "edit s.md", "s.md", "title\nstatus: done\nend\n")
	plan, err := r.PlanRevert(ctx, RevertOptions{Commit: middle}, diskReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 0 || len(plan.Conflicts) != 1 {
		t.Fatalf("plan: %+v", plan)
	}
	c := plan.Conflicts[0]
	if c.Path != "s.md" || len(c.Regions) != 1 {
		t.Fatalf("conflict: %+v", c)
	}
	g := c.Regions[0]
	if g.Line != 2 || strings.Join(g.Commit, "|") != "status: review" || strings.Join(g.Now, "|") != "status: done" || strings.Join(g.Before, "|") != "status: draft" {
		t.Errorf("region: %+v", g)
	}
}

func TestRevertKinds(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write keep.md", "keep.md", "keep\n")
	record(t, r, "write gone.md", "gone.md", "gone\n")
	// Created, then reverted: deleted.
	record(t, r, "write new.md", "new.md", "new\n")
	created := git(t, dir, "rev-parse", "--short", "HEAD")
	plan, err := r.PlanRevert(ctx, RevertOptions{Commit: created}, diskReader(dir))
	if err != nil || len(plan.Files) != 1 || !plan.Files[0].Delete {
		t.Fatalf("revert a creation: %+v %v", plan, err)
	}
	applyPlan(t, r, plan)
	// Deleted, then reverted: restored.
	os.Remove(filepath.Join(dir, "gone.md"))
	r.Commit(ctx, "delete gone.md", []string{"gone.md"})
	deleted := git(t, dir, "rev-parse", "--short", "HEAD")
	plan, err = r.PlanRevert(ctx, RevertOptions{Commit: deleted}, diskReader(dir))
	if err != nil || len(plan.Files) != 1 || string(plan.Files[0].Content) != "gone\n" || plan.Files[0].Path != "gone.md" {
		t.Fatalf("revert a deletion: %+v %v", plan, err)
	}
	applyPlan(t, r, plan)
	// Renamed, edited later, then the rename reverted: moved back with
	// the later edit.
	move(t, r, "keep.md", "dir/kept.md")
	renamed := git(t, dir, "rev-parse", "--short", "HEAD")
	record(t, r, "edit dir/kept.md", "dir/kept.md", "keep\nmore\n")
	plan, err = r.PlanRevert(ctx, RevertOptions{Commit: renamed}, diskReader(dir))
	if err != nil || len(plan.Files) != 1 || plan.Files[0].Path != "keep.md" || plan.Files[0].MoveFrom != "dir/kept.md" ||
		string(plan.Files[0].Content) != "keep\nmore\n" {
		t.Fatalf("revert a rename: %+v %v", plan, err)
	}
	// A file back at the old path blocks it.
	writeFile(t, dir, "keep.md", "squatter\n")
	if plan, _ := r.PlanRevert(ctx, RevertOptions{Commit: renamed}, diskReader(dir)); len(plan.Conflicts) != 1 {
		t.Errorf("old path taken: %+v", plan)
	}
	os.Remove(filepath.Join(dir, "keep.md"))
	// A creation edited since cannot be deleted without losing the edit.
	record(t, r, "write z.md", "z.md", "z\n")
	z := git(t, dir, "rev-parse", "--short", "HEAD")
	record(t, r, "edit z.md", "z.md", "z\nedited\n")
	plan, _ = r.PlanRevert(ctx, RevertOptions{Commit: z}, diskReader(dir))
	if len(plan.Conflicts) != 1 || len(plan.Conflicts[0].Regions) != 1 || plan.Conflicts[0].Regions[0].Now[0] != "edited" {
		t.Errorf("edited creation: %+v", plan)
	}
	// Errors: a merge, an unknown commit, a path the commit did not touch.
	if _, err := r.PlanRevert(ctx, RevertOptions{Commit: "1234567"}, diskReader(dir)); err == nil {
		t.Error("an unknown commit was planned")
	}
	if _, err := r.PlanRevert(ctx, RevertOptions{Commit: z, Path: "keep.md"}, diskReader(dir)); err == nil || !strings.Contains(err.Error(), "did not change") {
		t.Errorf("path not in the commit: %v", err)
	}
}

func TestRevertOneNoteRenamedSince(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write a.md", "a.md", "one\ntwo\nthree\n")
	record(t, r, "write b.md", "b.md", "b\n")
	writeFile(t, dir, "a.md", "one\nTWO\nthree\n")
	writeFile(t, dir, "b.md", "b changed\n")
	r.Commit(ctx, "edit both", []string{"a.md", "b.md"})
	both := git(t, dir, "rev-parse", "--short", "HEAD")
	move(t, r, "a.md", "moved/a.md")
	// By its current name: only that note, at its current place.
	plan, err := r.PlanRevert(ctx, RevertOptions{Commit: both, Path: "moved/a.md"}, diskReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Path != "moved/a.md" || plan.Files[0].MoveFrom != "" || string(plan.Files[0].Content) != "one\ntwo\nthree\n" {
		t.Errorf("plan: %+v", plan.Files)
	}
	// The whole commit: a.md is followed to where it is now.
	plan, _ = r.PlanRevert(ctx, RevertOptions{Commit: both}, diskReader(dir))
	if len(plan.Files) != 2 || plan.Files[0].Path != "moved/a.md" || plan.Files[1].Path != "b.md" || len(plan.Conflicts) != 0 {
		t.Errorf("whole commit: files %+v conflicts %+v", plan.Files, plan.Conflicts)
	}
	// Deleted since: a conflict naming it.
	os.Remove(filepath.Join(dir, "moved/a.md"))
	r.Commit(ctx, "delete moved/a.md", []string{"moved/a.md"})
	plan, _ = r.PlanRevert(ctx, RevertOptions{Commit: both}, diskReader(dir))
	if len(plan.Files) != 1 || len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "moved/a.md" ||
		!strings.Contains(plan.Conflicts[0].Reason, "deleted or moved") {
		t.Errorf("deleted since: files %+v conflicts %+v", plan.Files, plan.Conflicts)
	}
}

func TestRevertMergeRefused(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	record(t, r, "write a.md", "a.md", "a\n")
	git(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "b.md", "b\n")
	cliCommit(t, dir, "side", clockStart.Add(time.Hour))
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "c.md", "c\n")
	cliCommit(t, dir, "main", clockStart.Add(2*time.Hour))
	git(t, dir, "merge", "-q", "--no-edit", "side")
	if _, err := r.PlanRevert(context.Background(), RevertOptions{Commit: "HEAD"}, diskReader(dir)); err == nil || !strings.Contains(err.Error(), "merge") {
		t.Errorf("merge revert: %v", err)
	}
}
