// Package edit changes one part of a note and leaves the rest of it byte
// for byte as it was: the section under a heading, the block a ^block-id
// marks, or one frontmatter property. It is what patch_note and
// set_properties do to a note's text; reading the file, writing it back
// and committing are the vault's job (vault.ModifyFile).
//
// Headings and block ids are found by the markdown package's parser, so a
// "# line" inside a code block, a comment or a block quote is not a
// heading and a "^id" in code marks nothing. Frontmatter is edited line by
// line on top of yaml.v3's node positions: the keys not touched keep their
// order, comments, quoting and layout; a key that is set is written the
// way Obsidian's Properties view writes it (block lists, double quotes
// only where YAML needs them, dates unquoted).
//
// Every edit keeps the note's line endings (a note whose first line ends
// in CRLF gets CRLF in what is inserted) and whether it ends with a line
// break. Content from clients arrives with LF line ends whatever the note
// holds.
package edit
