package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/concept"
	"vaultmcp/vault/index"
	"vaultmcp/vault/markdown"
)

// Limits of the concept tools. Each bad argument is refused with an error
// naming it, never clamped silently.
const (
	// MaxConceptQuery is the longest query or concept name, in
	// characters.
	MaxConceptQuery = 1000
	// MaxExpandDepth is expand_context's deepest walk.
	MaxExpandDepth = 3
	// DefaultExpandDepth is its depth when none is given.
	DefaultExpandDepth = 2
	// DefaultExpandLimit is how many concepts (beside the focus) one
	// expand_context answer lists unless told; MaxExpandLimit the most
	// it lists. Twenty keep the default answer's lists to about 2k
	// tokens; the walk is breadth-first, so the farthest wait for the
	// next page.
	DefaultExpandLimit = 20
	MaxExpandLimit     = 500
	// MaxNoteContent is how much of one note's text an answer carries,
	// in characters; the rest is cut with ContentTruncatedNotice.
	MaxNoteContent = 50000
	// DefaultExpandContent is how many characters of note text one
	// expand_context answer carries in all unless told (max_content),
	// nearest concepts first: about 3k tokens, the focus and its nearest
	// notes, so a default answer stays near 6k tokens, well inside what
	// an agent's client accepts without a warning (Claude Code warns
	// past 10k), and costs little to encode and decode. MaxExpandContent
	// is the most it carries: about 15k tokens, leaving room for the
	// lists under the ~25k-token answer every tool keeps to.
	DefaultExpandContent = 12000
	MaxExpandContent     = 60000
	// MaxConceptRelations is how many ids get_concept lists per
	// relation; relation_counts has the full counts.
	MaxConceptRelations = 500
	// DefaultSearchLimit and MaxSearchLimit bound search_concepts.
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	// maxConceptSuggestions is how many near names a "not found" error
	// offers.
	maxConceptSuggestions = 5
	// maxCandidates is how many notes an "ambiguous" error lists.
	maxCandidates = 20
	// minContentCut is the least text worth sending once the budget is
	// nearly spent: below it, a note comes without content.
	minContentCut = 1000
)

// ContentTruncatedNotice ends a note's content that was cut.
const ContentTruncatedNotice = "\n[... content truncated ...]"

// NoPathMessage is get_concept_path's message when no path exists.
const NoPathMessage = "No path found between concepts"

// ConceptNotFoundError is the answer to a concept name that matches no
// concept. errors.Is(err, vault.ErrNotFound) holds (HTTP 404).
type ConceptNotFoundError struct {
	// Concept is the name as the client gave it.
	Concept string
	// Available is the number of concepts in the vault.
	Available int
	// Suggestions are the ids of up to five concepts with close names.
	Suggestions []string
	// Unreadable, when set, is the note the name designates, which is no
	// concept because its frontmatter could not be read; Why says what
	// is wrong and how to fix it.
	Unreadable, Why string
	// NotConcept, when set, is the note the name opens, which is no
	// concept because its frontmatter has no prefLabel.
	NotConcept string
}

func (e *ConceptNotFoundError) Error() string {
	switch {
	case e.Unreadable != "":
		return fmt.Sprintf("Concept '%s' not found: note %s has %s", e.Concept, e.Unreadable, e.Why)
	case e.NotConcept != "":
		return fmt.Sprintf("Concept '%s' not found: note %s is no concept, as its frontmatter has no prefLabel (give it one to make it a concept)", e.Concept, e.NotConcept)
	}
	return fmt.Sprintf("Concept '%s' not found", e.Concept)
}

// frontmatterProblem words why a note's frontmatter could not be read,
// to follow "note X has ".
func frontmatterProblem(why error) string {
	var se *markdown.SyntaxError
	if errors.As(why, &se) {
		return se.Error() + "; " + se.Hint()
	}
	return fmt.Sprintf("frontmatter that could not be read (%v)", why)
}

// Unwrap makes the error a vault.ErrNotFound.
func (e *ConceptNotFoundError) Unwrap() error { return vault.ErrNotFound }

// AmbiguousConceptError is the answer to a concept name several concept
// notes share (two notes with one id, or one label). errors.Is(err,
// vault.ErrAmbiguous) holds (HTTP 409).
type AmbiguousConceptError struct {
	// Concept is the name as the client gave it.
	Concept string
	// Paths are the notes it names, vault-relative.
	Paths []string
}

func (e *AmbiguousConceptError) Error() string {
	return fmt.Sprintf("Concept '%s' is ambiguous: %d concept notes match (%s); give the note's path instead", e.Concept, len(e.Paths), strings.Join(e.Paths, ", "))
}

// Unwrap makes the error a vault.ErrAmbiguous.
func (e *AmbiguousConceptError) Unwrap() error { return vault.ErrAmbiguous }

