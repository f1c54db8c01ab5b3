package store

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"golang.org/x/text/unicode/norm"
)

// The remote is not trusted: a commit pulled from it may carry a tree whose
// entries, checked out, would write into .git (a hook runs code at the
// user's next git command, .git/config holds the token) or outside the
// vault. Every tree entry that reaches the worktree or a commit passes
// CheckName: trees pulled from the remote before anything of them is
// written (verifyTree), and paths of our own commits (cleanPath), whichever
// code path makes the commit.

// ErrUnsafePath is wrapped by every refusal of checkName.
var ErrUnsafePath = errors.New("unsafe path")

// UnsafeTreeError says a tree holds an entry that must never be checked
// out; the pull that brought it is refused whole.
type UnsafeTreeError struct {
	Commit plumbing.Hash // the remote commit refused (zero when unknown)
	Path   string        // the entry, '/'-joined from the tree's root
	Reason string
}

func (e *UnsafeTreeError) Error() string {
	c := ""
	if !e.Commit.IsZero() {
		c = " " + short(e.Commit)
	}
	return fmt.Sprintf("refused the remote's commit%s: tree entry %q %s; nothing of it was checked out", c, e.Path, e.Reason)
}

func (e *UnsafeTreeError) Unwrap() error { return ErrUnsafePath }

