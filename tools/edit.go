package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/edit"
)

// PatchNoteArgs are patch_note's arguments.
type PatchNoteArgs struct {
	Path       string `json:"path"`
	TargetType string `json:"target_type"`
	Target     string `json:"target"`
	Operation  string `json:"operation"`
	Content    string `json:"content"`
}

// PatchNoteResult is patch_note's answer.
type PatchNoteResult struct {
	Path       string `json:"path"`
	TargetType string `json:"target_type"`
	Target     string `json:"target"`
	Operation  string `json:"operation"`
	Changed    bool   `json:"changed" jsonschema:"false: already so, nothing committed"`
	Bytes      int    `json:"bytes"`
	Commit     string `json:"commit,omitempty"`
}

// Patch is patch_note's work: change one part of a note (a heading's
// section, a block, a property) and commit it.
func Patch(ctx context.Context, d Deps, a PatchNoteArgs) (*PatchNoteResult, error) {
	if err := checkText("content", a.Content); err != nil {
		return nil, err
	}
	p := edit.Patch{Type: edit.TargetType(a.TargetType), Target: a.Target, Op: edit.Op(a.Operation), Content: a.Content}
	summary := func(rel string) string {
		return fmt.Sprintf("patch %s (%s %s %s)", rel, a.Operation, a.TargetType, oneLine(a.Target))
	}
	changed := false
	w, err := d.Vault.ModifyFile(ctx, a.Path, summary, func(src []byte) ([]byte, error) {
		if edit.Binary(src) {
			return nil, invalid(vault.BinaryRefusal(a.Path))
		}
		if p.Type == edit.Frontmatter && !vault.IsNote(a.Path) {
			return nil, invalid(notNoteProperties(a.Path))
		}
		out, err := edit.Apply(src, p)
		changed = err == nil && !bytes.Equal(out, src)
		return out, err
	})
	if err != nil {
		return nil, editError(err)
	}
	return &PatchNoteResult{
		Path: w.Path.Rel, TargetType: a.TargetType, Target: a.Target, Operation: a.Operation,
		Changed: changed, Bytes: w.Bytes, Commit: w.Commit,
	}, nil
}

