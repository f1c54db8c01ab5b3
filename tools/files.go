package tools

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/edit"
	"vaultmcp/vault/index"
)

type pathArgs struct {
	Path string `json:"path"`
}

// ReadArgs are read_file's arguments.
type ReadArgs struct {
	Path string `json:"path"`
	LineRange
	// Exact reads only the file named, never one whose name differs in
	// case, accents or a left-out ".md" (the REST API's callers name the
	// file they mean, and are answered 404 with suggestions otherwise).
	Exact bool `json:"-"`
}

// ReadFile is read_file: one file's text, a page of lines at a time.
func ReadFile(d Deps) server.ServerTool {
	tool := mcp.NewTool("read_file",
		mcp.WithDescription("Read a file's text (path relative to the vault root, e.g. \"notes/daily.md\"). "+
			"A long file comes a page at a time, with a notice giving the offset (and, inside a very long line, the column) to read on; offset and limit count lines. Binary files are described."),
		mcp.WithString("path", mcp.Required(), mcp.Description("File path relative to the vault root")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Lines to skip (the offset a notice gives)")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Description("Most lines to return (default: as many as fit in a page)")),
		mcp.WithInteger("column", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Bytes of the first line to skip, to read on inside a line longer than a page (the column a notice gives)")),
		annotate("Read file", true, false, true),
	)
	return withVersion(d, server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a ReadArgs) (*mcp.CallToolResult, error) {
		res, err := Read(ctx, d, a)
		if err != nil {
			return nil, err
		}
		d.noteRead(ctx, res.Path, res.Version)
		return withVersionText(textResult(res.Text()), res.Version), nil
	})})
}

// ReadResult is a page of a file as it is now.
type ReadResult struct {
	// Path is the file read, relative to the vault root.
	Path string
	// Page is the part of the content asked for.
	Page linePage
	// Resolved says which file was read when the path given differs from
	// it (in case, accents or a left-out ".md"); empty otherwise.
	Resolved string
	// Modified is the file's modification time when it was read.
	Modified time.Time
	// Version is the git blob id of the whole file as read ("" when it
	// changed size while being read).
	Version string
}

// Read is read_file's work: a page of lines of one file. A path that
// differs only in case, accents or a left-out ".md" from exactly one file
// is read as that file, saying so (Resolved), as the history tools do:
// the agent saves a call.
func Read(ctx context.Context, d Deps, a ReadArgs) (ReadResult, error) {
	f, info, err := d.Vault.OpenFile(ctx, a.Path)
	var res ReadResult
	if errors.Is(err, vault.ErrNotFound) && !a.Exact {
		if names := d.sameName(ctx, a.Path); len(names) == 1 && !strings.HasSuffix(names[0], "/") {
			if f2, info2, err2 := d.Vault.OpenFile(ctx, names[0]); err2 == nil {
				f, info, err = f2, info2, nil
				res.Resolved = takenAs(a.Path, names[0])
			}
		}
	}
	if err != nil {
		return ReadResult{}, err
	}
	defer f.Close()
	res.Path, res.Modified = info.Path.Rel, info.ModTime
	// The version is hashed from the bytes the page is read from, in the
	// same pass; what the page leaves unread (a binary file stops at its
	// first bytes) is hashed after it.
	hr := &hashingReader{r: f, h: vault.NewVersionHash(info.Size)}
	res.Page, err = readLines(hr, info.Size, a.LineRange, d.readBytes(), d.pageTokens())
	if err != nil {
		return ReadResult{}, fmt.Errorf("read %s: %w", a.Path, err)
	}
	if res.Page.Binary && info.Size > binaryVersionBytes {
		return res, nil // not read whole for a version nobody writes back
	}
	if _, err := io.Copy(io.Discard, hr); err != nil {
		return ReadResult{}, fmt.Errorf("read %s: %w", a.Path, err)
	}
	if hr.n == info.Size {
		// A file that grew or shrank while read has no one version.
		res.Version = hex.EncodeToString(hr.h.Sum(nil))
	}
	return res, nil
}

// binaryVersionBytes is the largest binary file read_file reads whole
// for its version (a text file is read whole anyway, its lines counted):
// an attachment's version serves delete_file and rename_file, and a large
// video is not worth reading for it.
const binaryVersionBytes = 16 << 20

// hashingReader hashes what is read through it, and counts it.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

