// Package concept is the pure logic of the vault's SKOS knowledge graph:
// which notes are concepts and what their frontmatter says (Extract), how
// a concept is named (ID, URI), how the graph is walked (Expand,
// ShortestPath) and how concepts are ranked against a query (Query).
//
// A note is a concept when its frontmatter has prefLabel. Keys are read
// without regard to case and may carry a "skos:" prefix (Schema.org keys a
// "schema:" prefix). Relation values are targets as written: wikilinks
// (quoted, or unquoted, which YAML reads as a nested list), plain names,
// ids, lists of these, or one comma-separated string. Turning a target
// into a concept is the caller's job, since it needs the whole vault (the
// live index resolves targets the way Obsidian resolves links).
//
// The package does no I/O and keeps no state: the index holds the graph
// and hands it to the walks through the Graph interface.
package concept
