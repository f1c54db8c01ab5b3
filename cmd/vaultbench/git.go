package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"vaultmcp/vault"
)

// writeBudget is the budget (docs/performance.md) for write_file → committed → returned.
const writeBudget = 5 * time.Millisecond

// benchGit measures the write path (write_file → committed → returned) on
// a 10,000-note repository beside the git CLI committing the same kind of
// change in a copy of that repository, and get_recent_changes on a
// history of 1,000+ commits beside `git log -p -10`.
func benchGit(ctx context.Context, e *env) ([]figure, error) {
	ours := filepath.Join(e.tmp, "git-ours")
	theirs := filepath.Join(e.tmp, "git-cli")
	for _, dir := range []string{ours, theirs} {
		if err := copyTree(e.vault.Dir, dir); err != nil {
			return nil, err
		}
		// Earlier sections served the shared vault, which made it a
		// repository: start both copies from the same fresh history.
		if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
			return nil, err
		}
		if err := gitInit(dir); err != nil {
			return nil, err
		}
	}

	// Without flushing first (git.fsync: false, as the git CLI commits by
	// default), then as served by default: flushed before the answer.
	const quickWrites = 300
	quick, err := startServer(ctx, e, ours, "VAULTMCP_GIT_SYNC_INTERVAL=0", "VAULTMCP_GIT_FSYNC=false")
	if err != nil {
		return nil, err
	}
	waitIdle(quick)
	quickDurs, err := benchWrites(ctx, e, quick, quickWrites, 0, "")
	quick.close()
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, e, ours, "VAULTMCP_GIT_SYNC_INTERVAL=0")
	if err != nil {
		return nil, err
	}
	defer s.close()
	const writes = 1000
	waitIdle(s)
	cpu0, _ := s.cpuTime()
	durs, err := benchWrites(ctx, e, s, writes, quickWrites, "")
	if err != nil {
		return nil, err
	}
	cpu1, _ := s.cpuTime()
	// The same writes made conditional (if_version, the version a read
	// returned): the server also hashes the note under its lock.
	const conditionalWrites = 300
	condDurs, err := benchWrites(ctx, e, s, conditionalWrites, quickWrites+writes, ours)
	if err != nil {
		return nil, err
	}

	var cli []time.Duration
	for i := 0; i < 30; i++ {
		rel := e.vault.Paths[i]
		if err := os.WriteFile(filepath.Join(theirs, rel), []byte(fmt.Sprintf("cli write %d\n", i)), 0o644); err != nil {
			return nil, err
		}
		start := time.Now()
		if err := git(theirs, "add", rel); err != nil {
			return nil, err
		}
		if err := git(theirs, "commit", "-q", "-m", "cli "+rel); err != nil {
			return nil, err
		}
		cli = append(cli, time.Since(start))
	}
	figs := []figure{{
		name: fmt.Sprintf("write_file → committed and flushed (git.fsync), median of %d", writes), got: median(durs),
		budget: writeBudget, baseName: "git add && git commit", base: median(cli),
	}, {
		name: fmt.Sprintf("write_file → committed, git.fsync: false, median of %d", quickWrites), got: median(quickDurs),
		budget: writeBudget, baseName: "git add && git commit", base: median(cli),
	}, {
		name: fmt.Sprintf("write_file with if_version → committed and flushed, median of %d", conditionalWrites), got: median(condDurs),
		budget: writeBudget, baseName: "git add && git commit", base: median(cli),
	}, {
		name: "  server CPU per write_file (git.fsync)", text: fmtDuration((cpu1 - cpu0) / writes),
	}}

	recent, err := timeIt(20, func() error {
		_, err := s.call(ctx, "get_recent_changes", map[string]any{"count": 10})
		return err
	})
	if err != nil {
		return figs, err
	}
	logp, err := timeIt(20, func() error { return git(ours, "log", "-p", "-10") })
	if err != nil {
		return figs, err
	}
	filtered, err := timeIt(20, func() error {
		_, err := s.call(ctx, "get_recent_changes", map[string]any{"count": 10, "path": e.vault.Paths[3]})
		return err
	})
	if err != nil {
		return figs, err
	}
	logpPath, err := timeIt(20, func() error { return git(ours, "log", "-p", "-10", "--", e.vault.Paths[3]) })
	if err != nil {
		return figs, err
	}
	return append(figs,
		figure{name: fmt.Sprintf("get_recent_changes(10), %d+ commits", writes), got: recent,
			budget: 100 * time.Millisecond, baseName: "git log -p -10", base: logp},
		figure{name: "get_recent_changes(10, path)", got: filtered,
			budget: 100 * time.Millisecond, baseName: "git log -p -10 -- path", base: logpPath},
	), nil
}

// waitIdle returns once the server has used less than 2% of a core over
// half a second, or after a minute: start-up work still running (the
// history warm-up, the first sync, collections of the build's garbage)
// would otherwise be counted in the CPU time of the calls timed next,
// more in the longer ones.
func waitIdle(s *server) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c0, err := s.cpuTime()
		if err != nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
		c1, err := s.cpuTime()
		if err != nil || c1-c0 < 10*time.Millisecond {
			return
		}
	}
}

// benchWrites times n write_file calls (each must commit), numbering the
// contents from first. With root set (the served vault's folder), each
// call passes the note's current version as if_version, read from disk
// before the clock starts, as a client knows it from its read.
func benchWrites(ctx context.Context, e *env, s *server, n, first int, root string) ([]time.Duration, error) {
	var durs []time.Duration
	for i := first; i < first+n; i++ {
		rel := e.vault.Paths[i%len(e.vault.Paths)]
		content := fmt.Sprintf("# Edited %d\n\nbench write %d\n", i, i)
		args := map[string]any{"path": rel, "content": content}
		if root != "" {
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				return nil, err
			}
			args["if_version"] = vault.Version(data)
		}
		start := time.Now()
		text, err := s.call(ctx, "write_file", args)
		if err != nil {
			return nil, err
		}
		durs = append(durs, time.Since(start))
		if !strings.Contains(text, "commit") {
			return nil, fmt.Errorf("write_file did not commit: %s", text)
		}
	}
	return durs, nil
}

// gitInit makes dir a repository with everything in one first commit,
// packed as a cloned vault is. Left loose, the objects would be packed by
// the first sync's `git gc --auto` of every server started on it, in the
// background while the figures are timed (at 100k notes, for minutes).
func gitInit(dir string) error {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "generated vault"},
		{"gc", "-q"},
	} {
		if err := git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// gitEnv is the environment of the bench's git commands: no user or
// system configuration, a fixed identity, and gc.auto=0, so no commit
// starts a detached `git gc --auto` that would race the next command and
// the timed figures.
func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost")
}

// copyTree copies the files below src, but not its repository, into dst.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	// The copy gets a history of its own (gitInit), so the repository is
	// left out: a background "git gc --auto" the generated history set off
	// may be repacking it meanwhile, and cp fails on objects it removed.
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	args := []string{"-a"}
	for _, e := range entries {
		if e.Name() != ".git" {
			args = append(args, filepath.Join(src, e.Name()))
		}
	}
	if out, err := exec.Command("cp", append(args, dst+"/")...).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", src, err, out)
	}
	return nil
}
