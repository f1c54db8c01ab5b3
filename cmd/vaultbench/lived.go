package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"vaultmcp/internal/vaultgen"
)

// livedCommits is the length of the history a generated vault is served
// with, as the vaults the budgets were measured on had: about 200 commits.
const livedCommits = 200

// gitInitLived makes the generated vault v a repository with a history of
// livedCommits commits after its first, packed as a cloned vault is; its
// files are left as generated, and the history ends at them. The first
// commit holds the vault as it was: without the notes added since, with
// the notes renamed since under their old names (an "Untitled" name in
// their folder, or their name in another folder), without the paragraphs
// written since in the notes edited since, and with a few scratch notes
// deleted since. Each later commit adds, renames, edits or deletes one to
// five notes, in an order drawn from seed; the dates and authors are
// fixed, so the same vault and seed make the same commits. All of it is
// written with one git fast-import, which packs the objects as it goes
// (`git add` would write a file per object, which is dear on some file
// systems, to be packed by the gc after); `git status` must then find the
// files as the last commit has them.
func gitInitLived(v *vaultgen.Vault, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x11fe))
	plan := planHistory(r, v.Paths, livedCommits)
	touched := map[string]int{} // final paths of the notes the history changes
	for _, i := range plan.order {
		data, err := os.ReadFile(filepath.Join(v.Dir, filepath.FromSlash(v.Paths[i])))
		if err != nil {
			return err
		}
		plan.notes[i].versions = versions(r, string(data), plan.notes[i].edits)
		touched[v.Paths[i]] = i
	}
	if err := git(v.Dir, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = v.Dir
	cmd.Env = gitEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	pipe, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(pipe, 1<<20)
	err = writeLived(w, v, plan, touched, r)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := pipe.Close(); err == nil {
		err = cerr
	}
	if werr := cmd.Wait(); werr != nil {
		return fmt.Errorf("git fast-import: %v: %s", werr, out.Bytes())
	}
	if err != nil {
		return err
	}
	// The index, made from the last commit, is checked against the files
	// (each one read and hashed: the index holds nothing of them yet).
	if err := git(v.Dir, "reset", "-q"); err != nil {
		return err
	}
	st := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	st.Dir = v.Dir
	st.Env = gitEnv()
	status, err := st.Output()
	if err != nil {
		return fmt.Errorf("git status: %w", err)
	}
	if len(status) > 0 {
		return fmt.Errorf("the generated history does not end at the generated vault: git status says\n%.2000s", status)
	}
	return git(v.Dir, "gc", "-q")
}

