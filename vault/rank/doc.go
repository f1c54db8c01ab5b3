// Package rank is vaultmcp's relevance-ranked full-text search: BM25F over
// each note's title (its file name), aliases, headings, tags and body,
// with the title weighted most. It keeps a compact inverted index of its
// own in memory, built in the background from the live vault index once
// that is ready and brought up to date from it before each search, so a
// search sees every write that came before it.
//
// Why not bleve: its in-memory index of a 10,000-note vault takes
// hundreds of megabytes and seconds to build, against vaultmcp's budget
// of 120 MB for the whole server. Here postings are varint-packed byte
// slices (about three bytes per term and note); a changed note gets a new
// document number and its old postings are skipped until enough are dead
// to rebuild in the background.
//
// Lock order: Searcher.mu, then the vault index's lock (taken inside its
// EachNote and Note); the vault index never calls back into this package.
package rank