// versionText is the line a reading tool's answer ends with: the version
// of what it read and what to do with it.
func versionText(version string) string {
	if version == "" {
		return ""
	}
	return "version: " + version + " (to write this file back only if it is still this version, pass it as if_version)"
}

// Text is read_file's answer: the page, after the line saying which file
// was read when the path given was taken for another.
func (r ReadResult) Text() string { return r.Resolved + renderPage(r.Path, r.Page) }

// Notice says which part of the file the page is and how to read on, as
// read_file's answer says it; "" when the page is the whole file.
func (r ReadResult) Notice() string { return r.Page.notice(r.Path) }

// Next says where the page after this one starts: the lines to skip and,
// inside a line longer than a page, the bytes of that line to skip. more
// is false when nothing follows the page.
func (r ReadResult) Next() (offset int, column int64, more bool) {
	pg := r.Page
	switch {
	case pg.Binary || pg.PastEnd:
		return 0, 0, false
	case pg.CutLine && pg.Lines > 1:
		return pg.last() - 1, int64(len(pg.Text) - pg.LastStart), true
	case pg.CutLine:
		return pg.First - 1, pg.Column + int64(len(pg.Text)), true
	case pg.last() < pg.TotalLines:
		return pg.last(), 0, true
	}
	return 0, 0, false
}

// renderPage is read_file's text for one page.
func renderPage(rel string, pg linePage) string {
	if pg.Binary {
		return fmt.Sprintf("Binary file: %s (%s, %s). read_file returns text only.", rel, contentType(rel, pg.Head), humanBytes(pg.Size))
	}
	text := string(pg.Text)
	if n := pg.notice(rel); n != "" && text == "" {
		return n
	} else if n != "" {
		// One blank line between the content and the notice.
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "\n" + n
	}
	return text
}

// newNamesRule is what every tool that creates a path says about names.
const newNamesRule = "New names must work where the vault syncs (macOS, Windows): a name that differs from an existing file or folder only in case " +
	"is refused (write to the existing one), and so are Windows device names (CON, NUL, COM1…), names ending in a dot or space, and \\ < > : \" | ? *."

// WriteArgs are write_file's arguments.
type WriteArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Mode    string `json:"mode"`
}

// writeModes maps write_file's mode argument onto the vault's.
var writeModes = map[string]vault.WriteMode{"": vault.Overwrite, "overwrite": vault.Overwrite, "create": vault.CreateOnly, "append": vault.Append}

// WriteFile is write_file: create, replace or append to a file, committed.
func WriteFile(d Deps) server.ServerTool {
	tool := mcp.NewTool("write_file",
		mcp.WithDescription("Create or replace a file (mode overwrite); mode create never replaces, append adds on a new line at the end. "+
			"Missing folders are created; the change is committed and pushed. To change part of a note, prefer edit_file. "+
			"Only .md files are notes. "+newNamesRule),
		mcp.WithString("path", mcp.Required(), mcp.Description("File path relative to the vault root, e.g. \"notes/daily.md\"")),
		mcp.WithString("content", mcp.Required(), mcp.Description("The new content (UTF-8 text): the whole file, or what to append")),
		mcp.WithString("mode", mcp.Enum("overwrite", "create", "append"), mcp.DefaultString("overwrite"), mcp.Description("What to do with an existing file")),
		annotate("Write file", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a WriteArgs) (*mcp.CallToolResult, error) {
		w, err := Write(ctx, d, a)
		if err != nil {
			return nil, err
		}
		var msg string
		switch {
		case w.Unchanged:
			msg = fmt.Sprintf("No change: %s already holds this content; nothing committed", w.Path.Rel)
		case w.Created:
			msg = fmt.Sprintf("Created %s (%s%s)", w.Path.Rel, plural(w.Bytes, "byte"), commitNote(w.Commit)) + notNoteNotice(w.Path.Rel, false)
		case a.Mode == "append":
			msg = fmt.Sprintf("Appended to %s (was %s, now %s%s)", w.Path.Rel, plural(w.PrevBytes, "byte"), plural(w.Bytes, "byte"), commitNote(w.Commit))
		default:
			msg = fmt.Sprintf("Replaced %s (was %s, now %s%s)", w.Path.Rel, plural(w.PrevBytes, "byte"), plural(w.Bytes, "byte"), commitNote(w.Commit))
		}
		return textResult(msg), nil
	})}
}