// writeLived writes plan as a git fast-import stream to w: the first
// commit from the files of v (all below v.Dir but .git, as `git add -A`
// would take them, the notes plan changes as they were), then its
// commits. touched maps the final paths of the notes plan changes to
// their indexes.
func writeLived(w *bufio.Writer, v *vaultgen.Vault, plan historyPlan, touched map[string]int, r *rand.Rand) error {
	start := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	commit := func(author string, when time.Time, msg string) {
		fmt.Fprintf(w, "commit refs/heads/main\nauthor %[1]s <%[1]s@localhost> %[2]d +0000\ncommitter %[1]s <%[1]s@localhost> %[2]d +0000\ndata %[3]d\n%[4]s\n",
			author, when.Unix(), len(msg), msg)
	}
	file := func(rel string, data []byte) {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", cQuote(rel), len(data))
		w.Write(data)
		w.WriteString("\n")
	}

	commit("bench", start, "vault\n")
	err := filepath.WalkDir(v.Dir, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(v.Dir, abs)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if i, ok := touched[rel]; ok {
			if h := plan.notes[i]; !h.added {
				file(h.firstPath(rel), []byte(h.versions[0]))
			}
			return nil
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return err
		}
		file(rel, data)
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range plan.scratch {
		file(s.path, []byte(s.content))
	}
	w.WriteString("\n")

	at := map[int]int{}       // a note's version in the last commit written
	renamed := map[int]bool{} // notes renamed in a commit written
	for c, ops := range plan.commits {
		when := start.Add(time.Duration(c+1)*12*time.Hour + time.Duration(r.IntN(3600))*time.Second)
		author := "bench"
		if c%3 == 0 {
			author = "agent"
		}
		var msg strings.Builder
		var changes []func()
		for _, op := range ops {
			if op.kind == opDelete {
				rel := plan.scratch[op.note].path
				fmt.Fprintf(&msg, "delete %s\n", rel)
				changes = append(changes, func() { fmt.Fprintf(w, "D %s\n", cQuote(rel)) })
				continue
			}
			h := plan.notes[op.note]
			rel := v.Paths[op.note]
			switch op.kind {
			case opAdd:
				rel = h.firstPath(rel)
				fmt.Fprintf(&msg, "add %s\n", rel)
			case opRename:
				renamed[op.note] = true
				fmt.Fprintf(&msg, "rename %s -> %s\n", h.oldPath, rel)
				changes = append(changes, func() { fmt.Fprintf(w, "D %s\n", cQuote(h.oldPath)) })
			case opEdit:
				at[op.note]++
				if h.oldPath != "" && !renamed[op.note] {
					rel = h.oldPath
				}
				fmt.Fprintf(&msg, "edit %s\n", rel)
			}
			data := h.versions[at[op.note]]
			changes = append(changes, func() { file(rel, []byte(data)) })
		}
		commit(author, when, msg.String())
		for _, change := range changes {
			change()
		}
		w.WriteString("\n")
	}
	return nil
}

// The kinds of change a commit of a generated history makes.
const (
	opAdd = iota
	opRename
	opEdit
	opDelete
)

// historyOp is one change of one note in one commit.
type historyOp struct {
	kind int
	note int // the note's index; for opDelete, the scratch note's
}

// noteHistory is what a generated history does to one note.
type noteHistory struct {
	added   bool   // absent from the first commit
	oldPath string // its path until renamed; "" if never renamed
	edits   int
	// versions are its contents, first as first committed (or added),
	// last as generated.
	versions []string
}

// firstPath is the note's path when it is first committed or added.
func (h *noteHistory) firstPath(final string) string {
	if h.oldPath != "" {
		return h.oldPath
	}
	return final
}

// scratchNote is a note in the first commit that a later one deletes.
type scratchNote struct{ path, content string }

// historyPlan is a generated history: what happens to each note it
// touches, then its commits in order.
type historyPlan struct {
	notes   map[int]*noteHistory
	order   []int // the indexes of notes, in the order first changed
	scratch []scratchNote
	commits [][]historyOp
}

// planHistory draws a history of n commits for a vault whose notes are at
// paths (as generated): each commit changes one to five notes, a fifth of
// the changes adding a note, three in twenty renaming one, one in twenty
// deleting a scratch note and the rest editing a note, a third of the
// edits one already changed. It touches at most half of the notes.
func planHistory(r *rand.Rand, paths []string, n int) historyPlan {
	p := historyPlan{notes: map[int]*noteHistory{}}
	fresh := r.Perm(len(paths))
	fresh = fresh[:len(fresh)/2]
	renamed := map[int]bool{}
	take := func() (int, bool) {
		if len(fresh) == 0 {
			return 0, false
		}
		i := fresh[0]
		fresh = fresh[1:]
		p.notes[i] = &noteHistory{}
		p.order = append(p.order, i)
		return i, true
	}
	for range n {
		var ops []historyOp
		inCommit := map[int]bool{}
		for range 1 + r.IntN(5) {
			kind := r.IntN(20)
			switch {
			case kind == 0:
				k := len(p.scratch)
				dir := path.Dir(paths[r.IntN(len(paths))])
				p.scratch = append(p.scratch, scratchNote{
					path:    fmt.Sprintf("%s/Scratch %d.md", dir, k),
					content: fmt.Sprintf("# Scratch %d\n\nto sort out later\n", k),
				})
				ops = append(ops, historyOp{kind: opDelete, note: k})
				continue
			case kind <= 4:
				if i, ok := take(); ok {
					p.notes[i].added = true
					inCommit[i] = true
					ops = append(ops, historyOp{kind: opAdd, note: i})
					continue
				}
			case kind <= 7:
				i, ok := -1, false
				if r.IntN(3) == 0 && len(p.order) > 0 {
					// A note changed before, under its old name.
					if j := p.order[r.IntN(len(p.order))]; !inCommit[j] && !renamed[j] {
						i, ok = j, true
					}
				}
				if !ok {
					i, ok = take()
				}
				if ok {
					// An "Untitled" name in its folder, or its name in another
					// folder.
					final := paths[i]
					p.notes[i].oldPath = fmt.Sprintf("%s/Untitled %d.md", path.Dir(final), i)
					if r.IntN(2) == 0 {
						if dir := path.Dir(paths[r.IntN(len(paths))]); dir != path.Dir(final) {
							p.notes[i].oldPath = dir + "/" + path.Base(final)
						}
					}
					renamed[i] = true
					inCommit[i] = true
					ops = append(ops, historyOp{kind: opRename, note: i})
					continue
				}
			}
			i, ok := -1, false
			if r.IntN(3) == 0 && len(p.order) > 0 {
				if j := p.order[r.IntN(len(p.order))]; !inCommit[j] {
					i, ok = j, true
				}
			}
			if !ok {
				i, ok = take()
			}
			if !ok {
				continue
			}
			p.notes[i].edits++
			inCommit[i] = true
			ops = append(ops, historyOp{kind: opEdit, note: i})
		}
		p.commits = append(p.commits, ops)
	}
	return p
}

// versions returns the contents of a note edited edits times that ends as
// final: each edit writes back one of its paragraphs (the heading and
// frontmatter are there from the start), in random order. A note of too
// few paragraphs is a line of draft until its last edit.
func versions(r *rand.Rand, final string, edits int) []string {
	blocks := strings.SplitAfter(final, "\n\n")
	vs := make([]string, edits+1)
	vs[edits] = final
	if edits == 0 {
		return vs
	}
	if len(blocks) < edits+3 {
		for j := range edits {
			vs[j] = fmt.Sprintf("draft %d\n", j)
		}
		return vs
	}
	// Blocks 2 on (after the frontmatter and the title), written back
	// in the order of order: version j lacks order[j:].
	order := r.Perm(len(blocks) - 2)[:edits]
	for j := range edits {
		missing := map[int]bool{}
		for _, b := range order[j:] {
			missing[b+2] = true
		}
		var s strings.Builder
		for k, b := range blocks {
			if !missing[k] {
				s.WriteString(b)
			}
		}
		vs[j] = s.String()
	}
	return vs
}

// cQuote quotes a path for git fast-import.
func cQuote(p string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(p) + `"`
}