// CheckName tells whether one path component may exist in the worktree. It
// follows git's own verify_path and fsck rules (is_hfs_dotgit,
// is_ntfs_dotgit, verify_dotfile) and is stricter where git's are about one
// file system only:
//
//   - not empty, not "." or "..", no '/' and no NUL;
//   - not ".git" in any case, nor any spelling that some file system takes
//     for it: with code points HFS+ ignores (U+200C…U+200F, U+202A…U+202E,
//     U+206A…U+206F, U+FEFF) or any other default-ignorable code point
//     inside, NTFS's trailing dots, spaces or ":stream" (".git. ",
//     ".git::$INDEX_ALLOCATION"), its short name "git~1", and any Unicode
//     form or compatibility variant that folds to ".git" (NFC, NFD, NFKC,
//     full-width letters);
//   - the same for every part between backslashes, which Windows reads as
//     folder separators ("a\.git\hooks" is ".git" there);
//   - no symbolic link named .gitmodules, .gitignore or .gitattributes,
//     which git reads through the link;
//   - valid UTF-8 is not required (git does not require it) but the
//     folding above only applies to valid text.
func CheckName(name string, mode filemode.FileMode) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: has an empty name", ErrUnsafePath)
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: has a NUL byte in its name", ErrUnsafePath)
	case strings.IndexByte(name, '/') >= 0:
		return fmt.Errorf("%w: has a '/' in its name", ErrUnsafePath)
	}
	for _, part := range strings.Split(name, `\`) {
		if err := checkPart(part, mode); err != nil {
			return err
		}
	}
	return nil
}

func checkPart(part string, mode filemode.FileMode) error {
	folded := foldForCompare(part)
	switch {
	case part == "." || part == ".." || folded == "." || folded == "..":
		return fmt.Errorf("%w: names the folder itself or its parent (. or ..)", ErrUnsafePath)
	case isDotGit(part) || isDotGit(folded):
		return fmt.Errorf("%w: is .git, or a spelling of it some file system reads as .git", ErrUnsafePath)
	}
	if mode == filemode.Symlink {
		for _, special := range []string{".gitmodules", ".gitignore", ".gitattributes"} {
			if strings.EqualFold(trimNTFS(folded), special) {
				return fmt.Errorf("%w: is a symbolic link that git would follow", ErrUnsafePath)
			}
		}
	}
	return nil
}

// isDotGit is git's is_ntfs_dotgit over an already folded name: ".git" or
// "git~1", in any case, followed by nothing but dots and spaces, or by ':'
// (an NTFS stream).
func isDotGit(s string) bool {
	var rest string
	switch {
	case len(s) >= 4 && strings.EqualFold(s[:4], ".git"):
		rest = s[4:]
	case len(s) >= 5 && strings.EqualFold(s[:5], "git~1"):
		rest = s[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '.', ' ':
		case ':':
			return true
		default:
			return false
		}
	}
	return true
}

// trimNTFS drops what NTFS ignores at the end of a name: dots, spaces and
// a ":stream" suffix.
func trimNTFS(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, ". ")
}

// foldForCompare maps a name onto the form file systems compare names in:
// ignorable code points dropped, compatibility-decomposed and recomposed
// (NFKC, which also covers NFC and NFD spellings), and case-folded. Only
// used to recognise ".git"-like names, never to rename anything.
func foldForCompare(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isIgnorable(r) {
			continue
		}
		b.WriteRune(r)
	}
	out := norm.NFKC.String(b.String())
	// Simple case folding, rune by rune, so that e.g. U+0130 or the
	// Kelvin sign cannot stand in for an ASCII letter.
	var f strings.Builder
	for _, r := range out {
		f.WriteRune(foldRune(r))
	}
	return f.String()
}

// foldRune returns the smallest rune of r's case-folding orbit that is
// ASCII if there is one, else unicode.ToLower(r).
func foldRune(r rune) rune {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return unicode.ToLower(f)
		}
	}
	if r == 'İ' || r == 'ı' { // Turkish dotted capital I and dotless i
		return 'i'
	}
	return unicode.ToLower(r)
}

// isIgnorable reports code points that file systems (HFS+ above all) or
// renderers drop from names: git's list plus Unicode's default-ignorables.
func isIgnorable(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x206f, r == 0xfeff, r == 0x00ad:
		return true
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r)
}

// checkMode accepts the modes a vault's tree can hold: folders, regular and
// executable files (and the old group-writable 100664), symbolic links and
// submodule links (never checked out).
func checkMode(m filemode.FileMode) error {
	switch m {
	case filemode.Dir, filemode.Regular, filemode.Deprecated, filemode.Executable, filemode.Symlink, filemode.Submodule:
		return nil
	}
	return fmt.Errorf("%w: has an unknown file mode %o", ErrUnsafePath, uint32(m))
}

// CheckPath runs checkName on every component of a '/'-separated path.
func CheckPath(p string, mode filemode.FileMode) error {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		m := filemode.Dir
		if i == len(parts)-1 {
			m = mode
		}
		if err := CheckName(part, m); err != nil {
			return err
		}
	}
	return nil
}

// maxVerified bounds the set of trees known to be safe; it is cleared when
// full (trees are content-addressed, so forgetting only costs a re-check).
const maxVerified = 200000

// VerifyTree checks every entry under tree h with checkName and checkMode,
// and that each tree is sorted without duplicates (git fsck's rules): a
// tree that breaks any of them is refused whole. Trees already checked are
// remembered by hash, so a pull costs the folders it changed.
func (o *Objects) VerifyTree(h plumbing.Hash) error {
	return o.verifyTreeAt(h, "")
}

func (o *Objects) verifyTreeAt(h plumbing.Hash, prefix string) error {
	if h.IsZero() || h == EmptyTree {
		return nil
	}
	if _, ok := o.verified[h]; ok {
		return nil
	}
	es, err := o.Tree(h)
	if err != nil {
		return err
	}
	names := make(map[string]struct{}, len(es))
	for i, e := range es {
		p := joinPath(prefix, e.Name)
		err := checkMode(e.Mode)
		if err == nil {
			err = CheckName(e.Name, e.Mode)
		}
		if err != nil {
			return &UnsafeTreeError{Path: p, Reason: strings.TrimPrefix(err.Error(), ErrUnsafePath.Error()+": ")}
		}
		// A name twice (a file and a folder "a") would have the
		// checkout write one over the other.
		if _, dup := names[e.Name]; dup {
			return &UnsafeTreeError{Path: p, Reason: "appears twice in its tree"}
		}
		names[e.Name] = struct{}{}
		if i > 0 && treeOrderKey(es[i-1]) >= treeOrderKey(e) {
			return &UnsafeTreeError{Path: p, Reason: "is out of order in its tree"}
		}
		if e.Mode == filemode.Dir {
			if err := o.verifyTreeAt(e.Hash, p); err != nil {
				return err
			}
		}
	}
	if len(o.verified) >= maxVerified {
		clear(o.verified)
	}
	o.verified[h] = struct{}{}
	return nil
}

// CheckLinkTarget tells whether a symbolic link at rel may enter a commit.
// A link whose target is absolute, or climbs out of the vault, or goes
// into .git, is left out: checked out on another device it would point
// at whatever that path holds there (and it would publish this machine's
// folder names). The target is resolved lexically from the link's folder,
// as the link itself would be read; a link to a link is judged on its
// own when that one is committed.
func CheckLinkTarget(rel, target string) error {
	t := strings.ReplaceAll(target, `\`, "/")
	if t == "" {
		return fmt.Errorf("%w: a symbolic link with an empty target", ErrUnsafePath)
	}
	if strings.HasPrefix(t, "/") || len(t) >= 2 && t[1] == ':' {
		return fmt.Errorf("%w: a symbolic link to %s, an absolute path", ErrUnsafePath, target)
	}
	resolved := path.Join(path.Dir(rel), t)
	if resolved == ".." || strings.HasPrefix(resolved, "../") {
		return fmt.Errorf("%w: a symbolic link to %s, outside the vault", ErrUnsafePath, target)
	}
	for _, part := range strings.Split(resolved, "/") {
		if isDotGit(foldForCompare(part)) {
			return fmt.Errorf("%w: a symbolic link to %s, inside .git", ErrUnsafePath, target)
		}
	}
	return nil
}

// CleanPath checks a vault-relative path and puts it in canonical form.
func CleanPath(p string) (string, error) {
	q := strings.ReplaceAll(p, "\\", "/")
	if q == "" || strings.ContainsRune(q, 0) || strings.HasPrefix(q, "/") || filepath.IsAbs(p) {
		return "", fmt.Errorf("invalid path %q", p)
	}
	q = path.Clean(q)
	if q == "." || q == ".." || strings.HasPrefix(q, "../") {
		return "", fmt.Errorf("invalid path %q", p)
	}
	if err := CheckPath(q, filemode.Regular); err != nil {
		return "", fmt.Errorf("invalid path %q: %w", p, err)
	}
	return q, nil
}
