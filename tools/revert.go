package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// RevertArgs are revert_change's arguments.
type RevertArgs struct {
	Commit string `json:"commit"`
	Path   string `json:"path"`
}

// RevertResult is revert_change's answer.
type RevertResult struct {
	Plan gitsync.RevertPlan
	// Commit is the short hash of the revert commit ("" when nothing
	// needed changing).
	Commit string
	// Resolved says which path was taken for the one given, when it was
	// spelled otherwise.
	Resolved string
	// Budget bounds the text naming the files one by one (0: none); the
	// rest are counted.
	Budget int
}

// RevertConflictError says a revert was refused because later changes
// collide with it; nothing was written.
type RevertConflictError struct {
	Plan gitsync.RevertPlan
	// Budget bounds the text showing conflicts (0: none): the files past
	// it are counted, and left out of the conflicts field too.
	Budget int
}

// shown is how many conflicts the error shows: those whose text fits the
// budget, and always the first.
func (e *RevertConflictError) shown() int {
	if e.Budget <= 0 {
		return len(e.Plan.Conflicts)
	}
	used := 0
	for i, c := range e.Plan.Conflicts {
		var b strings.Builder
		writeConflict(&b, c)
		if used += b.Len(); used > e.Budget && i > 0 {
			return i
		}
	}
	return len(e.Plan.Conflicts)
}

// Error lists the conflicting lines, so an agent can resolve them by hand.
func (e *RevertConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cannot revert %s (%q): later changes conflict with it, so nothing was written.", e.Plan.Commit.Hash, subjectLine(e.Plan.Commit.Message))
	shown := e.shown()
	for _, c := range e.Plan.Conflicts[:shown] {
		writeConflict(&b, c)
	}
	if more := len(e.Plan.Conflicts) - shown; more > 0 {
		h := e.Plan.Commit.Hash
		fmt.Fprintf(&b, "\n\n[... %s more conflicting file(s) not shown (%s in all): revert them one at a time with path set, "+
			"or see what the commit changed with get_diff(from=\"%s~1\", to=\"%s\") ...]", count(more), count(len(e.Plan.Conflicts)), h, h)
	}
	if len(e.Plan.Files) > 0 {
		fmt.Fprintf(&b, "\n\nThe other %d file(s) could be reverted one at a time with path set.", len(e.Plan.Files))
	}
	b.WriteString("\nEdit the conflicting lines with edit_file instead, or revert the later change first.")
	return b.String()
}

// writeConflict renders one file's conflict.
func writeConflict(b *strings.Builder, c gitsync.RevertConflict) {
	fmt.Fprintf(b, "\n\n%s: %s", c.Path, c.Reason)
	for _, g := range c.Regions {
		fmt.Fprintf(b, "\n  at line %d", g.Line)
		writeLines(b, "the commit made it", g.Commit)
		writeLines(b, "it is now", g.Now)
		if g.Before != nil {
			writeLines(b, "reverting would put back", g.Before)
		}
	}
}

// maxConflictLines bounds the lines shown for each side of a conflict.
const maxConflictLines = 20

func writeLines(b *strings.Builder, label string, lines []string) {
	fmt.Fprintf(b, "\n    %s:", label)
	if len(lines) == 0 {
		b.WriteString(" (nothing)")
	}
	for i, l := range lines {
		if i == maxConflictLines {
			fmt.Fprintf(b, "\n      [... %d more lines ...]", len(lines)-i)
			break
		}
		b.WriteString("\n      " + l)
	}
}

// fields gives the conflicts in structured form beside the message.
func (e *RevertConflictError) fields() map[string]any {
	type region struct {
		Line   int      `json:"line"`
		Commit []string `json:"commit_made"`
		Now    []string `json:"now"`
		Before []string `json:"revert_would_restore,omitempty"`
	}
	type conflict struct {
		Path    string   `json:"path"`
		Reason  string   `json:"reason"`
		Regions []region `json:"regions,omitempty"`
	}
	var cs []conflict
	for _, c := range e.Plan.Conflicts[:e.shown()] {
		cc := conflict{Path: c.Path, Reason: c.Reason}
		for _, g := range c.Regions {
			cc.Regions = append(cc.Regions, region{g.Line, g.Commit, g.Now, g.Before})
		}
		cs = append(cs, cc)
	}
	return map[string]any{"commit": e.Plan.Commit.Hash, "conflicts": cs, "conflict_count": len(e.Plan.Conflicts)}
}

// errRevertConflict rolls the revert's change back.
var errRevertConflict = errors.New("revert conflicts")

