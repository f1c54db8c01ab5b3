package tools

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"vaultmcp/internal/editdist"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// maxSuggestions is how many paths a not-found error offers.
const maxSuggestions = 3

// suggest returns the vault paths a client most likely meant by given,
// which names nothing: the same path in another case, without accents
// or without ".md" ("home.md" for "Home.md", "ete.md" for "Été.md",
// "plugins" for the folder "Plugins"), then a file or folder of that name
// elsewhere ("Canvas.md" for "Plugins/Canvas.md"), then names a typo or
// two away. Folders end in
// "/". Paths come from the index when there is one (the vault's files
// as scans see them: nothing hidden or skipped), else from a walk.
//
// Under an access scope (ctx) only paths it lets the client see are
// offered. A path the history shows was renamed offers the note's name
// now first.
func (d Deps) suggest(ctx context.Context, given string) []string {
	out, scores := d.rank(ctx, given)
	// A name found as such makes names a typo away noise.
	if len(out) > 0 && scores[out[0]] <= 1 {
		out = slices.DeleteFunc(out, func(rel string) bool { return scores[rel] > 1 })
	}
	if now := d.renamedTo(ctx, given); now != "" {
		out = append([]string{now}, slices.DeleteFunc(out, func(rel string) bool { return rel == now })...)
	}
	return out[:min(len(out), maxSuggestions)]
}

// renamedTo returns the name a note has now when the history shows that
// given is a name it had before ("" otherwise, or when it is not to be
// seen or is gone since).
func (d Deps) renamedTo(ctx context.Context, given string) string {
	if d.Git == nil || d.Vault == nil {
		return ""
	}
	rn, ok := d.Git.RenamedTo(ctx, given)
	if !ok || hiddenPath(d.Vault)(rn.Path) {
		return ""
	}
	if _, fi, err := d.Vault.Stat(ctx, rn.Path); err != nil || fi.IsDir() {
		return ""
	}
	return rn.Path
}

// sameName returns the vault's paths that given names but for case,
// accents or a left-out ".md" (folders end in "/"): the ones a tool may
// take for it when there is exactly one.
func (d Deps) sameName(ctx context.Context, given string) []string {
	out, scores := d.rank(ctx, given)
	return slices.DeleteFunc(out, func(rel string) bool { return scores[rel] > 0 })
}

// rank returns the vault's paths worth suggesting for given, likeliest
// first, with their scores (see nameQuery.score).
func (d Deps) rank(ctx context.Context, given string) ([]string, map[string]int) {
	g := path.Clean(strings.Trim(strings.ReplaceAll(given, "\\", "/"), "/"))
	if g == "." || g == "" || d.Vault == nil {
		return nil, nil
	}
	want := newNameQuery(g)
	scores := map[string]int{}
	seenDirs := map[string]bool{}
	scope := access.From(ctx)
	if d.Index != nil {
		scope = d.Index.Scope(ctx) // a link shows only where its target may
	}
	consider := func(rel string) bool {
		if !scope.Visible(rel) {
			return true
		}
		if rel == g {
			return true // it exists, but not as the tool wanted (a note, say)
		}
		if s, ok := want.score(rel, false); ok {
			scores[rel] = s
		}
		for dir := path.Dir(rel); dir != "." && !seenDirs[dir]; dir = path.Dir(dir) {
			seenDirs[dir] = true
			if s, ok := want.score(dir, true); ok {
				scores[dir+"/"] = s
			}
		}
		return true
	}
	if d.Index == nil || !d.Index.Files("", consider) {
		root, err := d.Vault.Resolve("")
		if err != nil {
			return nil, nil
		}
		_ = d.Vault.Walk(root, func(rel string, e fs.DirEntry) error {
			if e.Type().IsRegular() {
				consider(rel)
			}
			return nil
		})
	}
	out := make([]string, 0, len(scores))
	for rel := range scores {
		out = append(out, rel)
	}
	slices.SortFunc(out, func(a, b string) int {
		if scores[a] != scores[b] {
			return scores[a] - scores[b]
		}
		if da, db := strings.Count(strings.TrimSuffix(a, "/"), "/"), strings.Count(strings.TrimSuffix(b, "/"), "/"); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	return out, scores
}

// didYouMean renders suggestions as the end of an error message.
func didYouMean(paths []string) string {
	switch len(paths) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + paths[0] + "?"
	}
	return "; did you mean " + strings.Join(paths[:len(paths)-1], ", ") + " or " + paths[len(paths)-1] + "?"
}

// nameQuery is a path that names nothing, folded for comparison.
type nameQuery struct {
	full     string // the whole path, folded
	base     string // its last element, folded
	stem     string // base without ".md"
	maxTypos int    // edit distance still worth suggesting
}

func newNameQuery(given string) nameQuery {
	q := nameQuery{full: fold(given)}
	q.base = path.Base(q.full)
	q.stem = strings.TrimSuffix(q.base, ".md")
	switch n := utf8.RuneCountInString(q.stem); {
	case n < 4:
		q.maxTypos = 0
	case n <= 8:
		q.maxTypos = 1
	default:
		q.maxTypos = 2
	}
	return q
}

// score rates how likely rel is what the query meant, lower is likelier;
// ok is false when it is not worth offering.
func (q nameQuery) score(rel string, isDir bool) (int, bool) {
	k := fold(rel)
	stem := k
	if !isDir {
		stem = strings.TrimSuffix(k, ".md")
	}
	if k == q.full || stem == q.full || stem == strings.TrimSuffix(q.full, ".md") {
		return 0, true // another case or accents, or ".md" added or left out
	}
	base := path.Base(k)
	bstem := strings.TrimSuffix(base, ".md")
	if isDir {
		bstem = base
	}
	if base == q.base || bstem == q.stem {
		return 1, true // the same name in another folder
	}
	if q.maxTypos > 0 {
		if dist := editdist.Within(bstem, q.stem, q.maxTypos); dist <= q.maxTypos {
			return 1 + dist, true
		}
	}
	return 0, false
}

// fold is the comparison form of a name: case, accents and Unicode form
// ignored, as completion compares them (vault.LooseName).
func fold(s string) string { return vault.LooseName(s) }

// Suggest returns the existing paths a not-found path may have meant (see
// suggest) and the "; did you mean …?" that not-found tool errors end
// with, empty when there are none; the REST API answers both in its 404s.
func Suggest(ctx context.Context, d Deps, given string) (paths []string, hint string) {
	paths = d.suggest(ctx, given)
	return paths, didYouMean(paths)
}
