// Package guides holds the guides an agent reads before it works in an
// Obsidian vault: the vault's conventions (properties, links, embeds, block
// ids, tags, callouts), a template for each kind of note, and which search
// tool to use when. They are Markdown files embedded in the binary; a vault
// may replace any of them with a file of its own, which Lookup reads from
// the fs.FS it is given (rooted at the vault's OverrideDir).
//
// The package imports nothing of the server: the get_obsidian_guide tool
// and the MCP prompts both read their text through Lookup, so they always
// say the same thing.
package guides

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Topics a guide can be asked for.
const (
	Conventions    = "conventions"
	CreateNote     = "create-note"
	SearchStrategy = "search-strategy"
	All            = "all"
)

// DefaultNoteType is the note type create-note describes when none is
// asked for.
const DefaultNoteType = "zettel"

// OverrideDir is the folder, relative to the vault root, where a vault
// keeps its own guides under the same names as the built-in ones:
// conventions.md, search-strategy.md and create-note/<type>.md. It is a
// dot-folder so Obsidian and the server's searches leave it out.
const OverrideDir = ".vaultmcp/guides"

// ErrUnknownTopic and ErrUnknownNoteType are wrapped by Lookup's errors
// for arguments it does not know.
var (
	ErrUnknownTopic    = errors.New("unknown guide topic")
	ErrUnknownNoteType = errors.New("unknown note type")
)

//go:embed builtin
var builtin embed.FS

var (
	topics    = []string{Conventions, CreateNote, SearchStrategy, All}
	noteTypes = []string{"daily", "meeting", "project", "zettel", "literature"}
)

// Topics returns the topics Lookup knows, in the order "all" joins them
// (with "all" last).
func Topics() []string { return slices.Clone(topics) }

// NoteTypes returns the note types create-note has templates for.
func NoteTypes() []string { return slices.Clone(noteTypes) }

// Lookup returns the guide for topic; noteType picks the create-note
// template ("" means DefaultNoteType). For "all", every guide is joined,
// with every template unless noteType names one. A note type that is not
// one of NoteTypes is an error whatever the topic, so a typo never passes
// silently.
//
// Each guide is read from override (may be nil) when it holds a non-empty
// file of that name, else from the built-in set. An override that cannot
// be read is passed over for the built-in guide: guidance must always be
// available.
func Lookup(topic, noteType string, override fs.FS) (string, error) {
	if noteType != "" && !slices.Contains(noteTypes, noteType) {
		return "", fmt.Errorf("%w %q; valid note types: %s", ErrUnknownNoteType, noteType, strings.Join(noteTypes, ", "))
	}
	switch topic {
	case Conventions, SearchStrategy:
		return read(topic+".md", override)
	case CreateNote:
		if noteType == "" {
			noteType = DefaultNoteType
		}
		return read(templateFile(noteType), override)
	case All:
		names := []string{Conventions + ".md"}
		if noteType != "" {
			names = append(names, templateFile(noteType))
		} else {
			for _, t := range noteTypes {
				names = append(names, templateFile(t))
			}
		}
		names = append(names, SearchStrategy+".md")
		parts := make([]string, 0, len(names))
		for _, name := range names {
			text, err := read(name, override)
			if err != nil {
				return "", err
			}
			parts = append(parts, strings.TrimRight(text, "\n"))
		}
		return strings.Join(parts, "\n\n---\n\n") + "\n", nil
	default:
		return "", fmt.Errorf("%w %q; valid topics: %s", ErrUnknownTopic, topic, strings.Join(topics, ", "))
	}
}

func templateFile(noteType string) string { return CreateNote + "/" + noteType + ".md" }

// read returns the guide file name from override, else the built-in one.
func read(name string, override fs.FS) (string, error) {
	if override != nil {
		if data, err := fs.ReadFile(override, name); err == nil && len(bytes.TrimSpace(data)) > 0 {
			return string(data), nil
		}
	}
	data, err := builtin.ReadFile("builtin/" + name)
	if err != nil {
		// Every name Lookup builds is embedded; TestEveryGuideEmbedded
		// keeps it so.
		return "", fmt.Errorf("guide %s: %w", name, err)
	}
	return string(data), nil
}