// Revert is revert_change's work. The plan is made and applied inside one
// vault change, under the write lock, so the files it merged against are
// the ones it overwrites; it goes through the vault's write path (path
// checks, atomic writes, the index refresh, one commit) like any write.
func Revert(ctx context.Context, d Deps, a RevertArgs) (RevertResult, error) {
	if d.Git == nil {
		return RevertResult{}, errNoHistory
	}
	var plan gitsync.RevertPlan
	var resolved string
	if a.Path != "" {
		rel, note, err := d.historyPath(ctx, a.Path, false)
		if err != nil {
			return RevertResult{}, err
		}
		a.Path, resolved = rel, note
	}
	scope := access.From(ctx)
	current := func(rel string) ([]byte, bool, error) {
		if !scope.Visible(rel) {
			// Named by the commit, not by the client: say so without
			// naming it.
			return nil, false, &vault.Error{Kind: vault.ErrDenied,
				Msg: "Access denied: the change also touched notes outside the folders this session may access, so nothing was changed"}
		}
		f, err := d.Vault.ReadFile(ctx, rel, 0)
		if errors.Is(err, vault.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		return f.Data, true, nil
	}
	commit, err := d.Vault.Update(ctx, func(tx *vault.Tx) error {
		var err error
		plan, err = d.Git.PlanRevert(ctx, gitsync.RevertOptions{Commit: a.Commit, Path: a.Path}, current)
		if err != nil {
			return err
		}
		if len(plan.Conflicts) > 0 {
			return errRevertConflict
		}
		tx.Summarize("%s", plan.Summary)
		for _, f := range plan.Files {
			if err := applyRevertFile(ctx, d.Vault, tx, f); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errRevertConflict) {
		return RevertResult{Plan: plan}, &RevertConflictError{Plan: plan, Budget: d.historyBytes()}
	}
	if err != nil {
		return RevertResult{}, err
	}
	return RevertResult{Plan: plan, Commit: commit, Resolved: resolved, Budget: d.historyBytes()}, nil
}

// applyRevertFile carries out one file operation of a revert plan.
func applyRevertFile(ctx context.Context, v *vault.Vault, tx *vault.Tx, f gitsync.RevertFile) error {
	switch {
	case f.Delete:
		p, err := v.ResolveEntry(f.Path)
		if err != nil {
			return err
		}
		return tx.Remove(p)
	case f.MoveFrom != "":
		from, err := v.ResolveEntry(f.MoveFrom)
		if err != nil {
			return err
		}
		to, err := v.ResolveFile(ctx, f.Path)
		if err != nil {
			return err
		}
		if err := tx.Rename(from, to); err != nil {
			return err
		}
		return tx.WriteFile(to, f.Content)
	default:
		p, err := v.ResolveFile(ctx, f.Path)
		if err != nil {
			return err
		}
		return tx.WriteFile(p, f.Content)
	}
}

// Text confirms what the revert did. A revert of a commit of thousands
// of files names as many as the budget holds and counts the rest.
func (r RevertResult) Text() string {
	p := r.Plan
	subject := fmt.Sprintf("%s (%q)", p.Commit.Hash, subjectLine(p.Commit.Message))
	if len(p.Files) == 0 {
		return r.Resolved + fmt.Sprintf("Nothing to revert: the files %s changed are already as they were before it (%s). Nothing was committed.",
			subject, namesWithin(p.Unchanged, r.Budget))
	}
	var b strings.Builder
	b.WriteString(r.Resolved)
	fmt.Fprintf(&b, "Reverted %s%s:", subject, parenthesize(commitNote(r.Commit)))
	listed := 0
	for _, f := range p.Files {
		line := fmt.Sprintf("\n- %s: %s", f.Path, f.What)
		if r.Budget > 0 && b.Len()+len(line) > r.Budget && listed > 0 {
			break
		}
		b.WriteString(line)
		listed++
	}
	if more := len(p.Files) - listed; more > 0 {
		see := "get_recent_changes(limit=1, files_only=true)"
		if r.Commit != "" {
			see = fmt.Sprintf("get_diff(from=\"%s~1\", to=\"%s\")", r.Commit, r.Commit)
		}
		fmt.Fprintf(&b, "\n[... and %s more file(s) reverted (%s in all), not listed here: %s lists them ...]", count(more), count(len(p.Files)), see)
	}
	if len(p.Unchanged) > 0 {
		rest := 0
		if r.Budget > 0 {
			rest = max(r.Budget-b.Len(), 1)
		}
		fmt.Fprintf(&b, "\nAlready as before the commit: %s", namesWithin(p.Unchanged, rest))
	}
	return b.String()
}

// namesWithin joins names with commas, as many as budget bytes hold
// (all when it is 0, always the first), and counts the rest.
func namesWithin(names []string, budget int) string {
	var b strings.Builder
	for i, n := range names {
		if budget > 0 && i > 0 && b.Len()+len(n)+2 > budget {
			fmt.Fprintf(&b, " and %s more", count(len(names)-i))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

// RevertChange is revert_change: undo one earlier commit with a new
// commit, never rewriting history.
func RevertChange(d Deps) server.ServerTool {
	tool := mcp.NewTool("revert_change",
		mcp.WithDescription("Undo one earlier commit (or only its effect on one note) with a new commit \"revert <hash>: <message>\"; history is never rewritten. "+
			"Later changes to other lines are kept (three-way merge). If a later change touched the same lines, nothing is written and the answer shows the conflicting lines. "+
			"Find commits with get_recent_changes or get_note_history."),
		mcp.WithString("commit", mcp.Required(), mcp.Description("The commit to undo: its hash or first 4+ digits, or HEAD~N (a time such as 2024-05-01T14:30 or yesterday names the last commit before it; a day, before it began)")),
		mcp.WithString("path", mcp.Description("Only undo the commit's change to this note (its path then, or its current name)")),
		annotate("Revert change", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a RevertArgs) (*mcp.CallToolResult, error) {
		res, err := Revert(ctx, d, a)
		var ce *RevertConflictError
		if errors.As(err, &ce) {
			return nil, &toolError{msg: ce.Error(), fields: ce.fields()}
		}
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})}
}
