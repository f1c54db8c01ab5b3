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
	Path       string `json:"path" jsonschema:"The note, relative to the vault root"`
	TargetType string `json:"target_type"`
	Target     string `json:"target"`
	Operation  string `json:"operation"`
	Changed    bool   `json:"changed" jsonschema:"false when the note already read so (nothing was written or committed)"`
	Bytes      int    `json:"bytes" jsonschema:"Size of the note afterwards"`
	Commit     string `json:"commit,omitempty" jsonschema:"The commit that recorded the change"`
}

// PatchNote changes one part of a note (a heading's section, a block, a
// property) and commits it.
func (d Deps) PatchNote(ctx context.Context, a PatchNoteArgs) (PatchNoteResult, error) {
	if err := checkText("content", a.Content); err != nil {
		return PatchNoteResult{}, err
	}
	p := edit.Patch{Type: edit.TargetType(a.TargetType), Target: a.Target, Op: edit.Op(a.Operation), Content: a.Content}
	summary := func(rel string) string {
		return fmt.Sprintf("patch %s (%s %s %s)", rel, a.Operation, a.TargetType, oneLine(a.Target))
	}
	changed := false
	w, err := d.Vault.ModifyFile(ctx, a.Path, summary, func(src []byte) ([]byte, error) {
		out, err := edit.Apply(src, p)
		changed = err == nil && !bytes.Equal(out, src)
		return out, err
	})
	if err != nil {
		return PatchNoteResult{}, editError(err)
	}
	return PatchNoteResult{
		Path: w.Path.Rel, TargetType: a.TargetType, Target: a.Target, Operation: a.Operation,
		Changed: changed, Bytes: w.Bytes, Commit: w.Commit,
	}, nil
}

