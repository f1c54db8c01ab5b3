package vault

import (
	"context"
	"os"
)

// OpenFile opens the regular file at given for reading in parts (a page
// of a long note), instead of ReadFile's one slice from its start. The
// returned File has no Data. The caller closes the *os.File. A path ctx's
// access scope hides is refused.
func (v *Vault) OpenFile(ctx context.Context, given string) (*os.File, File, error) {
	p, _, err := v.statFile(ctx, given)
	if err != nil {
		return nil, File{}, v.explain(err)
	}
	// Non-blocking and checked: a FIFO swapped in after the stat is
	// refused, not waited on.
	f, fi, err := OpenRegular(p.Abs)
	if err != nil {
		return nil, File{}, osError(given, err)
	}
	return f, File{Path: p, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}
