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
}

// RevertConflictError says a revert was refused because later changes
// collide with it; nothing was written.
type RevertConflictError struct {
	Plan gitsync.RevertPlan
}

// Error lists the conflicting lines, so an agent can resolve them by hand.
func (e *RevertConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cannot revert %s (%q): later changes conflict with it, so nothing was written.", e.Plan.Commit.Hash, subjectLine(e.Plan.Commit.Message))
	for _, c := range e.Plan.Conflicts {
		fmt.Fprintf(&b, "\n\n%s: %s", c.Path, c.Reason)
		for _, g := range c.Regions {
			fmt.Fprintf(&b, "\n  at line %d", g.Line)
			writeLines(&b, "the commit made it", g.Commit)
			writeLines(&b, "it is now", g.Now)
			if g.Before != nil {
				writeLines(&b, "reverting would put back", g.Before)
			}
		}
	}
	if len(e.Plan.Files) > 0 {
		fmt.Fprintf(&b, "\n\nThe other %d file(s) could be reverted one at a time with path set.", len(e.Plan.Files))
	}
	b.WriteString("\nEdit the conflicting lines with edit_file instead, or revert the later change first.")
	return b.String()
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
	for _, c := range e.Plan.Conflicts {
		cc := conflict{Path: c.Path, Reason: c.Reason}
		for _, g := range c.Regions {
			cc.Regions = append(cc.Regions, region{g.Line, g.Commit, g.Now, g.Before})
		}
		cs = append(cs, cc)
	}
	return map[string]any{"commit": e.Plan.Commit.Hash, "conflicts": cs}
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
		return RevertResult{Plan: plan}, &RevertConflictError{Plan: plan}
	}
	if err != nil {
		return RevertResult{}, err
	}
	return RevertResult{Plan: plan, Commit: commit, Resolved: resolved}, nil
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

// Text confirms what the revert did.
func (r RevertResult) Text() string {
	p := r.Plan
	subject := fmt.Sprintf("%s (%q)", p.Commit.Hash, subjectLine(p.Commit.Message))
	if len(p.Files) == 0 {
		return r.Resolved + fmt.Sprintf("Nothing to revert: the files %s changed are already as they were before it (%s). Nothing was committed.",
			subject, strings.Join(p.Unchanged, ", "))
	}
	var b strings.Builder
	b.WriteString(r.Resolved)
	fmt.Fprintf(&b, "Reverted %s%s:", subject, parenthesize(commitNote(r.Commit)))
	for _, f := range p.Files {
		fmt.Fprintf(&b, "\n- %s: %s", f.Path, f.What)
	}
	if len(p.Unchanged) > 0 {
		fmt.Fprintf(&b, "\nAlready as before the commit: %s", strings.Join(p.Unchanged, ", "))
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