// PatchNote is patch_note; Deps.PatchNote does its work.
func PatchNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("patch_note",
		mcp.WithDescription("Change one part of a note and leave the rest byte for byte as it was (links, line endings, formatting), as one commit. "+
			"target_type heading: target is the heading's text, or a path of headings \"Projects::Active\" when the text occurs twice; the section runs to the next heading of the same or a higher level. "+
			"append adds content after the section's last line (before the blank line that separates it from the next heading), prepend right under the heading, replace swaps the section's text (heading kept), delete removes heading and section. "+
			"target_type block: target is a block id \"^id\" (the paragraph, list item or table it marks; the id is kept). "+
			"target_type frontmatter: target is a property key; replace sets it (content is JSON if it parses, else text), append/prepend add to a list or text, delete removes it. "+
			"A target not found or ambiguous is an error listing the candidates."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithString("target_type", mcp.Required(), mcp.Enum("heading", "block", "frontmatter"), mcp.Description("What target names")),
		mcp.WithString("target", mcp.Required(), mcp.Description("Heading text or \"Outer::Inner\" path, block id \"^id\", or property key")),
		mcp.WithString("operation", mcp.Required(), mcp.Enum("append", "prepend", "replace", "delete"), mcp.Description("What to do at the target")),
		mcp.WithString("content", mcp.Description("Markdown lines to insert or put in place (for frontmatter: a JSON value or text); empty for delete"), mcp.DefaultString("")),
		mcp.WithOutputSchema[PatchNoteResult](),
		annotate("Patch note", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a PatchNoteArgs) (*mcp.CallToolResult, error) {
		res, err := d.PatchNote(ctx, a)
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
}

// GetProperties reads a note's frontmatter properties.
func (d Deps) GetProperties(ctx context.Context, a GetPropertiesArgs) (GetPropertiesResult, error) {
	f, err := d.Vault.ReadFile(a.Path, 0)
	if err != nil {
		return GetPropertiesResult{}, err
	}
	props, err := edit.Properties(f.Data)
	if err != nil {
		return GetPropertiesResult{}, editError(err)
	}
	res := GetPropertiesResult{Path: f.Path.Rel, Properties: edit.Object{}, Types: edit.Object{}}
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
    "properties": {"type": "object", "description": "Each frontmatter key with its value, in the order written"},
    "types": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Each key's type: text, list, number, checkbox, date, datetime, object or empty"}
  },
  "required": ["path", "properties", "types"]
}`)

// GetProperties is get_properties; Deps.GetProperties does its work.
func GetProperties(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_properties",
		mcp.WithDescription("Read a note's frontmatter properties (Obsidian's Properties) in the order written, with each one's type "+
			"(text, list, number, checkbox, date, datetime, object, empty). A note without frontmatter has none."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithRawOutputSchema(propertiesOutputSchema),
		annotate("Get properties", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a GetPropertiesArgs) (*mcp.CallToolResult, error) {
		res, err := d.GetProperties(ctx, a)
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

// SetProperties sets and removes frontmatter properties, as one commit.
func (d Deps) SetProperties(ctx context.Context, a SetPropertiesArgs) (SetPropertiesResult, error) {
	var set edit.Object
	if raw := strings.TrimSpace(string(a.Properties)); raw != "" && raw != "null" {
		obj, err := edit.DecodeObject(a.Properties)
		if err != nil {
			return SetPropertiesResult{}, fmt.Errorf("properties: %w", editError(err))
		}
		set = obj
	}
	if len(set) == 0 && len(a.Remove) == 0 {
		return SetPropertiesResult{}, badInput("nothing to do: give properties to set and/or keys to remove")
	}
	var ch edit.Change
	var after []byte
	summary := func(rel string) string {
		keys := append(append(append([]string{}, ch.Set...), ch.Added...), ch.Removed...)
		return fmt.Sprintf("set properties of %s (%s)", rel, oneLine(strings.Join(keys, ", ")))
	}
	w, err := d.Vault.ModifyFile(ctx, a.Path, summary, func(src []byte) ([]byte, error) {
		out, c, err := edit.SetProperties(src, set, a.Remove)
		ch, after = c, out
		return out, err
	})
	if err != nil {
		return SetPropertiesResult{}, editError(err)
	}
	res := SetPropertiesResult{
		Path: w.Path.Rel, Changed: len(ch.Set)+len(ch.Added)+len(ch.Removed) > 0, Commit: w.Commit,
		Set: nonNil(ch.Set), Added: nonNil(ch.Added), Removed: nonNil(ch.Removed), Unchanged: nonNil(ch.Kept), Properties: edit.Object{},
	}
	for _, k := range a.Remove {
		if !slices.Contains(ch.Removed, k) {
			res.Unchanged = append(res.Unchanged, k)
		}
	}
	props, err := edit.Properties(after)
	if err != nil {
		return SetPropertiesResult{}, editError(err)
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
    "changed": {"type": "boolean", "description": "false when every value was already so (nothing written or committed)"},
    "commit": {"type": "string"},
    "set": {"type": "array", "items": {"type": "string"}, "description": "Keys whose value changed"},
    "added": {"type": "array", "items": {"type": "string"}, "description": "Keys that were new"},
    "removed": {"type": "array", "items": {"type": "string"}, "description": "Keys deleted"},
    "unchanged": {"type": "array", "items": {"type": "string"}, "description": "Keys that already had the value, or to remove but absent"},
    "properties": {"type": "object", "description": "The note's properties afterwards, in order"}
  },
  "required": ["path", "changed", "set", "added", "removed", "unchanged", "properties"]
}`)

// SetProperties is set_properties; Deps.SetProperties does its work.
func SetProperties(d Deps) server.ServerTool {
	tool := mcp.NewTool("set_properties",
		mcp.WithDescription("Set and remove a note's frontmatter properties as one commit. Keys that exist are rewritten in place; new keys go at the end, in the order given "+
			"(a frontmatter block is created if the note has none). Every other key keeps its order, comments and formatting. "+
			"Values are written as Obsidian's Properties view writes them: text, number, true/false (checkbox), \"2026-01-05\" or \"2026-01-05T10:30\" (date, datetime), lists (tags, aliases, links as \"[[Note]]\"), null (empty)."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path relative to the vault root")),
		mcp.WithObject("properties", mcp.Description("Keys to set, with their values, e.g. {\"status\": \"done\", \"tags\": [\"project\"], \"priority\": 2}")),
		mcp.WithArray("remove", mcp.WithStringItems(), mcp.Description("Keys to delete")),
		mcp.WithRawOutputSchema(setPropertiesOutputSchema),
		annotate("Set properties", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a SetPropertiesArgs) (*mcp.CallToolResult, error) {
		res, err := d.SetProperties(ctx, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
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

// badInput is an error in what the client asked, phrased for it.
func badInput(format string, args ...any) error {
	return &vault.Error{Kind: vault.ErrInvalidInput, Msg: fmt.Sprintf(format, args...)}
}
