package history

import (
	"context"
	"strings"

	"vaultmcp/vault/access"
)

// History answers under the request's access scope (package access):
// files it hides are left out of every list (composed into the queries'
// Hide option), commits that changed nothing else are left out entirely,
// and the message of a commit that also changed hidden files, or that
// names a hidden path, is withheld, since messages name the paths they
// touch ("MCP: rename Private/a.md -> Journal/a.md").

// withheldMessage stands in for a withheld commit message.
const withheldMessage = "(message withheld: this commit also changed files outside the folders this session may access)"

// hidingScope returns ctx's scope when it hides anything, else nil: the
// queries skip every check then.
func hidingScope(ctx context.Context) *access.Scope {
	if s := access.From(ctx); s.Hides() {
		return s
	}
	return nil
}

// hideUnder adds what scope hides to a query's Hide option.
func hideUnder(scope *access.Scope, hide func(string) bool) func(string) bool {
	if scope == nil {
		return hide
	}
	return func(p string) bool { return !scope.Visible(p) || hide != nil && hide(p) }
}

// invisible reports whether every file commit m changed is hidden, so the
// commit itself is left out. (A merge lists no files of its own.)
func (h *history) invisible(scope *access.Scope, m *commitMeta) bool {
	if scope == nil || len(m.parents) > 1 {
		return false
	}
	changes := h.changes(m)
	if len(changes) == 0 {
		return false
	}
	for _, d := range changes {
		if scope.Visible(d.Path) {
			return false
		}
	}
	return true
}

// message is m's message as the scope lets the client read it.
func (h *history) message(scope *access.Scope, m *commitMeta) string {
	if scope == nil {
		return m.message
	}
	if namesHidden(scope, m.message) {
		return withheldMessage
	}
	if len(m.parents) <= 1 {
		for _, d := range h.changes(m) {
			if !scope.Visible(d.Path) {
				return withheldMessage
			}
		}
	}
	return m.message
}

// namesHidden reports whether a commit message of the server's own
// ("MCP: rename a.md -> b.md") names a path the scope hides, even one the
// commit's diff does not show. Messages written by people are free text
// and are not parsed.
func namesHidden(scope *access.Scope, message string) bool {
	first, _, _ := strings.Cut(message, "\n")
	rest, ok := strings.CutPrefix(first, "MCP: ")
	if !ok {
		return false
	}
	_, paths, ok := strings.Cut(rest, " ")
	if !ok {
		return false
	}
	for _, p := range strings.Split(paths, " -> ") {
		if !scope.Visible(strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}
