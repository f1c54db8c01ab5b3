package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/prompts"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
)

// NoteTemplate is the URI template of the vault's files as resources:
// vault:/// and the vault-relative path, each segment percent-encoded. It
// uses RFC 6570 reserved expansion ({+path}) because a simple {path}
// would not match the '/' of nested paths.
const NoteTemplate = "vault:///{+path}"

const (
	uriPrefix = "vault:///"
	// PageSize is how many resources one resources/list page holds
	// (about 30 KB of JSON).
	PageSize = 200
	// DefaultMaxBlobBytes caps a binary file read as a resource (less
	// when the answer ceiling is lower); larger ones are refused rather
	// than cut, since a partial image is useless.
	DefaultMaxBlobBytes = 2 << 20
)

// NoteURI returns the resource URI of a vault-relative path.
func NoteURI(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return uriPrefix + strings.Join(parts, "/")
}

// NotePath returns the vault-relative path a resource URI names, or an
// error when it is not a vault:/// URI. The path is not yet checked
// against the vault boundary.
func NotePath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return "", fmt.Errorf("not a vault resource URI: %q (want %s<path>)", uri, uriPrefix)
	}
	if strings.ContainsAny(rest, "?#") {
		return "", fmt.Errorf("resource URI %q has a query or fragment; percent-encode ? and # in file names", uri)
	}
	rel, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("resource URI %q: %w", uri, err)
	}
	if rel == "" {
		return "", fmt.Errorf("resource URI %q names no file", uri)
	}
	return rel, nil
}

// resources serves the vault's files as MCP resources: listed a page at a
// time from the index, read through the vault boundary, and followed by
// per-session subscriptions that the change feed keeps informed.
type resources struct {
	v        *vault.Vault
	ix       *index.Index
	changes  *changes.Feed
	log      *slog.Logger
	maxText  int64
	maxBlob  int64
	s        *server.MCPServer // set by attach
	subs     *subscriptions
	template mcp.ResourceTemplate
}

func newResources(d tools.Deps) *resources {
	// A resource is read whole (there is no paging), up to the ceiling
	// every answer keeps to; base64 makes a blob a third larger.
	room := int64(d.ResultLimit() - 1024)
	maxText := max(room, 1024)
	maxBlob := min(DefaultMaxBlobBytes, max(room*3/4, 1024))
	return &resources{
		v:       d.Vault,
		ix:      d.Index,
		changes: d.Changes,
		log:     d.Logger,
		maxText: maxText,
		maxBlob: maxBlob,
		subs:    newSubscriptions(d.Vault, d.Logger),
		template: mcp.NewResourceTemplate(NoteTemplate, "vault-file",
			mcp.WithTemplateTitle("Vault file"),
			mcp.WithTemplateDescription("A file of the Obsidian vault by its path relative to the vault root, each segment percent-encoded "+
				"(vault:///Daily%20Notes/2026-02-08.md). Notes are text/markdown; images and other binary files come as base64 blobs."),
		),
	}
}

// attach registers the template, the list and subscription hooks, and the
// change listener.
func (r *resources) attach(s *server.MCPServer, hooks *server.Hooks) {
	r.s = s
	r.subs.s = s
	s.AddResourceTemplate(r.template, r.read)
	hooks.AddAfterListResources(r.list)
	r.subs.hook(hooks)
	r.changes.Bracket(r.around)
}

// around brackets every change announced on the feed: it notes which of
// the changed paths were listed files (or folders holding some) before the
// index takes the change in, and afterwards tells subscribers of the
// changed files, and every session when the list itself changed.
func (r *resources) around(b changes.Batch) (after func()) {
	paths := b.Paths
	// Before the first build the index cannot say what was listed; no
	// client has a list to invalidate yet either (resources/list waits).
	ready := r.ix.Ready()
	var was []presence
	whole := slices.Contains(paths, "")
	if ready && !whole {
		was = make([]presence, len(paths))
		for i, p := range paths {
			was[i] = r.presence(p)
		}
	}
	return func() {
		defer r.guard("resource notifications")
		r.subs.notify(paths)
		if ready && (whole || r.listChanged(paths, was)) {
			r.s.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
		}
	}
}

// presence is what the index lists at one changed path: the file itself,
// or (for a path that is no file on disk now: a folder, or gone) any file
// below it.
type presence struct{ file, below bool }

func (r *resources) presence(p string) presence {
	if !r.listable(p) {
		return presence{} // nothing at or below it is listed
	}
	var st presence
	st.file, _ = r.ix.HasFile(context.Background(), p)
	// A path that is a file on disk now needs no look below it: if a
	// folder stood there before, the file itself tells the lists apart.
	// That keeps the common case — a note written — free of a scan.
	if !st.file && !r.regularFile(p) {
		r.ix.Files(p, func(rel string) bool {
			if rel != p && r.listable(rel) {
				st.below = true
				return false
			}
			return true
		})
	}
	return st
}

