package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"vaultmcp/internal/vaultgen"
)

// renameBudget is the budget (docs/performance.md) for renaming a note with about 1,800
// backlinks, relinked, in one commit.
const renameBudget = time.Second

// benchRename renames the vault's popular note, which 1,800 others link
// to, through the server (relinking them all, one commit), beside a shell
// pipeline doing the least of the same work in a copy of the vault: git
// mv, rewriting the plain [[name]] links with sed, git commit -a.
// renameCanvases are the boards in the rename section's vault; every
// fifth shows the renamed note (a file card and a text-card link).
const renameCanvases = 100

func benchRename(ctx context.Context, e *env) ([]figure, error) {
	if !hasHub(e.vault) {
		return nil, fmt.Errorf("the rename section needs --notes %d or more (a popular note)", 100+hubLinks)
	}
	hub := e.vault.Path(vaultgen.HubNote)
	name := strings.TrimSuffix(path.Base(hub), ".md")
	ours, theirs := filepath.Join(e.tmp, "rename-ours"), filepath.Join(e.tmp, "rename-cli")
	for _, dir := range []string{ours, theirs} {
		if err := copyTree(e.vault.Dir, dir); err != nil {
			return nil, err
		}
		if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
			return nil, err
		}
		// Boards as Obsidian saves them: the rename rewrites the cards
		// and text-card links of the ones showing the note too.
		if err := vaultgen.WriteCanvases(dir, e.vault.Paths, hub, renameCanvases); err != nil {
			return nil, err
		}
		if err := gitInit(dir); err != nil {
			return nil, err
		}
	}

	s, err := startServer(ctx, e, ours, "VAULTMCP_GIT_SYNC_INTERVAL=0")
	if err != nil {
		return nil, err
	}
	defer s.close()
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil { // waits for the index build
		return nil, err
	}
	waitIdle(s) // as the scale section's rename
	// Back and forth: each rename relinks the same notes.
	var durs []time.Duration
	from := hub
	for i := 0; i < 4; i++ {
		to := path.Dir(hub) + "/" + fmt.Sprintf("%s renamed %d.md", name, i)
		start := time.Now()
		if _, err := s.call(ctx, "rename_file", map[string]any{"old_path": from, "new_path": to}); err != nil {
			return nil, err
		}
		durs = append(durs, time.Since(start))
		from = to
	}
	linked, err := runRg("rg", ours, []string{"-l", "-F", "-e", "[[" + strings.TrimSuffix(path.Base(from), ".md") + "]]"})
	if err != nil {
		return nil, err
	}
	if n := lineCount(linked); n < hubLinks {
		return nil, fmt.Errorf("rename_file relinked %d notes, want at least %d", n, hubLinks)
	}
	shown, err := runRg("rg", ours, []string{"-l", "-F", "-g", "*.canvas", "-e", `"file":"` + from + `"`})
	if err != nil {
		return nil, err
	}
	if n := lineCount(shown); n != renameCanvases/5 {
		return nil, fmt.Errorf("rename_file relinked %d canvases, want %d", n, renameCanvases/5)
	}

	var cli []time.Duration
	from = hub
	for i := 0; i < 4; i++ {
		to := path.Dir(hub) + "/" + fmt.Sprintf("%s renamed %d.md", name, i)
		d, err := shellRename(ctx, theirs, from, to)
		if err != nil {
			return nil, err
		}
		cli = append(cli, d)
		from = to
	}
	return []figure{{
		name: fmt.Sprintf("rename_file, %d backlinks and %d canvases relinked, one commit", hubLinks, renameCanvases/5), got: median(durs), budget: renameBudget,
		baseName: "git mv + rg|sed + git commit -a", base: median(cli),
	}}, nil
}

// shellRename does the least of a rename's work with the command line in
// the repository dir and reports how long it took: git mv, the plain
// [[name]] links rewritten by sed in the files rg finds, git commit -a.
func shellRename(ctx context.Context, dir, from, to string) (time.Duration, error) {
	oldName := strings.TrimSuffix(path.Base(from), ".md")
	newName := strings.TrimSuffix(path.Base(to), ".md")
	script := fmt.Sprintf(`set -e
git mv %[1]q %[2]q
rg -l -F -e '[[%[3]s]]' -0 | xargs -0 sed -i 's/\[\[%[3]s\]\]/[[%[4]s]]/g'
git commit -q -a -m rename`, from, to, oldName, newName)
	start := time.Now()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "RIPGREP_CONFIG_PATH=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("shell rename: %v: %s", err, out)
	}
	return time.Since(start), nil
}