// PatchNote is patch_note; Patch does its work.
func PatchNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("patch_note",
		mcp.WithDescription("Change one part of a note, the rest kept byte for byte, as one commit. "+
			"heading: target is its text, or \"Outer::Inner\" when the text repeats; the section runs to the next heading of the same or a higher level; "+
			"append goes after its last line, prepend under the heading, replace swaps its text, delete drops heading and section. "+
			"block: target \"^id\" (the id is kept). frontmatter: target is a key; content is JSON or text; append/prepend extend a list. "+
			"An unknown or ambiguous target is an error listing candidates."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithString("target_type", mcp.Required(), mcp.Enum("heading", "block", "frontmatter"), mcp.Description("What target names")),
		mcp.WithString("target", mcp.Required(), mcp.Description("Heading text or path, ^block-id, or property key")),
		mcp.WithString("operation", mcp.Required(), mcp.Enum("append", "prepend", "replace", "delete"), mcp.Description("What to do there")),
		mcp.WithString("content", mcp.Description("Lines to insert or put in place; empty for delete"), mcp.DefaultString("")),
		outputSchema[PatchNoteResult](),
		annotate("Patch note", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a PatchNoteArgs) (*mcp.CallToolResult, error) {
		res, err := Patch(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// GetPropertiesArgs are get_properties's arguments.
type GetPropertiesArgs struct {
	Path string `json:"path"`
}

// GetPropertiesResult is get_properties's answer: the note's properties
// in the order written, with their types.
type GetPropertiesResult struct {
	Path       string      `json:"path"`
	Properties edit.Object `json:"properties" jsonschema:"Each frontmatter key with its value, in the order written"`
	Types      edit.Object `json:"types" jsonschema:"Each key's type: text, list, number, checkbox, date, datetime, object or empty"`
	// Version is the git blob id of the note read: if_version for a
	// write back.
	Version string `json:"version"`
}

// Properties is get_properties' work: read a note's frontmatter
// properties.
func Properties(ctx context.Context, d Deps, a GetPropertiesArgs) (*GetPropertiesResult, error) {
	if !vault.IsNote(a.Path) {
		// Not read whole for nothing: a missing file is still not found.
		f, _, err := d.Vault.OpenFile(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		f.Close()
		return nil, invalid(a.Path + " is not a note: properties are the frontmatter of .md notes")
	}
	f, err := d.Vault.ReadFile(ctx, a.Path, 0)
	if err != nil {
		return nil, err
	}
	props, err := edit.Properties(f.Data)
	if err != nil {
		return nil, editError(err)
	}
	res := &GetPropertiesResult{Path: f.Path.Rel, Properties: edit.Object{}, Types: edit.Object{}, Version: vault.Version(f.Data)}
	d.noteRead(ctx, res.Path, res.Version)
	for _, p := range props {
		res.Properties = append(res.Properties, edit.Member{Key: p.Key, Value: p.Value})
		res.Types = append(res.Types, edit.Member{Key: p.Key, Value: p.Type})
	}
	return res, nil
}

var propertiesOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "properties": {"type": "object"},
    "types": {"type": "object", "additionalProperties": {"type": "string"}},
    "version": {"type": "string", "description": "The note's version (git blob id): pass it as if_version to set_properties or patch_note to write only if the note is unchanged"}
  },
  "required": ["path", "properties", "types", "version"]
}`)

// GetProperties is get_properties; Properties does its work.
func GetProperties(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_properties",
		mcp.WithDescription("A note's frontmatter properties in the order written, with each one's type: text, list, number, checkbox, date, datetime, object or empty."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithRawOutputSchema(propertiesOutputSchema),
		annotate("Get properties", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a GetPropertiesArgs) (*mcp.CallToolResult, error) {
		res, err := Properties(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// SetPropertiesArgs are set_properties's arguments. Properties is kept
// as raw JSON so new keys are written in the order the client gave them.
type SetPropertiesArgs struct {
	Path       string          `json:"path"`
	Properties json.RawMessage `json:"properties"`
	Remove     []string        `json:"remove"`
}

// SetPropertiesResult is set_properties's answer.
type SetPropertiesResult struct {
	Path       string      `json:"path"`
	Changed    bool        `json:"changed"`
	Commit     string      `json:"commit,omitempty"`
	Set        []string    `json:"set" jsonschema:"Keys whose value changed"`
	Added      []string    `json:"added" jsonschema:"Keys that were new"`
	Removed    []string    `json:"removed" jsonschema:"Keys deleted"`
	Unchanged  []string    `json:"unchanged" jsonschema:"Keys given with the value they already had, and keys to remove that were not there"`
	Properties edit.Object `json:"properties" jsonschema:"The note's properties afterwards"`
}

// UpdateProperties is set_properties' work: set and remove frontmatter
// properties, as one commit.
func UpdateProperties(ctx context.Context, d Deps, a SetPropertiesArgs) (*SetPropertiesResult, error) {
	var set edit.Object
	if raw := strings.TrimSpace(string(a.Properties)); raw != "" && raw != "null" {
		obj, err := edit.DecodeObject(a.Properties)
		if err != nil {
			return nil, fmt.Errorf("properties: %w", editError(err))
		}
		set = obj
	}
	if len(set) == 0 && len(a.Remove) == 0 {
		return nil, badInput("nothing to do: give properties to set and/or keys to remove")
	}
	var ch edit.Change
	var after []byte
	summary := func(rel string) string {
		keys := append(append(append([]string{}, ch.Set...), ch.Added...), ch.Removed...)
		return fmt.Sprintf("set properties of %s (%s)", rel, oneLine(strings.Join(keys, ", ")))
	}
	w, err := d.Vault.ModifyFile(ctx, a.Path, summary, func(src []byte) ([]byte, error) {
		if edit.Binary(src) {
			return nil, invalid(vault.BinaryRefusal(a.Path))
		}
		if !vault.IsNote(a.Path) {
			return nil, invalid(notNoteProperties(a.Path))
		}
		out, c, err := edit.SetProperties(src, set, a.Remove)
		ch, after = c, out
		return out, err
	})
	if err != nil {
		return nil, editError(err)
	}
	res := &SetPropertiesResult{
		Path: w.Path.Rel, Changed: len(ch.Set)+len(ch.Added)+len(ch.Removed) > 0, Commit: w.Commit,
		Set: orEmpty(ch.Set), Added: orEmpty(ch.Added), Removed: orEmpty(ch.Removed), Unchanged: orEmpty(ch.Kept), Properties: edit.Object{},
	}
	for _, k := range a.Remove {
		if !slices.Contains(ch.Removed, k) {
			res.Unchanged = append(res.Unchanged, k)
		}
	}
	props, err := edit.Properties(after)
	if err != nil {
		return nil, editError(err)
	}
	for _, p := range props {
		res.Properties = append(res.Properties, edit.Member{Key: p.Key, Value: p.Value})
	}
	return res, nil
}

var setPropertiesOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "changed": {"type": "boolean"},
    "commit": {"type": "string"},
    "set": {"type": "array", "items": {"type": "string"}},
    "added": {"type": "array", "items": {"type": "string"}},
    "removed": {"type": "array", "items": {"type": "string"}},
    "unchanged": {"type": "array", "items": {"type": "string"}},
    "properties": {"type": "object", "description": "All properties afterwards"}
  },
  "required": ["path", "changed", "set", "added", "removed", "unchanged", "properties"]
}`)

// SetProperties is set_properties; UpdateProperties does its work.
func SetProperties(d Deps) server.ServerTool {
	tool := mcp.NewTool("set_properties",
		mcp.WithDescription("Set and remove frontmatter properties as one commit; other keys keep their order, comments and formatting, new keys go last. "+
			"Values are written as Obsidian writes them: text, number, true/false, \"2026-01-05\" (date), lists, \"[[Note]]\" links, null (empty)."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithObject("properties", mcp.Description("Keys to set, e.g. {\"status\": \"done\", \"tags\": [\"project\"]}")),
		mcp.WithArray("remove", mcp.WithStringItems(), mcp.Description("Keys to delete")),
		mcp.WithRawOutputSchema(setPropertiesOutputSchema),
		annotate("Set properties", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a SetPropertiesArgs) (*mcp.CallToolResult, error) {
		res, err := UpdateProperties(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// notNoteProperties refuses to change the properties of a file that is
// not a note: frontmatter written into data.json or a .csv would corrupt
// it, and Obsidian reads properties of notes only.
func notNoteProperties(given string) string {
	return given + " is not a note: properties are the frontmatter of .md notes, and writing one into this file would corrupt it, so nothing was changed"
}

// editError turns an edit error into a tool error that lists the
// candidates as a field of its own.
func editError(err error) error {
	var e *edit.Error
	if !errors.As(err, &e) {
		return err
	}
	fields := map[string]any{}
	if e.Candidates != nil {
		fields["candidates"] = e.Candidates
		if e.More > 0 {
			fields["more_candidates"] = e.More
		}
	}
	return &toolError{msg: err.Error(), fields: fields}
}

// oneLine keeps a commit message's summary on one line and short.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// badInput is invalid with a formatted message.
func badInput(format string, args ...any) error {
	return invalid(fmt.Sprintf(format, args...))
}