// Write is write_file's work.
func Write(ctx context.Context, d Deps, a WriteArgs) (vault.Written, error) {
	mode, ok := writeModes[a.Mode]
	if !ok {
		return vault.Written{}, invalid(fmt.Sprintf("mode %q is not one of overwrite, create, append", a.Mode))
	}
	if err := checkText("content", a.Content); err != nil {
		return vault.Written{}, err
	}
	if mode == vault.Append {
		if err := refuseBinary(ctx, d, a.Path); err != nil {
			return vault.Written{}, err
		}
	}
	return d.Vault.WriteFileMode(ctx, a.Path, []byte(a.Content), mode)
}

// appendCheckBytes is how much of a file refuseBinary reads whole; past
// it only the start is checked (the write cap refuses such files anyway).
const appendCheckBytes = 32 << 20

// refuseBinary refuses to append text to a file read_file shows as
// binary. It runs before the write, outside its lock: a file turned
// binary in between is the one case it misses, and the vault's write
// path stays the same for every mode. A missing file is fine (append
// creates it); other errors are left for the write to report.
func refuseBinary(ctx context.Context, d Deps, given string) error {
	f, _, err := d.Vault.OpenFile(ctx, given)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, appendCheckBytes))
	if err != nil {
		return nil
	}
	if edit.BinaryHead(data) || (len(data) < appendCheckBytes && !utf8.Valid(data)) {
		return invalid(vault.BinaryRefusal(given))
	}
	return nil
}

type editArgs struct {
	Path    string `json:"path"`
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

// EditFile is edit_file: replace text that occurs exactly once.
func EditFile(d Deps) server.ServerTool {
	tool := mcp.NewTool("edit_file",
		mcp.WithDescription("Replace old_text with new_text in a file. old_text must occur exactly once (include surrounding lines to make it unique); "+
			"otherwise nothing changes and the error says how many times it matched, or which line differs only in case or whitespace. "+
			"Works on files with CRLF line ends and finds accents stored composed or decomposed; binary files are refused. The change is committed."),
		mcp.WithString("path", mcp.Required(), mcp.Description("File path relative to the vault root")),
		mcp.WithString("old_text", mcp.Required(), mcp.Description("Exact text to find, including whitespace and line breaks")),
		mcp.WithString("new_text", mcp.Required(), mcp.Description("Text to put in its place (may be empty to delete old_text)")),
		annotate("Edit file", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a editArgs) (*mcp.CallToolResult, error) {
		if err := checkText("new_text", a.NewText); err != nil {
			return nil, err
		}
		w, err := d.Vault.EditFile(ctx, a.Path, a.OldText, a.NewText)
		if err != nil {
			return nil, err
		}
		if w.Unchanged {
			return textResult(fmt.Sprintf("No change: new_text is the same as old_text, so %s stays as it is; nothing committed", w.Path.Rel)), nil
		}
		msg := fmt.Sprintf("Edited %s (%d bytes%s)", w.Path.Rel, w.Bytes, commitNote(w.Commit))
		if w.Form != "" {
			msg += fmt.Sprintf(". old_text was found only in Unicode form %s (%s), as the file stores it; new_text was written in that form too", w.Form, formNames[w.Form])
		}
		return textResult(msg), nil
	})}
}

// formNames says what each Unicode normalization form is.
var formNames = map[string]string{"NFC": "accents composed", "NFD": "accents decomposed"}

// DeleteFile is delete_file: remove one file, committed.
func DeleteFile(d Deps) server.ServerTool {
	tool := mcp.NewTool("delete_file",
		mcp.WithDescription("Delete one file (not a folder). The deletion is committed, so the file stays recoverable from git history. "+
			"The result says how many links in other notes now point to the deleted file and are broken."),
		mcp.WithString("path", mcp.Required(), mcp.Description("File path relative to the vault root")),
		annotate("Delete file", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a pathArgs) (*mcp.CallToolResult, error) {
		var links, notes int
		w, err := d.Vault.DeleteFileWith(ctx, a.Path, func(p vault.Path) error {
			if d.Index == nil {
				return nil
			}
			var err error
			links, notes, err = d.Index.DanglingAfterDelete(ctx, p.Rel)
			return err
		})
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("Deleted %s%s", w.Path.Rel, parenthesize(commitNote(w.Commit)))
		if links > 0 {
			msg += fmt.Sprintf(". %d link(s) in %d note(s) pointed to it and are now broken (see get_broken_links)", links, notes)
		}
		return textResult(msg), nil
	})}
}

