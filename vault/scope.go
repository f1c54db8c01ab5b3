package vault

import (
	"context"
	"errors"
	"os"

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

// deniedError wraps an access refusal as a vault error.
func deniedError(given string, err error) error {
	var ae *access.Error
	if errors.As(err, &ae) {
		return &Error{Kind: ErrDenied, Path: given, Msg: ae.Msg}
	}
	return err
}

// checkRead refuses a client path that ctx's scope hides.
func checkRead(ctx context.Context, given string, p Path) error {
	return deniedError(given, access.From(ctx).CheckRead(given, p.Rel))
}

// checkFolder refuses a folder to list that ctx's scope does not lead to.
func checkFolder(ctx context.Context, given string, p Path) error {
	return deniedError(given, access.From(ctx).CheckFolder(given, p.Rel))
}

// checkWrite refuses a change of the client path given under ctx's scope.
func checkWrite(ctx context.Context, given string, p Path) error {
	return deniedError(given, access.From(ctx).CheckWrite(given, p.Rel))
}

// allowed is the Tx's own check of every path it changes. It does not
// name the path: the client may not have named it.
func (tx *Tx) allowed(p Path) error {
	return deniedError(p.Given, tx.scope.CheckWrite("", p.Rel))
}

// ResolveFor is Resolve for a path a client named, under the access
// scope ctx carries: a folder passes when it may be listed (it is
// visible, or leads to a visible folder), anything else when it is
// visible.
func (v *Vault) ResolveFor(ctx context.Context, given string) (Path, error) {
	p, err := v.Resolve(given)
	if err != nil {
		return Path{}, err
	}
	s := access.From(ctx)
	if s.Visible(p.Rel) {
		return p, nil
	}
	if fi, err := os.Stat(p.Abs); err == nil && fi.IsDir() {
		if err := checkFolder(ctx, given, p); err != nil {
			return Path{}, err
		}
		return p, nil
	}
	return Path{}, checkRead(ctx, given, p)
}
