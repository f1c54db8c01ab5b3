package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/idempotency"
	"vaultmcp/vault"
)

// Conditional writes: every tool that changes one named file takes
// if_version, the version a read returned; the vault checks it under its
// write lock (vault.WithExpectedVersion) and a stale one is answered with
// the file's version now, its last change and a diff, nothing written.

// conditionalTools are the tools that change one named file, with the
// argument naming it.
var conditionalTools = map[string]string{
	"write_file":     "path",
	"edit_file":      "path",
	"patch_note":     "path",
	"set_properties": "path",
	"delete_file":    "path",
	"rename_file":    "old_path",
	"edit_canvas":    "path",
}

const ifVersionDescription = "Version from your read of this file: write only if it is unchanged (else the error gives the current version and a diff); \"absent\": only if missing"

// conditional gives a writing tool its if_version and idempotency_key
// arguments: the handler runs with the expectation in its context, and
// once per key (see package idempotency).
func conditional(d Deps, st server.ServerTool, pathArg string) server.ServerTool {
	st.Tool.InputSchema.Properties["if_version"] = map[string]any{
		"type":        "string",
		"description": ifVersionDescription,
	}
	st.Tool.InputSchema.Properties["idempotency_key"] = map[string]any{
		"type":        "string",
		"maxLength":   idempotency.MaxKeyLength,
		"description": idempotencyDescription,
	}
	next := st.Handler
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		key, _ := args["idempotency_key"].(string)
		if key == "" || d.Idempotency == nil {
			return d.writeOnce(ctx, req, next, pathArg)
		}
		rest := maps.Clone(args)
		delete(rest, "idempotency_key")
		raw, err := json.Marshal(rest) // map keys sorted: one text per arguments
		if err != nil {
			return errorResult(ctx, d, err), nil
		}
		fp := idempotency.Fingerprint([]byte(req.Params.Name), raw)
		var res *mcp.CallToolResult
		var callErr error
		answer, replayed, err := d.Idempotency.Do(caller(ctx), key, fp, func() ([]byte, bool) {
			res, callErr = d.writeOnce(ctx, req, next, pathArg)
			if callErr != nil || res == nil || res.IsError {
				return nil, false // nothing applied: a retry may apply it
			}
			b, err := json.Marshal(res)
			return b, err == nil
		})
		switch {
		case err != nil && res == nil:
			return errorResult(ctx, d, err), nil
		case err != nil:
			d.logger().Warn("idempotency key not kept", "err", err)
			return res, callErr
		case replayed:
			var first mcp.CallToolResult
			if err := json.Unmarshal(answer, &first); err != nil {
				return errorResult(ctx, d, fmt.Errorf("the first answer to idempotency_key %q is unreadable: %w", key, err)), nil
			}
			first.Content = append(first.Content, mcp.NewTextContent("notice: this is the answer to the first call with this idempotency_key; nothing was applied again"))
			return &first, nil
		}
		return res, callErr
	}
	return st
}

const idempotencyDescription = "Retry key: the same call with this key within 24 h returns the first answer and applies nothing"

// writeOnce is one writing call: if_version set in its context, and the
// notice of a file changed since the caller read it.
func (d Deps) writeOnce(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, pathArg string) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	want, _ := args["if_version"].(string)
	if want != "" {
		if err := vault.CheckVersion("if_version", want); err != nil {
			return errorResult(ctx, d, err), nil
		}
		ctx = vault.WithExpectedVersion(ctx, want)
	}
	given, _ := args[pathArg].(string)
	notice := ""
	if want == "" {
		notice = d.changedSinceRead(ctx, given)
	}
	var wroteRel, wrote string
	ctx = vault.WithWrittenVersion(ctx, func(rel, version string) { wroteRel, wrote = rel, version })
	res, err := next(ctx, req)
	if err != nil || res == nil || res.IsError {
		return res, err
	}
	if notice != "" {
		res.Content = append(res.Content, mcp.NewTextContent(notice))
	}
	if wrote != "" {
		// The caller knows the file as it wrote it: its own write is not
		// a change since its read.
		if _, ok := d.Reads.Last(caller(ctx), wroteRel); ok {
			d.Reads.Read(caller(ctx), wroteRel, wrote)
		}
		res.Content = append(res.Content, mcp.NewTextContent("version: "+wrote+" (the file as it is after this change: pass it as if_version for your next change to it)"))
	}
	return res, nil
}

// Caller names the credential a call came with, for what is kept per
// credential (idempotency keys, last reads): "token:n8n", "oauth:alice
// via Claude"; "local" over stdio.
func Caller(ctx context.Context) string { return caller(ctx) }

