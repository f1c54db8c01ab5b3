package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// historyBudget is the budget (docs/performance.md) for get_note_history and get_diff on
// a long history, warm.
const historyBudget = 20 * time.Millisecond

// benchHistory measures the history tools on the generated vault with a
// history of --commits commits (2,000 by default) on top of its first one (written with git
// fast-import): get_note_history of a note moved every 200 commits, get_diff of that note across 1,000 commits and of the whole vault
// across 50, and get_recent_changes with author and since filters, each
// beside the git CLI doing the same work in the same run.
func benchHistory(ctx context.Context, e *env) ([]figure, error) {
	dir := filepath.Join(e.tmp, "history")
	if err := copyTree(e.vault.Dir, dir); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		return nil, err
	}
	if err := gitInit(dir); err != nil {
		return nil, err
	}
	if e.commits < 1100 {
		return nil, fmt.Errorf("--commits must be at least 1100 (the note diff spans 1,000 commits)")
	}
	h, err := writeHistory(dir, e.vault.Paths, e.commits)
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, e, dir, "VAULTMCP_GIT_SYNC_INTERVAL=0")
	if err != nil {
		return nil, err
	}
	defer s.close()

	var figs []figure
	measure := func(name string, budget time.Duration, tool string, args map[string]any, want string, baseName string, base func() error) error {
		start := time.Now()
		out, err := s.call(ctx, tool, args)
		if err != nil {
			return err
		}
		cold := time.Since(start)
		if !strings.Contains(out, want) {
			return fmt.Errorf("%s: the answer lacks %q:\n%s", tool, want, out)
		}
		warm, err := timeIt(20, func() error { _, err := s.call(ctx, tool, args); return err })
		if err != nil {
			return err
		}
		b, err := timeIt(5, base)
		if err != nil {
			return err
		}
		figs = append(figs,
			figure{name: name + " (first call)", got: cold},
			figure{name: name + " (warm)", got: warm, budget: budget, baseName: baseName, base: b})
		return nil
	}
	err = measure(fmt.Sprintf("get_note_history, %d of %d commits, %d renames", h.noteCommits, e.commits, h.renames), historyBudget,
		"get_note_history", map[string]any{"path": h.note}, fmt.Sprintf("of %d", h.noteCommits),
		"git log --follow --numstat", func() error { return git(dir, "log", "--follow", "--numstat", "--", h.note) })
	if err != nil {
		return figs, err
	}
	err = measure("get_diff of that note, 1,000 commits apart", historyBudget,
		"get_diff", map[string]any{"path": h.note, "from": "HEAD~1000"}, "(it was ",
		"git diff -M A B -- old new", func() error { return git(dir, "diff", "-M", "HEAD~1000", "HEAD", "--", h.noteAt1000, h.note) })
	if err != nil {
		return figs, err
	}
	err = measure("get_diff of the vault, 50 commits apart", historyBudget,
		"get_diff", map[string]any{"from": "HEAD~50"}, "file(s) changed",
		"git diff -M HEAD~50 HEAD", func() error { return git(dir, "diff", "-M", "HEAD~50", "HEAD") })
	if err != nil {
		return figs, err
	}
	since := h.start.Add(time.Duration(e.commits-300) * time.Minute).Format(time.RFC3339)
	err = measure("get_recent_changes(10, author, since)", 100*time.Millisecond,
		"get_recent_changes", map[string]any{"limit": 10, "author": "agent", "since": since}, "agent <agent@localhost>",
		"git log -p -M -10 --author --since", func() error {
			return git(dir, "log", "-p", "-M", "-10", "--author=agent", "--since="+since)
		})
	if err != nil {
		return figs, err
	}
	err = measure("get_recent_changes(10, path, author)", 100*time.Millisecond,
		"get_recent_changes", map[string]any{"limit": 10, "path": h.note, "author": "agent"}, "1. ",
		"git log -p -10 --author -- path", func() error { return git(dir, "log", "-p", "-10", "--author=agent", "--", h.note) })
	return figs, err
}