// badArgument is an invalid argument: errors.Is(err,
// vault.ErrInvalidInput) holds (HTTP 400).
func badArgument(format string, args ...any) error {
	return invalid(fmt.Sprintf(format, args...))
}

// The concept tools' work: Concept (get_concept), ExpandConcept
// (expand_context), FindConcepts (search_concepts), ConceptPath
// (get_concept_path) and Statistics (get_statistics). Each takes its
// tool's arguments and returns its answer, so the MCP handlers and the
// REST API serve the same function; each needs d.Index and d.Vault.
// Errors are *ConceptNotFoundError, *AmbiguousConceptError, or a
// *vault.Error of kind vault.ErrInvalidInput for a bad argument; anything
// else is a server fault.

// find resolves a client's concept name, or fails with a not-found or
// ambiguity error.
func findConcept(v *index.ConceptView, arg, name string) (index.ConceptNote, error) {
	if strings.TrimSpace(name) == "" {
		return index.ConceptNote{}, badArgument("%s is empty: give a concept id, label or note path", arg)
	}
	if n := utf8.RuneCountInString(name); n > MaxConceptQuery {
		return index.ConceptNote{}, badArgument("%s is %d characters long; the most is %d", arg, n, MaxConceptQuery)
	}
	rels := v.Lookup(name)
	switch len(rels) {
	case 0:
		e := &ConceptNotFoundError{Concept: name, Available: v.Count(), Suggestions: []string{}}
		if rel, why := v.UnreadableNamed(name); why != nil {
			e.Unreadable, e.Why = rel, frontmatterProblem(why)
		} else {
			e.NotConcept = v.NoteNamed(name)
		}
		for _, rel := range v.Suggest(name, maxConceptSuggestions) {
			n, _ := v.Note(rel)
			e.Suggestions = append(e.Suggestions, n.ID)
		}
		return index.ConceptNote{}, e
	case 1:
		n, _ := v.Note(rels[0])
		return n, nil
	}
	return index.ConceptNote{}, &AmbiguousConceptError{Concept: name, Paths: rels[:min(len(rels), maxCandidates)]}
}

// ---------------------------------------------------------------------
// get_concept

// GetConceptArgs are get_concept's arguments.
type GetConceptArgs struct {
	// ConceptID names the concept: its id, prefLabel, altLabel, note
	// path or [[wikilink]].
	ConceptID string `json:"concept_id"`
	// IncludeRelations adds broader, narrower, related, prerequisite and
	// unresolved; nil means true.
	IncludeRelations *bool `json:"include_relations,omitempty"`
}

// ConceptResult is get_concept's answer (the documented shape, plus uri,
// altLabel, inScheme, path, prerequisite and unresolved).
type ConceptResult struct {
	ID           string              `json:"id"`  // The concept's id: its note's file name without .md, lowercased, spaces and - as _
	URI          string              `json:"uri"` // vault://concepts#<id>
	PrefLabel    string              `json:"prefLabel"`
	AltLabel     []string            `json:"altLabel"`               // Alternative labels
	Definition   string              `json:"definition"`             // Empty when the note gives none
	Notation     string              `json:"notation"`               // Empty when the note gives none
	InScheme     []string            `json:"inScheme"`               // Concept schemes, as written
	FilePath     string              `json:"file_path"`              // The concept's note: its absolute path, or its vault-relative one for a remote client (ForRemoteClient)
	Path         string              `json:"path"`                   // Path of the concept's note relative to the vault root
	Schema       ConceptSchema       `json:"schema"`                 // Schema.org properties; empty when the note has none
	Broader      *[]string           `json:"broader,omitempty"`      // Ids of broader concepts (declared here, or naming this one narrower)
	Narrower     *[]string           `json:"narrower,omitempty"`     // Ids of narrower concepts (declared here, or naming this one broader)
	Related      *[]string           `json:"related,omitempty"`      // Ids of related concepts (related is symmetric)
	Prerequisite *[]string           `json:"prerequisite,omitempty"` // Ids of concepts to learn first (one-way)
	Unresolved   map[string][]string `json:"unresolved,omitempty"`   // Relation targets, as written, that name no concept, by relation
	// RelationCounts are the full counts behind the relation lists,
	// which stop at MaxConceptRelations ids (expand_context with
	// max_depth 1 pages through more).
	RelationCounts map[string]int `json:"relation_counts,omitempty"`
}

// ConceptSchema is a concept's Schema.org properties.
type ConceptSchema struct {
	Type                 string   `json:"type,omitempty"`
	About                []string `json:"about,omitempty"`
	Teaches              []string `json:"teaches,omitempty"`
	EducationalLevel     string   `json:"educationalLevel,omitempty"`
	LearningResourceType string   `json:"learningResourceType,omitempty"`
}