func caller(ctx context.Context) string {
	id, ok := auth.FromContext(ctx)
	if !ok {
		return "local"
	}
	if id.Client != "" {
		return id.String() + " via " + id.Client
	}
	return id.String()
}

// noteRead remembers the version of a file the caller read.
func (d Deps) noteRead(ctx context.Context, rel, version string) {
	d.Reads.Read(caller(ctx), rel, version)
}

// noticeReadBytes is the largest file whose change since a read an
// unconditional write reports; larger ones are not read for a notice.
const noticeReadBytes = 4 << 20

// currentVersion reads the file at given for its version; "" when it
// cannot be read.
func (d Deps) currentVersion(ctx context.Context, given string) (rel, version string) {
	f, err := d.Vault.ReadFile(ctx, given, noticeReadBytes)
	if err != nil || f.Truncated {
		return "", ""
	}
	return f.Path.Rel, vault.Version(f.Data)
}

// changedSinceRead is the notice of an unconditional write to a file that
// changed since the caller last read it; "" otherwise, and when the
// caller never read it (nothing is read then).
func (d Deps) changedSinceRead(ctx context.Context, given string) string {
	if d.Reads == nil || d.Vault == nil || given == "" {
		return ""
	}
	p, err := d.Vault.Resolve(given)
	if err != nil {
		return ""
	}
	read, ok := d.Reads.Last(caller(ctx), p.Rel)
	if !ok {
		return ""
	}
	rel, now := d.currentVersion(ctx, given)
	if now == "" || now == read {
		return ""
	}
	return fmt.Sprintf("notice: %s had changed since you last read it (you read version %s; it was %s when you wrote), and this write replaced or changed that newer version. "+
		"Check get_note_history or get_diff for what was overwritten; pass if_version to be refused instead.", rel, read, now)
}

// LastChange is the commit that last changed a file, as a conflict names
// it.
type LastChange struct {
	Commit  string    `json:"commit"`
	Author  string    `json:"author"`
	Time    time.Time `json:"time"`
	Message string    `json:"message"`
}

// ConflictFields are the fields of a refused conditional change's
// answer beside its message (see conflictFields), for the REST API.
func ConflictFields(ctx context.Context, d Deps, ce *vault.VersionConflictError) map[string]any {
	return d.conflictFields(ctx, ce)
}

// conflictFields are the fields of a refused conditional write's answer
// beside "error": the current version, the file's last change, and the
// diff from the caller's version to the current one when git holds the
// caller's version.
func (d Deps) conflictFields(ctx context.Context, ce *vault.VersionConflictError) map[string]any {
	f := map[string]any{"path": ce.Path, "current_version": ce.Current, "your_version": ce.Expected}
	if d.Git == nil {
		return f
	}
	if h, err := d.Git.NoteHistory(ctx, gitsync.NoteHistoryOptions{Path: ce.Path, Limit: 1}); err == nil && len(h.Versions) > 0 {
		v := h.Versions[0]
		f["last_change"] = LastChange{Commit: v.Hash, Author: v.Author, Time: v.Time, Message: v.Message}
		if at, err := d.Git.FileAt(ctx, "HEAD", ce.Path, 1); err == nil && at.Blob != ce.Current && ce.Current != vault.Absent {
			f["uncommitted"] = "the current content is not committed yet: it was changed on disk outside the server (an editor or a sync) after the last commit"
		}
	}
	if ce.Expected == vault.Absent || ce.Current == vault.Absent {
		return f
	}
	old, found, err := d.Git.Blob(ce.Expected)
	switch {
	case err != nil || !found:
		f["diff_unavailable"] = "your version is not in the history (it was never committed), so no diff can be shown: read the file again and merge by hand"
	default:
		fp := gitsync.TextDiff(ce.Path, old, ce.Data)
		switch {
		case fp.Binary:
			f["diff_unavailable"] = "binary or too large to diff"
		default:
			text := strings.Join(fp.Lines, "\n")
			if fp.Truncated > 0 {
				text += fmt.Sprintf("\n[... %d more diff line(s) not shown: use get_diff ...]", fp.Truncated)
			}
			f["diff"] = text
		}
	}
	return f
}

// conflictError reports whether err is a refused conditional write.
func conflictError(err error) (*vault.VersionConflictError, bool) {
	var ce *vault.VersionConflictError
	return ce, errors.As(err, &ce)
}

// withVersionText adds the version a reading tool read to its text
// answer, as a content block of its own after the text.
func withVersionText(res *mcp.CallToolResult, version string) *mcp.CallToolResult {
	if t := versionText(version); t != "" {
		res.Content = append(res.Content, mcp.NewTextContent(t))
	}
	return res
}