type renameArgs struct {
	OldPath     string `json:"old_path"`
	NewPath     string `json:"new_path"`
	UpdateLinks *bool  `json:"update_links"`
}

// RenameFile is rename_file: move a file, never overwriting, and rewrite
// the links that pointed to it.
func RenameFile(d Deps) server.ServerTool {
	tool := mcp.NewTool("rename_file",
		mcp.WithDescription("Move or rename a file, never overwriting one; missing folders are created. With update_links (default true), "+
			"links to it in other notes are rewritten, keeping aliases, headings, block ids and style, in the same commit. "+
			"A note (.md) is not renamed to a name without an extension. New names are checked as for write_file; renaming a file to a case variant of its own name is fine."),
		mcp.WithString("old_path", mcp.Required(), mcp.Description("Current file path relative to the vault root")),
		mcp.WithString("new_path", mcp.Required(), mcp.Description("New file path relative to the vault root")),
		mcp.WithBoolean("update_links", mcp.DefaultBool(true), mcp.Description("Rewrite links in other notes to follow the file")),
		annotate("Rename file", false, false, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a renameArgs) (*mcp.CallToolResult, error) {
		update := d.Index != nil && (a.UpdateLinks == nil || *a.UpdateLinks)
		var r index.Relinked
		var extra func(tx *vault.Tx, from, to vault.Path) error
		if update {
			// Plan from a complete index: one still building may not have
			// seen the file, or its backlinks, before it moves.
			if err := d.Index.Wait(ctx); err != nil {
				return nil, fmt.Errorf("the link index is not ready yet, nothing was renamed: %w", err)
			}
			extra = func(tx *vault.Tx, from, to vault.Path) (err error) {
				r, err = d.Index.FollowRenameAll(ctx, tx, from.Rel, to.Rel)
				return err
			}
		}
		w, err := d.Vault.RenameFile(ctx, a.OldPath, a.NewPath, extra)
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("Renamed %s -> %s%s", w.From.Rel, w.Path.Rel, parenthesize(commitNote(w.Commit)))
		switch {
		case update:
			msg += fmt.Sprintf("; updated %d link(s) in %d note(s)", r.Links, r.Notes) + canvasRelinkNote(r)
		case d.Index != nil:
			msg += "; links to it were not updated (update_links is false)"
		}
		if vault.IsNote(w.From.Rel) {
			msg += notNoteNotice(w.Path.Rel, true)
		}
		return textResult(msg), nil
	})}
}

// notNoteNotice is what an answer adds when a change leaves rel a file
// that is not a note although it may have been meant as one: a written
// name without an extension (attachments and data files have one), or a
// note renamed to a name not ending in .md. Such files are legitimate,
// but the index never reads them.
func notNoteNotice(rel string, wasNote bool) string {
	switch {
	case vault.IsNote(rel):
		return ""
	case wasNote:
		return fmt.Sprintf("; %s is now a plain file, not a note: names without .md are not indexed", rel)
	case !vault.HasExtension(rel):
		return fmt.Sprintf("; written as a plain file, not a note: names without .md are not indexed (for a note, use %s.md)", rel)
	}
	return ""
}

func parenthesize(note string) string {
	if note == "" {
		return ""
	}
	return " (" + strings.TrimPrefix(note, ", ") + ")"
}

// checkText refuses text that was not valid UTF-8 when the client sent it.
// JSON decoding turns invalid bytes and lone surrogates into U+FFFD, so a
// replacement character is the only trace they leave; writing it would
// silently corrupt the note.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8 text", field)
	}
	if strings.ContainsRune(s, utf8.RuneError) {
		return fmt.Errorf("%s contains U+FFFD (the replacement character), which means it was not valid UTF-8 when sent; send the text as valid UTF-8", field)
	}
	return nil
}

// trimPartialRune drops an incomplete UTF-8 sequence that a byte limit cut
// off at the end.
func trimPartialRune(data []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(data); i++ {
		if utf8.RuneStart(data[len(data)-i]) {
			if !utf8.FullRune(data[len(data)-i:]) {
				return data[:len(data)-i]
			}
			break
		}
	}
	return data
}

func contentType(rel string, data []byte) string {
	if t := mime.TypeByExtension(path.Ext(rel)); t != "" {
		return t
	}
	return http.DetectContentType(data)
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