// Concept is get_concept's work: one concept with its relations.
func Concept(ctx context.Context, d Deps, a GetConceptArgs) (*ConceptResult, error) {
	var res *ConceptResult
	err := d.Index.Concepts(ctx, func(v *index.ConceptView) error {
		n, err := findConcept(v, "concept_id", a.ConceptID)
		if err != nil {
			return err
		}
		s := n.Schema
		res = &ConceptResult{
			ID: n.ID, URI: concept.URI(n.ID), PrefLabel: n.PrefLabel,
			AltLabel: orEmpty(n.AltLabels), Definition: n.Definition, Notation: n.Notation, InScheme: orEmpty(n.InScheme),
			FilePath: filePath(ctx, d, n.Path), Path: n.Path,
			Schema: ConceptSchema{Type: s.Type, About: s.About, Teaches: s.Teaches, EducationalLevel: s.EducationalLevel, LearningResourceType: s.LearningResourceType},
		}
		if a.IncludeRelations != nil && !*a.IncludeRelations {
			return nil
		}
		res.RelationCounts = map[string]int{}
		ids := func(r concept.Relation) *[]string {
			all := v.Neighbors(n.Path, r)
			res.RelationCounts[r.String()] = len(all)
			out := make([]string, 0, min(len(all), MaxConceptRelations))
			for _, rel := range all[:min(len(all), MaxConceptRelations)] {
				nb, _ := v.Note(rel)
				out = append(out, nb.ID)
			}
			return &out
		}
		res.Broader, res.Narrower, res.Related, res.Prerequisite = ids(concept.Broader), ids(concept.Narrower), ids(concept.Related), ids(concept.Prerequisite)
		for _, u := range v.Unresolved(n.Path) {
			if res.Unresolved == nil {
				res.Unresolved = map[string][]string{}
			}
			res.Unresolved[u.Relation.String()] = append(res.Unresolved[u.Relation.String()], u.Raw)
		}
		return nil
	})
	return res, err
}

// ---------------------------------------------------------------------
// expand_context

// ExpandContextArgs are expand_context's arguments.
type ExpandContextArgs struct {
	// ConceptID names the focus concept (id, label, path or wikilink).
	ConceptID string `json:"concept_id"`
	// RelationTypes are the relations followed (broader, narrower,
	// related, prerequisite); nil means broader, narrower and related.
	RelationTypes []string `json:"relation_types,omitempty"`
	// MaxDepth is how many edges out to go, 1 to 3; nil means 2.
	MaxDepth *int `json:"max_depth,omitempty"`
	// IncludeContent adds the notes' text; nil means true.
	IncludeContent *bool `json:"include_content,omitempty"`
	// MaxContent is how many characters of note text the answer carries
	// in all, nearest concepts first (1,000 to 60,000; nil means 12,000).
	MaxContent *int `json:"max_content,omitempty"`
	// Paging lists at most Limit concepts beside the focus (1 to 500;
	// nil means 20), after skipping Offset of them.
	Paging
}

// ExpandContextResult is expand_context's answer (the documented shape, plus
// total and next_offset).
type ExpandContextResult struct {
	FocusConcept        FocusConcept                `json:"focus_concept"`
	DirectRelations     map[string][]RelatedConcept `json:"direct_relations"`     // Concepts one edge away, by relation
	TransitiveRelations map[string][]RelatedConcept `json:"transitive_relations"` // Concepts two or more edges away along one relation (broader of broader...), by relation
	ContextNotes        []ContextNote               `json:"context_notes"`        // The listed concepts' notes, nearest first
	Total               int                         `json:"total"`                // Concepts in the whole expansion, beside the focus, over all pages
	PageInfo
}

// FocusConcept is the concept expand_context started from.
type FocusConcept struct {
	ID               string  `json:"id"`
	URI              string  `json:"uri"`
	PrefLabel        string  `json:"prefLabel"`
	Definition       string  `json:"definition"`
	FilePath         string  `json:"file_path"`
	Path             string  `json:"path"`                        // Path relative to the vault root
	Content          *string `json:"content,omitempty"`           // The note's text without its frontmatter; absent when include_content is false
	ContentTruncated bool    `json:"content_truncated,omitempty"` // The content was cut
}

// RelatedConcept is one concept in direct_relations or
// transitive_relations.
type RelatedConcept struct {
	ID         string `json:"id"`
	PrefLabel  string `json:"prefLabel"`
	Definition string `json:"definition,omitempty"`
	Path       string `json:"path"`          // Path of its note relative to the vault root
	Via        string `json:"via,omitempty"` // Transitive only: the id of the concept it was reached from
	Depth      int    `json:"depth"`         // Edges from the focus concept
}