func (r *resources) regularFile(p string) bool {
	_, fi, err := r.v.Stat(context.Background(), p) // the server's own look
	return err == nil && fi.Mode().IsRegular()
}

// listChanged reports whether any changed path is listed differently now.
func (r *resources) listChanged(paths []string, was []presence) bool {
	for i, p := range paths {
		if r.presence(p) != was[i] {
			return true
		}
	}
	return false
}

// guard keeps a hook's panic from killing the session; the answer then
// stays what mcp-go built (an empty list).
func (r *resources) guard(what string) {
	if p := recover(); p != nil {
		r.log.Error(what+" panicked", "panic", p, "stack", string(debug.Stack()))
	}
}

// list fills a resources/list answer. mcp-go lists only resources
// registered one by one, which for a vault would mean a second copy of
// every path kept in step with the index; instead no resource is
// registered and this hook pages through the index. mcp-go has already
// checked that the cursor is base64; the cursor is the last path of the
// previous page, so pages stay consistent while files come and go.
func (r *resources) list(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	defer r.guard("resources/list")
	if res == nil {
		return
	}
	after := ""
	if req != nil && req.Params.Cursor != "" {
		raw, err := base64.StdEncoding.DecodeString(string(req.Params.Cursor))
		if err != nil {
			return
		}
		after = string(raw)
	}
	files := r.files(ctx)
	start := sort.SearchStrings(files, after)
	if start < len(files) && files[start] == after {
		start++
	}
	end := min(start+PageSize, len(files))
	res.Resources = make([]mcp.Resource, 0, end-start)
	for _, rel := range files[start:end] {
		res.Resources = append(res.Resources, mcp.Resource{
			URI:      NoteURI(rel),
			Name:     rel,
			Title:    strings.TrimSuffix(path.Base(rel), ".md"),
			MIMEType: mimeByName(rel),
		})
	}
	res.NextCursor = ""
	if end < len(files) {
		res.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(files[end-1])))
	}
}

// files returns the sorted paths of every file a client may see as a
// resource, waiting for the index's first build; under ctx's access scope
// only those it shows.
func (r *resources) files(ctx context.Context) []string {
	if err := r.ix.Wait(ctx); err != nil {
		return nil
	}
	scope := r.ix.Scope(ctx) // a link shows only where its target may
	var out []string
	r.ix.Files("", func(rel string) bool {
		if r.listable(rel) && scope.Visible(rel) {
			out = append(out, rel)
		}
		return true
	})
	slices.Sort(out)
	return out
}

// listable reports whether a client may see rel among the resources: not
// inside a hidden or skipped folder, and no dot-file or dot-folder on the
// way (Obsidian hides those too).
func (r *resources) listable(rel string) bool {
	if rel == "" {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") || r.v.Skipped(part) {
			return false
		}
	}
	return true
}

// notes, folders and tags feed argument completion.
func (r *resources) notes(ctx context.Context) []string { return r.files(ctx) }

func (r *resources) folders(ctx context.Context) []string {
	seen := map[string]bool{}
	for _, rel := range r.files(ctx) {
		for dir := path.Dir(rel); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
		}
	}
	out := make([]string, 0, len(seen))
	for dir := range seen {
		out = append(out, dir)
	}
	slices.Sort(out)
	return out
}

func (r *resources) tags(ctx context.Context) []string {
	counts, err := r.ix.Tags(ctx, "", false)
	if err != nil {
		return nil
	}
	out := make([]string, len(counts))
	for i, c := range counts {
		out[i] = c.Tag
	}
	return out
}

// CompleteResourceArgument completes the path of the note template
// (server.ResourceCompletionProvider). Anything else gets no values.
func (r *resources) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (res *mcp.Completion, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("resource completion panicked", "panic", p, "stack", string(debug.Stack()))
			res, err = prompts.Complete(nil, ""), nil
		}
	}()
	if uri != NoteTemplate || arg.Name != "path" {
		return prompts.Complete(nil, ""), nil
	}
	return prompts.Complete(r.files(ctx), arg.Value), nil
}

var _ server.ResourceCompletionProvider = (*resources)(nil)