// generatedHistory says what writeHistory made.
type generatedHistory struct {
	note        string // the renamed note's final path
	noteAt1000  string // its path 1,000 commits before HEAD
	noteCommits int    // commits that changed it, renames included
	renames     int
	start       time.Time
}

// writeHistory appends commits to the repository in dir with git
// fast-import: most edit a random note (by "bench" or "agent"), every
// tenth edits one tracked note, which is moved (with a small edit) every
// 200 commits; some notes are deleted and added. The worktree is then checked
// out at the new head.
func writeHistory(dir string, paths []string, commits int) (generatedHistory, error) {
	r := rand.New(rand.NewPCG(7, 11))
	g := generatedHistory{start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	read := map[string]string{}
	content := func(p string) (string, error) {
		if c, ok := read[p]; ok {
			return c, nil
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		return string(data), err
	}
	live := append([]string(nil), paths...)
	note := paths[42]
	var stream strings.Builder
	for i := 0; i < commits; i++ {
		author := "bench"
		if i%3 == 0 {
			author = "agent"
		}
		when := g.start.Add(time.Duration(i) * time.Minute).Unix()
		var ops strings.Builder
		var msg string
		switch {
		case i%200 == 100: // move the tracked note with a small edit
			c, err := content(note)
			if err != nil {
				return g, err
			}
			to := path.Join(path.Dir(paths[42]), fmt.Sprintf("moved-%d", i/200), path.Base(note))
			c = strings.Replace(c, "\n", fmt.Sprintf("\nmoved in commit %d\n", i), 1)
			fmt.Fprintf(&ops, "D %s\nM 100644 inline %s\ndata %d\n%s\n", strconv.Quote(note), strconv.Quote(to), len(c), c)
			delete(read, note)
			read[to] = c
			msg = "rename " + note + " -> " + to
			note = to
			g.noteCommits++
			g.renames++
		case i%10 == 0: // edit the tracked note
			c, err := content(note)
			if err != nil {
				return g, err
			}
			c += fmt.Sprintf("- edit %d of the tracked note\n", i)
			read[note] = c
			fmt.Fprintf(&ops, "M 100644 inline %s\ndata %d\n%s\n", strconv.Quote(note), len(c), c)
			msg = "edit " + note
			g.noteCommits++
		case i%97 == 0: // delete a note
			k := 100 + r.IntN(len(live)-100)
			p := live[k]
			live = append(live[:k], live[k+1:]...)
			delete(read, p)
			fmt.Fprintf(&ops, "D %s\n", strconv.Quote(p))
			msg = "delete " + p
		default:
			p := live[100+r.IntN(len(live)-100)]
			c, err := content(p)
			if err != nil {
				return g, err
			}
			c += fmt.Sprintf("- line added in commit %d\n", i)
			read[p] = c
			fmt.Fprintf(&ops, "M 100644 inline %s\ndata %d\n%s\n", strconv.Quote(p), len(c), c)
			msg = "edit " + p
		}
		if i == commits-1-1000 { // HEAD~1000
			g.noteAt1000 = note
		}
		fmt.Fprintf(&stream, "commit refs/heads/main\nauthor %s <%s@localhost> %d +0000\ncommitter %s <%s@localhost> %d +0000\ndata %d\n%s\n",
			author, author, when, author, author, when, len(msg), msg)
		if i == 0 {
			stream.WriteString("from refs/heads/main^0\n")
		}
		stream.WriteString(ops.String())
		stream.WriteString("\n")
	}
	g.noteCommits++ // the note's creation, in the first commit
	g.note = note
	if g.noteAt1000 == "" {
		g.noteAt1000 = note
	}
	cmd := exec.Command("git", "fast-import", "--quiet", "--force")
	cmd.Dir = dir
	cmd.Stdin = bufio.NewReader(strings.NewReader(stream.String()))
	if out, err := cmd.CombinedOutput(); err != nil {
		return g, fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	if err := git(dir, "reset", "-q", "--hard", "main"); err != nil {
		return g, err
	}
	return g, nil
}