// ContextNote is one listed concept's note.
type ContextNote struct {
	ID               string  `json:"id"`
	Label            string  `json:"label"`             // The concept's prefLabel
	Content          *string `json:"content,omitempty"` // The note's text without its frontmatter; absent when include_content is false or the answer's content budget is spent
	FilePath         string  `json:"file_path"`
	Path             string  `json:"path"`                        // Path relative to the vault root
	Relation         string  `json:"relation"`                    // How the concept was reached: broader, narrower, related or prerequisite
	Depth            int     `json:"depth"`                       // Edges from the focus concept
	ContentTruncated bool    `json:"content_truncated,omitempty"` // The content was cut (at 50000 characters or by the answer's budget)
	ContentOmitted   bool    `json:"content_omitted,omitempty"`   // The answer's content budget was spent: read the note, or page on
}

// ExpandConcept is expand_context's work: the concepts around one,
// breadth-first along each chosen relation, with their notes' text.
func ExpandConcept(ctx context.Context, d Deps, a ExpandContextArgs) (*ExpandContextResult, error) {
	rels := concept.Hierarchy
	if a.RelationTypes != nil {
		if len(a.RelationTypes) == 0 {
			return nil, badArgument("relation_types is empty: leave it out for broader, narrower and related")
		}
		rels = nil
		for _, name := range a.RelationTypes {
			r, ok := concept.ParseRelation(name)
			if !ok {
				return nil, badArgument("relation_types: unknown relation %q (use broader, narrower, related or prerequisite)", name)
			}
			rels = append(rels, r)
		}
	}
	depth := DefaultExpandDepth
	if a.MaxDepth != nil {
		depth = *a.MaxDepth
		if depth < 1 || depth > MaxExpandDepth {
			return nil, badArgument("max_depth is %d; it must be 1 to %d", depth, MaxExpandDepth)
		}
	}
	limit, err := pageLimit("limit", a.Limit, DefaultExpandLimit, MaxExpandLimit)
	if err != nil {
		return nil, err
	}
	if a.Offset < 0 {
		return nil, badArgument("offset is %d; it must be 0 or more", a.Offset)
	}
	withContent := a.IncludeContent == nil || *a.IncludeContent
	budget := DefaultExpandContent
	if a.MaxContent != nil {
		budget = *a.MaxContent
		if budget < minContentCut || budget > MaxExpandContent {
			return nil, badArgument("max_content is %d; it must be %d to %d", budget, minContentCut, MaxExpandContent)
		}
	}

	res := &ExpandContextResult{
		DirectRelations:     map[string][]RelatedConcept{},
		TransitiveRelations: map[string][]RelatedConcept{},
		ContextNotes:        []ContextNote{},
	}
	// Note texts are picked up under the index's lock (shared slices the
	// index never changes in place) and cut to size after it (noteText).
	type text struct {
		body   []byte
		target **string
		cut    *bool
		omit   *bool
		at     int // the concept's place in the whole expansion; -1 for the focus
	}
	var texts []text
	err = d.Index.Concepts(ctx, func(v *index.ConceptView) error {
		focus, err := findConcept(v, "concept_id", a.ConceptID)
		if err != nil {
			return err
		}
		res.FocusConcept = FocusConcept{
			ID: focus.ID, URI: concept.URI(focus.ID), PrefLabel: focus.PrefLabel, Definition: focus.Definition,
			FilePath: filePath(ctx, d, focus.Path), Path: focus.Path,
		}
		if withContent {
			texts = append(texts, text{body: v.Content(focus.Path), target: &res.FocusConcept.Content, cut: &res.FocusConcept.ContentTruncated, at: -1})
		}
		for _, r := range rels {
			res.DirectRelations[r.String()] = []RelatedConcept{}
			res.TransitiveRelations[r.String()] = []RelatedConcept{}
		}
		steps := concept.Expand(v, focus.Path, rels, depth)
		res.Total = len(steps)
		span := paginate(a.Paging, len(steps), limit, "concepts")
		listed := window(steps, span)
		res.PageInfo = span.info()
		res.ContextNotes = make([]ContextNote, len(listed))
		for i, st := range listed {
			n, _ := v.Note(st.Node)
			item := RelatedConcept{ID: n.ID, PrefLabel: n.PrefLabel, Definition: n.Definition, Path: n.Path, Depth: st.Depth}
			key := st.Relation.String()
			if st.Depth == 1 {
				res.DirectRelations[key] = append(res.DirectRelations[key], item)
			} else {
				via, _ := v.Note(st.Via)
				item.Via = via.ID
				res.TransitiveRelations[key] = append(res.TransitiveRelations[key], item)
			}
			cn := &res.ContextNotes[i]
			*cn = ContextNote{ID: n.ID, Label: n.PrefLabel, FilePath: filePath(ctx, d, n.Path), Path: n.Path, Relation: key, Depth: st.Depth}
			if withContent {
				texts = append(texts, text{body: v.Content(n.Path), target: &cn.Content, cut: &cn.ContentTruncated, omit: &cn.ContentOmitted, at: span.Start + i})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	omitted, firstOmitted := 0, 0
	for _, t := range texts {
		if budget < minContentCut && t.omit != nil {
			*t.omit = true
			if omitted == 0 {
				firstOmitted = t.at
			}
			omitted++
			continue
		}
		s, cut, used := noteText(t.body, min(MaxNoteContent, budget))
		budget -= used
		*t.target, *t.cut = &s, cut
	}
	if omitted > 0 {
		res.Notice = omittedNotice(res.Notice, omitted, len(res.ContextNotes), firstOmitted, a.MaxContent)
	}
	return res, nil
}

// omittedNotice adds to an expand_context page's notice that the text of
// some listed concepts was left out, and how to get it.
func omittedNotice(page string, omitted, listed, first int, asked *int) string {
	spent := fmt.Sprintf("the default max_content of %s characters", count(DefaultExpandContent))
	raise := fmt.Sprintf(", raise max_content (at most %s)", count(MaxExpandContent))
	if asked != nil {
		spent = fmt.Sprintf("max_content of %s characters", count(*asked))
		if *asked >= MaxExpandContent {
			raise = ""
		}
	}
	msg := fmt.Sprintf("note text omitted for %d of the %d concepts listed (%s spent): call again with offset=%d to get theirs%s, or read_file their path",
		omitted, listed, spent, first, raise)
	if page == "" {
		return msg
	}
	return page + "; " + msg
}

// noteText renders a note's body for an answer: at most limit characters
// of it, then the truncation notice. used is the characters taken.
// Characters are counted as ranging over the text as a string would
// (an invalid byte is one), without copying it to a string first.
//
// body is the index's own copy of the note, which the index never
// changes in place (its parse results slice it too): a whole body is
// handed out as a string sharing those bytes, not copied. An answer is
// encoded once and dropped, and each byte it allocates brings the next
// collection of the whole index nearer, which on a large vault costs a
// tool call more than its own work.
func noteText(body []byte, limit int) (s string, cut bool, used int) {
	body = trimLeadingBlankLines(body)
	n := 0
	for i := 0; i < len(body); n++ {
		if n == limit {
			return string(body[:i]) + ContentTruncatedNotice, true, n
		}
		if body[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(body[i:])
		i += size
	}
	if len(body) == 0 {
		return "", false, n
	}
	return unsafe.String(&body[0], len(body)), false, n
}

// trimLeadingBlankLines drops the blank lines that usually separate the
// frontmatter from the text.
func trimLeadingBlankLines(b []byte) []byte {
	for {
		i := 0
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
			i++
		}
		if i < len(b) && b[i] == '\n' {
			b = b[i+1:]
			continue
		}
		return b
	}
}

// orEmpty is list, or an empty list for nil (JSON [] rather than null).
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// pageLimit reads an optional limit argument.
func pageLimit(name string, given *int, def, most int) (int, error) {
	if given == nil {
		return def, nil
	}
	if *given < 1 || *given > most {
		return 0, badArgument("%s is %d; it must be 1 to %d", name, *given, most)
	}
	return *given, nil
}

// ---------------------------------------------------------------------
// search_concepts

// SearchConceptsArgs are search_concepts' arguments.
type SearchConceptsArgs struct {
	// Query is matched against labels and definitions (at most 1,000
	// characters).
	Query string `json:"query"`
	// Paging returns at most Limit results (1 to 100; nil means 10),
	// after skipping Offset of them.
	Paging
}

// SearchConceptsResult is search_concepts' answer (the documented shape, plus
// total and next_offset).
type SearchConceptsResult struct {
	Query   string          `json:"query"`
	Count   int             `json:"count"` // Results in this answer
	Results []ConceptSearch `json:"results"`
	Total   int             `json:"total"` // Matching concepts over all pages
	PageInfo
}

// ConceptSearch is one search result.
type ConceptSearch struct {
	ID         string `json:"id"`
	URI        string `json:"uri"`
	PrefLabel  string `json:"prefLabel"`
	Definition string `json:"definition,omitempty"`
	FilePath   string `json:"file_path"`
	Path       string `json:"path"`  // Path relative to the vault root
	Match      string `json:"match"` // Why it matched, best first: exact_label, exact_alt_label, label_prefix, label_words, alt_label, definition
}

// FindConcepts is search_concepts' work: concepts by label or
// definition, best matches first.
func FindConcepts(ctx context.Context, d Deps, a SearchConceptsArgs) (*SearchConceptsResult, error) {
	if n := utf8.RuneCountInString(a.Query); n > MaxConceptQuery {
		return nil, badArgument("query is %d characters long; the most is %d", n, MaxConceptQuery)
	}
	q := concept.NewQuery(a.Query)
	if q.Empty() {
		return nil, badArgument("query is empty")
	}
	limit, err := pageLimit("limit", a.Limit, DefaultSearchLimit, MaxSearchLimit)
	if err != nil {
		return nil, err
	}
	if a.Offset < 0 {
		return nil, badArgument("offset is %d; it must be 0 or more", a.Offset)
	}
	res := &SearchConceptsResult{Query: a.Query, Results: []ConceptSearch{}}
	err = d.Index.Concepts(ctx, func(v *index.ConceptView) error {
		hits := v.Search(q)
		res.Total = len(hits)
		span := paginate(a.Paging, len(hits), limit, "matches")
		res.PageInfo = span.info()
		for _, h := range window(hits, span) {
			n, _ := v.Note(h.Path)
			res.Results = append(res.Results, ConceptSearch{
				ID: n.ID, URI: concept.URI(n.ID), PrefLabel: n.PrefLabel, Definition: n.Definition,
				FilePath: filePath(ctx, d, n.Path), Path: n.Path, Match: h.Rank.String(),
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Count = len(res.Results)
	return res, nil
}

// ---------------------------------------------------------------------
// get_concept_path

// GetConceptPathArgs are get_concept_path's arguments.
type GetConceptPathArgs struct {
	FromConcept string `json:"from_concept"`
	ToConcept   string `json:"to_concept"`
}

// ConceptPathResult is get_concept_path's answer (the documented shape; path
// is null and message set when there is none).
type ConceptPathResult struct {
	From    string      `json:"from"`              // Id of the first concept
	To      string      `json:"to"`                // Id of the last concept
	Length  *int        `json:"length,omitempty"`  // Edges on the path (one less than its concepts); absent when there is no path
	Path    []PathEntry `json:"path"`              // The concepts from the first to the last; null when no path exists
	Message string      `json:"message,omitempty"` // Set when no path exists
}

// PathEntry is one concept on a path.
type PathEntry struct {
	ID        string `json:"id"`
	PrefLabel string `json:"prefLabel"`
	Path      string `json:"path"`               // Path of its note relative to the vault root
	Relation  string `json:"relation,omitempty"` // What this concept is to the one before it: broader, narrower, related, prerequisite or prerequisite_of
}

// allRelations walks the whole graph, inverse edges included.
var allRelations = []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite, concept.PrerequisiteOf}

// ConceptPath is get_concept_path's work: a shortest path between two
// concepts over every relation, in either direction.
func ConceptPath(ctx context.Context, d Deps, a GetConceptPathArgs) (*ConceptPathResult, error) {
	var res *ConceptPathResult
	err := d.Index.Concepts(ctx, func(v *index.ConceptView) error {
		from, err := findConcept(v, "from_concept", a.FromConcept)
		if err != nil {
			return err
		}
		to, err := findConcept(v, "to_concept", a.ToConcept)
		if err != nil {
			return err
		}
		res = &ConceptPathResult{From: from.ID, To: to.ID}
		steps := concept.ShortestPath(v, from.Path, to.Path, allRelations)
		if steps == nil {
			res.Message = NoPathMessage
			return nil
		}
		length := len(steps) - 1
		res.Length = &length
		res.Path = make([]PathEntry, len(steps))
		for i, st := range steps {
			n, _ := v.Note(st.Node)
			res.Path[i] = PathEntry{ID: n.ID, PrefLabel: n.PrefLabel, Path: n.Path}
			if i > 0 {
				res.Path[i].Relation = st.Relation.String()
			}
		}
		return nil
	})
	return res, err
}

// ---------------------------------------------------------------------
// get_statistics

// GetStatisticsArgs are get_statistics' arguments: none.
type GetStatisticsArgs struct{}

// StatisticsResult is get_statistics' answer (the documented shape, plus the
// counts by relation and the unresolved targets).
type StatisticsResult struct {
	TotalConcepts       int            `json:"total_concepts"`
	TotalRelations      int            `json:"total_relations"` // Distinct edges: a broader/narrower pair once, a related pair once, a prerequisite once
	VaultPath           string         `json:"vault_path"`      // The vault's absolute path, or its folder's name for a remote client (ForRemoteClient)
	ServerVersion       string         `json:"server_version"`
	RelationsByType     map[string]int `json:"relations_by_type"`    // total_relations by kind: broader (each broader/narrower pair), related, prerequisite
	UnresolvedRelations int            `json:"unresolved_relations"` // Relation targets that name no concept (get_concept lists them per concept)
	AmbiguousIDs        int            `json:"ambiguous_ids"`        // Ids that several concept notes share (reach those by path)
	// UnreadableFrontmatter counts the notes whose frontmatter is not
	// valid YAML (or not a mapping): a concept written there is missing
	// from the graph, and get_concept on its name says what is wrong.
	UnreadableFrontmatter int `json:"unreadable_frontmatter"`
}

// Statistics is get_statistics' work: counts over the concept graph.
func Statistics(ctx context.Context, d Deps, _ GetStatisticsArgs) (*StatisticsResult, error) {
	var res *StatisticsResult
	err := d.Index.Concepts(ctx, func(v *index.ConceptView) error {
		s := v.Stats()
		res = &StatisticsResult{
			TotalConcepts: s.Concepts, TotalRelations: s.Relations, VaultPath: vaultPath(ctx, d), ServerVersion: d.ServerVersion,
			RelationsByType:     map[string]int{"broader": s.Broader, "related": s.Related, "prerequisite": s.Prerequisite},
			UnresolvedRelations: s.Unresolved, AmbiguousIDs: s.AmbiguousIDs, UnreadableFrontmatter: s.UnreadableFrontmatter,
		}
		return nil
	})
	return res, err
}

// ---------------------------------------------------------------------
// The MCP tools

// conceptLookupHelp is how every concept argument is described.
const conceptLookupHelp = "Concept id (note file name without .md, lowercased, spaces and - as _), prefLabel, altLabel, note path or [[wikilink]]"

// The output schemas are written by hand: generated from the result types
// they were three times the size (every field described, nested types
// repeated), and every session pays for tools/list. docs/concepts.md documents
// each field; the handler tests check every answer against these.
var (
	conceptOutputSchema = []byte(`{"type":"object","required":["id","prefLabel","path"],"properties":{` +
		`"id":{"type":"string"},"uri":{"type":"string"},"prefLabel":{"type":"string"},"altLabel":{"type":"array"},` +
		`"definition":{"type":"string"},"notation":{"type":"string"},"inScheme":{"type":"array"},"file_path":{"type":"string"},` +
		`"path":{"type":"string"},"schema":{"type":"object"},"broader":{"type":"array"},"narrower":{"type":"array"},` +
		`"related":{"type":"array"},"prerequisite":{"type":"array"},"relation_counts":{"type":"object"},"unresolved":{"type":"object"}}}`)
	expandOutputSchema = []byte(`{"type":"object","required":["focus_concept","direct_relations","transitive_relations","context_notes","total"],"properties":{` +
		`"focus_concept":{"type":"object"},"direct_relations":{"type":"object"},"transitive_relations":{"type":"object"},` +
		`"context_notes":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"label":{"type":"string"},` +
		`"content":{"type":"string"},"file_path":{"type":"string"},"path":{"type":"string"},"relation":{"type":"string"},"depth":{"type":"integer"}}}},` +
		`"total":{"type":"integer"},"next_offset":{"type":"integer"},"notice":{"type":"string"}}}`)
	searchOutputSchema = []byte(`{"type":"object","required":["query","count","results","total"],"properties":{` +
		`"query":{"type":"string"},"count":{"type":"integer"},"results":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"string"},"uri":{"type":"string"},"prefLabel":{"type":"string"},"definition":{"type":"string"},` +
		`"file_path":{"type":"string"},"path":{"type":"string"},"match":{"type":"string"}}}},` +
		`"total":{"type":"integer"},"next_offset":{"type":"integer"},"notice":{"type":"string"}}}`)
	pathOutputSchema = []byte(`{"type":"object","required":["from","to","path"],"properties":{"from":{"type":"string"},"to":{"type":"string"},` +
		`"length":{"type":"integer"},"path":{"type":["array","null"],"items":{"type":"object","properties":{"id":{"type":"string"},` +
		`"prefLabel":{"type":"string"},"path":{"type":"string"},"relation":{"type":"string"}}}},"message":{"type":"string"}}}`)
	statisticsOutputSchema = []byte(`{"type":"object","required":["total_concepts","total_relations"],"properties":{` +
		`"total_concepts":{"type":"integer"},"total_relations":{"type":"integer"},"vault_path":{"type":"string"},` +
		`"server_version":{"type":"string"},"relations_by_type":{"type":"object"},"unresolved_relations":{"type":"integer"},"ambiguous_ids":{"type":"integer"},` +
		`"unreadable_frontmatter":{"type":"integer"}}}`)
)

// conceptCall adapts one of the concept functions to an MCP handler: the
// answer becomes structuredContent plus its JSON text, and a not-found
// or ambiguity error keeps its extra fields in the error JSON.
func conceptCall[A, R any](d Deps, fn func(context.Context, Deps, A) (*R, error)) server.ToolHandlerFunc {
	return handle(d, func(ctx context.Context, a A) (*mcp.CallToolResult, error) {
		res, err := fn(ctx, d, a)
		var nf *ConceptNotFoundError
		var amb *AmbiguousConceptError
		switch {
		case errors.As(err, &nf):
			return nil, &toolError{msg: nf.Error(), fields: map[string]any{"available_count": nf.Available, "suggestions": nf.Suggestions}, err: nf}
		case errors.As(err, &amb):
			return nil, &toolError{msg: amb.Error(), fields: map[string]any{"candidates": amb.Paths}, err: amb}
		case err != nil:
			return nil, err
		}
		return jsonResult(res)
	})
}

// GetConcept is get_concept.
func GetConcept(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_concept",
		mcp.WithDescription("One SKOS concept (a note whose frontmatter has prefLabel): labels, definition, notation, Schema.org properties and, "+
			"unless include_relations is false, the ids of its broader, narrower, related and prerequisite concepts (inverse edges included; "+
			"500 at most each, relation_counts has totals) and targets naming no concept (unresolved). Not found: available_count and suggestions."),
		mcp.WithString("concept_id", mcp.Required(), mcp.MaxLength(MaxConceptQuery), mcp.Description(conceptLookupHelp)),
		mcp.WithBoolean("include_relations", mcp.DefaultBool(true), mcp.Description("Add the relations")),
		mcp.WithRawOutputSchema(conceptOutputSchema),
		annotate("Get concept", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: conceptCall(d, Concept)}
}

// ExpandContext is expand_context, the primary concept tool.
func ExpandContext(d Deps) server.ServerTool {
	tool := mcp.NewTool("expand_context",
		mcp.WithDescription("Context around a concept, to read before reasoning about it: walks from it along each relation on its own "+
			"(broader of broader, narrower of narrower...) up to max_depth edges, each concept once. direct_relations: one edge away; "+
			"transitive_relations: further; context_notes: the listed concepts' note text, nearest first, at most 50,000 characters per note "+
			"and max_content per answer (then content_omitted; the notice says how to get the rest); next_offset pages on."),
		mcp.WithString("concept_id", mcp.Required(), mcp.MaxLength(MaxConceptQuery), mcp.Description(conceptLookupHelp)),
		mcp.WithArray("relation_types", mcp.WithStringEnumItems([]string{"broader", "narrower", "related", "prerequisite"}), mcp.MinItems(1),
			mcp.Description("Relations to follow (default broader, narrower, related)")),
		mcp.WithInteger("max_depth", mcp.Min(1), mcp.Max(MaxExpandDepth), mcp.DefaultNumber(DefaultExpandDepth), mcp.Description("Edges to go out")),
		mcp.WithBoolean("include_content", mcp.DefaultBool(true), mcp.Description("Add the notes' text")),
		mcp.WithInteger("max_content", mcp.Min(minContentCut), mcp.Max(MaxExpandContent), mcp.DefaultNumber(DefaultExpandContent),
			mcp.Description("Characters of note text in all, nearest first")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(MaxExpandLimit), mcp.DefaultNumber(DefaultExpandLimit), mcp.Description("Concepts to list")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Concepts to skip (a previous next_offset)")),
		mcp.WithRawOutputSchema(expandOutputSchema),
		annotate("Expand context", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: conceptCall(d, ExpandConcept)}
}

// SearchConcepts is search_concepts.
func SearchConcepts(d Deps) server.ServerTool {
	tool := mcp.NewTool("search_concepts",
		mcp.WithDescription("Find concepts by label or definition, in any case. Ranked: exact prefLabel or id, exact altLabel or notation, "+
			"label prefix, every word in the label, in an altLabel, in the definition; ties by label. count: results here; total: all matches."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(MaxConceptQuery), mcp.Description("Words to find")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(MaxSearchLimit), mcp.DefaultNumber(DefaultSearchLimit), mcp.Description("Results to return")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Results to skip (a previous next_offset)")),
		mcp.WithRawOutputSchema(searchOutputSchema),
		annotate("Search concepts", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: conceptCall(d, FindConcepts)}
}

// GetConceptPath is get_concept_path.
func GetConceptPath(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_concept_path",
		mcp.WithDescription("A shortest chain of relations (broader, narrower, related, prerequisite; either direction) between two concepts. "+
			"length counts edges; each step's relation is what it is to the step before. None: path null and a message."),
		mcp.WithString("from_concept", mcp.Required(), mcp.MaxLength(MaxConceptQuery), mcp.Description("First concept, named as concept_id is")),
		mcp.WithString("to_concept", mcp.Required(), mcp.MaxLength(MaxConceptQuery), mcp.Description("Last concept")),
		mcp.WithRawOutputSchema(pathOutputSchema),
		annotate("Get concept path", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: conceptCall(d, ConceptPath)}
}

// GetStatistics is get_statistics.
func GetStatistics(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_statistics",
		mcp.WithDescription("Concept graph counts: concepts, distinct relations (in all and by kind), targets naming no concept, "+
			"ids several notes share, notes whose frontmatter is not valid YAML; the vault's path and the server version."),
		mcp.WithRawOutputSchema(statisticsOutputSchema),
		annotate("Get statistics", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: conceptCall(d, Statistics)}
}
