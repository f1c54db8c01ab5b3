package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
)

// ConfirmDeletionArgs are confirm_mass_deletion's arguments.
type ConfirmDeletionArgs struct {
	// Files must equal the number of files get_vault_info reports as held
	// back, so that a deletion that grew since is never confirmed blindly.
	Files int `json:"files"`
}

// ConfirmDeletionResult is what confirm_mass_deletion did.
type ConfirmDeletionResult struct {
	Deleted int    `json:"deleted" jsonschema:"Files whose deletion was committed (files that came back meanwhile are kept)"`
	Commit  string `json:"commit" jsonschema:"Short hash of the commit"`
	Message string `json:"message"`
}

// ConfirmMassDeletion commits the mass deletion the sync held back, after
// checking the caller saw the same number of files.
func ConfirmMassDeletion(ctx context.Context, d Deps, a ConfirmDeletionArgs) (ConfirmDeletionResult, error) {
	if d.Git == nil {
		return ConfirmDeletionResult{}, errors.New("the vault has no git history: nothing is ever held back")
	}
	held := d.Git.Status().HeldDeletion
	res, err := d.Git.ConfirmDeletion(ctx, a.Files)
	if errors.Is(err, gitsync.ErrNoHeldDeletion) {
		return ConfirmDeletionResult{}, errors.New("no mass deletion is waiting for confirmation (get_vault_info shows one when the sync holds it back)")
	}
	if err != nil {
		return ConfirmDeletionResult{}, err
	}
	n := a.Files
	if held != nil {
		n = held.Files
	}
	return ConfirmDeletionResult{
		Deleted: n,
		Commit:  res.Hash,
		Message: fmt.Sprintf("Committed the deletion of %s%s; it is pushed with the next sync.", plural(n, "file"), commitNote(res.Hash)),
	}, nil
}

// ConfirmDeletion is confirm_mass_deletion: the explicit confirmation the
// mass-deletion guard waits for.
func ConfirmDeletion(d Deps) server.ServerTool {
	tool := mcp.NewTool("confirm_mass_deletion",
		mcp.WithDescription("Commit a mass deletion that the sync held back. When many tracked files disappear at once "+
			"(more than 200, or more than 20% of the vault: a failed checkout, an emptied or unmounted folder), the server "+
			"does not commit or push their deletion; get_vault_info then shows it under held_deletion. Call this only when the "+
			"user confirms the files were deleted on purpose, passing the number of files get_vault_info reports. "+
			"If the files come back instead, nothing needs confirming."),
		mcp.WithInteger("files", mcp.Required(), mcp.Min(1),
			mcp.Description("The number of held-back files, exactly as get_vault_info reports it")),
		outputSchema[ConfirmDeletionResult](),
		annotate("Confirm mass deletion", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a ConfirmDeletionArgs) (*mcp.CallToolResult, error) {
		res, err := ConfirmMassDeletion(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructured(res, res.Message), nil
	})}
}