// read answers resources/read for one vault file: text (text/markdown for
// notes) cut at the read limit with a notice, or a base64 blob for
// binaries up to the blob limit.
func (r *resources) read(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	rel, err := NotePath(uri)
	if err != nil {
		return nil, invalidParams{err}
	}
	p, fi, err := r.v.Stat(ctx, rel)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	if !r.listable(rel) || !r.listable(p.Rel) {
		// Dot-folders (.obsidian, .trash, the guides) stay out of
		// resources, as they stay out of Obsidian; read_file reaches them
		// by name.
		return nil, invalidParams{fmt.Errorf("resource not found: %s (files in dot-folders and skipped folders are not resources)", uri)}
	}
	if fi.IsDir() {
		return nil, invalidParams{fmt.Errorf("resource not found: %s is a folder; list its files with resources/list or list_directory", uri)}
	}
	if !fi.Mode().IsRegular() {
		return nil, invalidParams{fmt.Errorf("resource not found: %s is not a regular file", uri)}
	}
	mimeType := mimeByName(p.Rel)
	if !isTextType(mimeType) && fi.Size() > r.maxBlob {
		return nil, tooLarge(uri, fi.Size(), r.maxBlob)
	}
	// Text is cut at the read limit; a file that turns out binary is read
	// again up to the blob limit.
	limit := r.maxBlob
	if isTextType(mimeType) {
		limit = r.maxText
	}
	f, err := r.v.ReadFile(ctx, p.Rel, limit)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	if looksText(f.Data, f.Truncated) {
		if int64(len(f.Data)) > r.maxText {
			f.Data, f.Truncated = f.Data[:r.maxText], true
		}
		text := string(f.Data)
		if f.Truncated {
			text = strings.ToValidUTF8(text, "") // the rune cut in two at the end
			text += fmt.Sprintf("\n\n[... truncated: showing the first %s of %s; use grep or read_file to find the part you need ...]",
				humanBytes(int64(len(text))), humanBytes(f.Size))
		}
		if !isTextType(mimeType) {
			mimeType = "text/plain"
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mimeType, Text: text}}, nil
	}
	if f.Size > r.maxBlob {
		return nil, tooLarge(uri, f.Size, r.maxBlob)
	}
	if limit < f.Size {
		if f, err = r.v.ReadFile(ctx, p.Rel, r.maxBlob); err != nil {
			return nil, resourceError(uri, err)
		}
		if f.Truncated {
			return nil, tooLarge(uri, f.Size, r.maxBlob)
		}
	}
	if mimeType == "" || isTextType(mimeType) {
		mimeType = http.DetectContentType(f.Data)
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mimeType, Blob: base64.StdEncoding.EncodeToString(f.Data)}}, nil
}

func tooLarge(uri string, size, limit int64) error {
	return invalidParams{fmt.Errorf("%s is %s, more than the %s a resource read returns; link to it instead", uri, humanBytes(size), humanBytes(limit))}
}

// resourceError phrases a vault error for a resource; vault errors are
// already safe for clients.
func resourceError(uri string, err error) error {
	if errors.Is(err, vault.ErrNotFound) {
		return invalidParams{fmt.Errorf("resource not found: %s", uri)}
	}
	err = fmt.Errorf("%s: %w", uri, err)
	for _, kind := range []error{vault.ErrInvalidPath, vault.ErrOutside, vault.ErrHidden, vault.ErrIsDir, vault.ErrNotDir} {
		if errors.Is(err, kind) {
			return invalidParams{err}
		}
	}
	return err
}

// looksText reports whether data is text: valid UTF-8 (but for a rune cut
// at the end of a partial read) without NUL bytes.
func looksText(data []byte, partial bool) bool {
	if partial {
		data = data[:len(data)-partialRune(string(data))]
	}
	return utf8.Valid(data) && !slices.Contains(data, 0)
}

// partialRune returns the length of an incomplete UTF-8 sequence at the
// end of s.
func partialRune(s string) int {
	for i := 1; i <= utf8.UTFMax && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// mimeTypes are the types of the files vaults hold. A fixed table: the
// system's mime.types differs from machine to machine.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".csv": "text/csv",
	".canvas": "application/json", ".json": "application/json", ".base": "text/yaml", ".yaml": "text/yaml", ".yml": "text/yaml",
	".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml", ".xml": "application/xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".bmp": "image/bmp", ".avif": "image/avif", ".heic": "image/heic", ".tif": "image/tiff", ".tiff": "image/tiff",
	".pdf": "application/pdf", ".mp3": "audio/mpeg", ".wav": "audio/wav", ".m4a": "audio/mp4", ".ogg": "audio/ogg",
	".flac": "audio/flac", ".webm": "video/webm", ".mp4": "video/mp4", ".mov": "video/quicktime", ".mkv": "video/x-matroska",
	".zip": "application/zip",
}

// mimeByName returns the MIME type of a file by its extension, "" when
// unknown.
func mimeByName(rel string) string { return mimeTypes[strings.ToLower(path.Ext(rel))] }

// isTextType reports whether a MIME type is text a client reads as such.
func isTextType(t string) bool {
	switch {
	case strings.HasPrefix(t, "text/"), t == "application/json", t == "application/xml", t == "image/svg+xml":
		return true
	}
	return false
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
