package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"vaultmcp/vault/access"
)

// ErrDenied is the kind of a refusal by the request's access scope: a
// path outside the folders it may see, or a change under a read-only
// scope. See package access.
var ErrDenied = access.ErrDenied

// The vault applies the access scope a request's context carries
// (access.From) wherever it resolves a path a client named — ReadFile,
// Stat, List, ResolveFile, ResolveFor and every change — and inside each
// change's Tx, so even a file a change touches on its own (a note whose
// links a rename rewrites) cannot be written outside the scope; Update
// then rolls the whole change back. Resolve, ResolveEntry and Walk are
// the server's own and apply no scope: the index and the searches see
// the whole vault and filter their answers by the request's scope.
//
// A symbolic link is judged at both ends: a client path with a link on
// its way passes only when the scope allows both where it is written
// and where it leads (Path.Via), and a listing shows a link only when
// both the link and its target may be seen.

// deniedError wraps an access refusal as a vault error.
func deniedError(given string, err error) error {
	var ae *access.Error
	if errors.As(err, &ae) {
		return &Error{Kind: ErrDenied, Path: given, Msg: ae.Msg}
	}
	return err
}

// checkRead refuses a client path that ctx's scope hides, at either end
// of a symbolic link on the way (Path.Via).
func checkRead(ctx context.Context, given string, p Path) error {
	s := access.From(ctx)
	err := s.CheckRead(given, p.Rel)
	if err == nil && p.Via != "" {
		err = s.CheckRead(given, p.Via)
	}
	return deniedError(given, err)
}

// checkWrite refuses a change of the client path given under ctx's scope.
func checkWrite(ctx context.Context, given string, p Path) error {
	return deniedError(given, writable(access.From(ctx), given, p))
}

// allowed is the Tx's own check of every path it changes. It does not
// name the path: the client may not have named it.
func (tx *Tx) allowed(p Path) error {
	return deniedError(p.Given, writable(tx.scope, "", p))
}

// writable is s.CheckWrite of p at both ends of a link on its way.
func writable(s *access.Scope, given string, p Path) error {
	err := s.CheckWrite(given, p.Rel)
	if err == nil && p.Via != "" {
		err = s.CheckWrite(given, p.Via)
	}
	return err
}

// ResolveFor is Resolve for a path a client named, under the access
// scope ctx carries: a folder passes when it may be listed (it is
// visible, or it holds something visible: see folders), anything else
// when it is visible. A path that passes neither way gets the same
// refusal whether or not it exists.
func (v *Vault) ResolveFor(ctx context.Context, given string) (Path, error) {
	p, err := v.Resolve(given)
	if err != nil {
		return Path{}, err
	}
	if err := v.checkFor(ctx, given, p, nil); err != nil {
		return Path{}, err
	}
	return p, nil
}

// checkFor is ResolveFor's check of p, with fv the folder view of ctx's
// scope when the caller has one (nil: made here when needed).
func (v *Vault) checkFor(ctx context.Context, given string, p Path, fv *folderView) error {
	s := access.From(ctx)
	if s.Visible(p.Rel) && (p.Via == "" || s.Visible(p.Via)) {
		return nil
	}
	// A folder reached through a link (Via) is not looked into at the
	// link's end: the link itself must be visible.
	if p.Via == "" || s.Visible(p.Via) {
		if fi, err := os.Stat(p.Abs); err == nil && fi.IsDir() {
			if fv == nil {
				fv = v.folders(s)
			}
			if fv.shown(p.Abs, p.Rel) {
				return nil
			}
		}
	}
	return checkRead(ctx, given, p)
}

// folderView decides which folders an answer may show under a scope
// that hides paths. A visible folder is shown. So is a folder that is
// not visible itself but holds, at any depth, something that is (a
// parent of an allowed folder): without it the client could not reach
// what it may see. A folder the scope's patterns merely could lead into
// (Projects/Beta under an allow of Projects/*/public, when Beta has no
// public folder) holds nothing the client may see, and showing it would
// name a folder the client has no other way to know of; it is treated
// as hidden. Answers are memoized, so a listing looks into each folder
// at most once.
type folderView struct {
	v     *Vault
	scope *access.Scope
	memo  map[string]bool
}

func (v *Vault) folders(scope *access.Scope) *folderView {
	return &folderView{v: v, scope: scope, memo: map[string]bool{}}
}

// shown reports whether the folder rel (at abs) may appear in answers.
func (f *folderView) shown(abs, rel string) bool {
	if f.scope.Visible(rel) {
		return true
	}
	if !f.scope.Navigable(rel) {
		return false
	}
	if r, ok := f.memo[rel]; ok {
		return r
	}
	res := false
	defer func() { f.memo[rel] = res }()
	if fi, err := os.Lstat(abs); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		// A link is not looked through (a listing does not descend into
		// one either), which also ends any cycle.
		return false
	}
	entries, _ := os.ReadDir(abs)
	for _, e := range entries {
		name := e.Name()
		if f.v.Skipped(name) || IsSpecial(e.Type()) {
			continue
		}
		childRel := path.Join(rel, name)
		if e.IsDir() {
			res = f.shown(filepath.Join(abs, name), childRel)
		} else {
			res = f.scope.Visible(childRel)
		}
		if res {
			break
		}
	}
	return res
}
