package vault

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Path is a path inside the vault that passed every boundary check.
type Path struct {
	// Given is the path as the client wrote it, for messages.
	Given string
	// Rel is the canonical vault-relative path: '/'-separated, cleaned,
	// spelled as on disk (Unicode form included) and with symlinks inside
	// the vault followed. "" is the vault root.
	Rel string
	// Abs is the absolute path on disk. It must never reach a client.
	Abs string
	// Via is the other end of a symbolic link on the way, "" when there
	// is none: for Resolve the path as written on disk with no link
	// followed (Rel is where the links lead), for ResolveEntry of a link
	// the path of its target. An access scope must allow both Rel and
	// Via (see package access), or a link in an allowed folder would
	// show a note from a hidden one, and a link in a hidden folder would
	// name itself.
	Via string
}

// IsRoot reports whether p is the vault root.
func (p Path) IsRoot() bool { return p.Rel == "" }

// Resolve checks a client-supplied path against the vault boundary and
// maps it onto disk. It refuses NUL bytes, invalid UTF-8, anything that
// leads outside the vault ("..", absolute paths elsewhere, symlinks that
// point out, also for files that do not exist yet) and any component
// named like a hidden directory (.git, .claude). A name sent in NFC finds a
// file stored in NFD and the other way round. The empty path, ".", and "/"
// are the vault root; callers that need a file reject the root themselves.
func (v *Vault) Resolve(given string) (Path, error) {
	rel, err := v.lexical(given)
	if err != nil {
		return Path{}, err
	}
	// Follow the path on disk, component by component, so that Unicode
	// normalisation differences are bridged and symlinks are caught.
	onDisk, plain, err := v.matchOnDisk(rel)
	if err != nil {
		return Path{}, osError(given, err)
	}
	real := onDisk
	if !plain || !v.rootIntact() {
		if real, err = v.followSymlinks(given, onDisk); err != nil {
			return Path{}, err
		}
	}
	if err := v.checkHidden(given, real); err != nil {
		return Path{}, err
	}
	p := Path{Given: given, Rel: real, Abs: v.abs(real)}
	if real != onDisk {
		p.Via = onDisk
	}
	return p, nil
}

// ResolveEntry is Resolve for operations on a directory entry itself
// (delete, rename): a symbolic link in the last component that leads to a
// file inside the vault is not followed, so deleting or moving it acts on
// the link and never on the note it points to. Everything else resolves
// as by Resolve.
func (v *Vault) ResolveEntry(given string) (Path, error) {
	rel, err := v.lexical(given)
	if err != nil {
		return Path{}, err
	}
	if rel != "" {
		dir, base := path.Split(rel)
		if parent, err := v.Resolve(strings.TrimSuffix(dir, "/")); err == nil {
			abs := filepath.Join(parent.Abs, base)
			fi, err := os.Lstat(abs)
			if errors.Is(err, fs.ErrNotExist) {
				// Stored in the other Unicode form: Resolve would find it
				// too, and follow it to its target.
				if name, ok := findNormalised(parent.Abs, base); ok {
					base, abs = name, filepath.Join(parent.Abs, name)
					fi, err = os.Lstat(abs)
				}
			}
			if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				if target, ok := v.leadsInside(abs); ok {
					entry := path.Join(parent.Rel, base)
					if err := v.checkHidden(given, entry); err != nil {
						return Path{}, err
					}
					return Path{Given: given, Rel: entry, Abs: abs, Via: target}, nil
				}
			}
		}
	}
	return v.Resolve(given)
}

// leadsInside reports whether the symlink at abs resolves to an existing
// file inside the vault, and returns that file's vault-relative path.
// Links that lead out, or nowhere, stay refused as Resolve refuses them:
// the server has no business with them at all.
func (v *Vault) leadsInside(abs string) (string, bool) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	return v.relInside(real)
}

// FollowLink resolves the symbolic link at rel, an entry a walk found
// (Walk reports links and never follows them), to what it leads to, as a
// Path whose Rel is the target, Abs the target on disk and Via rel
// itself; fi is the target's. ok is false when the link is to be left
// out of every scan, listing and index: it leads out of the vault or
// nowhere, to a FIFO, socket or device, or to a path with a component
// scans leave out — a hidden folder (.git, .claude, the configured
// ones), .obsidian, .trash, any other dot-folder or dotfile. A link must
// not show what a scan would not: a link into .git would put the
// repository's configuration (with its remote's credentials) into
// search results. The cost is the link's own resolution, paid only for
// entries the walk found to be links.
func (v *Vault) FollowLink(rel string) (p Path, fi fs.FileInfo, ok bool) {
	return v.followLink(rel, v.abs(rel))
}

// followLink is FollowLink for the link rel found at abs.
func (v *Vault) followLink(rel, abs string) (Path, fs.FileInfo, bool) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Path{}, nil, false
	}
	target, ok := v.relInside(real)
	if !ok || target == "" {
		// Out of the vault, or its root (whose listing is no part of a
		// folder's).
		return Path{}, nil, false
	}
	for _, part := range strings.Split(target, "/") {
		if v.Skipped(part) {
			return Path{}, nil, false
		}
	}
	fi, err := os.Lstat(real) // real holds no link: Lstat is Stat
	if err != nil || IsSpecial(fi.Mode()) {
		return Path{}, nil, false
	}
	return Path{Given: rel, Rel: target, Abs: real, Via: rel}, fi, true
}

// lexical validates and cleans a path without touching the disk.
func (v *Vault) lexical(given string) (string, error) {
	if strings.IndexByte(given, 0) >= 0 {
		return "", newError(ErrInvalidPath, given, "Path contains a NUL byte: %q", given)
	}
	if !utf8.ValidString(given) {
		return "", newError(ErrInvalidPath, given, "Path is not valid UTF-8: %q", given)
	}
	// JSON decoding turns invalid bytes and lone surrogates into U+FFFD:
	// a path holding one was not valid UTF-8 when the client sent it.
	if strings.ContainsRune(given, utf8.RuneError) {
		return "", newError(ErrInvalidPath, given, "Path is not valid UTF-8 (it holds U+FFFD, the mark of bytes that were not): %q", given)
	}
	p := given
	if path.IsAbs(p) || filepath.IsAbs(p) {
		rel, ok := v.trimRoot(p)
		if !ok {
			return "", newError(ErrOutside, given, "Path is outside the vault: %s", given)
		}
		p = rel
	}
	p = path.Clean("./" + p)
	if p == "." {
		return "", nil
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", newError(ErrOutside, given, "Path is outside the vault: %s", given)
	}
	if err := v.checkHidden(given, p); err != nil {
		return "", err
	}
	for _, part := range strings.Split(p, "/") {
		if IsTemp(part) {
			// Scans never show these, and an interrupted write's leftovers
			// are removed at start: a note by such a name would vanish.
			return "", newError(ErrInvalidPath, given, "Names starting with %q are reserved for the server's temporary files: %s", tempPrefix, given)
		}
	}
	return p, nil
}

// trimRoot maps an absolute path onto the vault when it lies inside it.
// Clients sometimes echo absolute_path values back; those must work, and
// "/" alone means the vault root as it does for most MCP file servers.
func (v *Vault) trimRoot(p string) (string, bool) {
	c := filepath.Clean(filepath.FromSlash(p))
	if c == string(filepath.Separator) {
		return "", true
	}
	for _, root := range []string{v.root, v.givenRoot} {
		if c == root {
			return "", true
		}
		if strings.HasPrefix(c, root+string(filepath.Separator)) {
			return filepath.ToSlash(c[len(root)+1:]), true
		}
	}
	return "", false
}

// checkHidden refuses any path component that names a hidden directory.
// The comparison ignores case because on case-insensitive file systems
// ".GIT" is ".git".
func (v *Vault) checkHidden(given, rel string) error {
	for _, part := range strings.Split(rel, "/") {
		if v.isHidden(part) {
			return newError(ErrHidden, given, "Access denied: %s is inside the hidden directory %s", given, part)
		}
	}
	return nil
}

func (v *Vault) isHidden(name string) bool {
	_, ok := v.hidden[foldName(name)]
	return ok
}

// foldName is the form names are compared in: lower case and NFC, so that
// ".GIT" is ".git" and a hidden name stored in NFD on disk still matches
// the configured NFC spelling.
func foldName(name string) string {
	name = strings.ToLower(name)
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return norm.NFC.String(name)
		}
	}
	return name
}

func (v *Vault) abs(rel string) string {
	if rel == "" {
		return v.root
	}
	return filepath.Join(v.root, filepath.FromSlash(rel))
}

// matchOnDisk returns rel spelled as the file system spells it. A
// component that does not exist as written is looked up among its
// siblings by Unicode normal form (macOS and some sync tools store NFD,
// clients send NFC). Components below the first missing one are returned
// as given, NFC-normalised. plain says every component exists and none
// is a symbolic link: the path then needs no following (the root itself
// is symlink-free, see Open), which spares the common case a second walk
// of every component of the absolute path.
func (v *Vault) matchOnDisk(rel string) (onDisk string, plain bool, err error) {
	if rel == "" {
		return "", true, nil
	}
	parts := strings.Split(rel, "/")
	dir := v.root
	plain = true
	for i, part := range parts {
		candidate := filepath.Join(dir, part)
		fi, err := os.Lstat(candidate)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				plain = false
			}
			dir = candidate
			continue
		}
		plain = false
		if !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, fs.ErrPermission) {
				return "", false, err
			}
			// ENOTDIR: a parent is a file. Let the operation itself report
			// it with the right wording.
			return strings.Join(parts, "/"), false, nil
		}
		// Plain ASCII (or otherwise form-stable) names have no other
		// spelling to look for.
		stable := norm.NFC.IsNormalString(part) && norm.NFD.IsNormalString(part)
		name, ok := "", false
		if !stable {
			name, ok = findNormalised(dir, part)
		}
		if !ok {
			// New names are stored in NFC, whatever form the client sent.
			for j := i; j < len(parts); j++ {
				parts[j] = norm.NFC.String(parts[j])
			}
			return strings.Join(parts, "/"), false, nil
		}
		parts[i] = name
		dir = filepath.Join(dir, name)
	}
	return strings.Join(parts, "/"), plain, nil
}

// rootIntact reports whether the vault folder is still a folder and not a
// symbolic link, as Open found it; when it is not, Resolve follows every
// path as a whole, which refuses what now leads elsewhere.
func (v *Vault) rootIntact() bool {
	fi, err := os.Lstat(v.root)
	return err == nil && fi.IsDir()
}

// findNormalised looks in dir for an entry equal to name up to Unicode
// normalisation.
func findNormalised(dir, name string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	want := norm.NFC.String(name)
	for _, e := range entries {
		if norm.NFC.String(e.Name()) == want {
			return e.Name(), true
		}
	}
	return "", false
}

// followSymlinks resolves symlinks along rel and checks that the result
// stays inside the vault. For a path that does not exist yet, the nearest
// existing ancestor is resolved instead, so a write through a symlinked
// folder that leads out is refused before anything is created.
func (v *Vault) followSymlinks(given, rel string) (string, error) {
	if rel == "" {
		return "", nil
	}
	existing := rel
	var rest []string
	for {
		abs := v.abs(existing)
		fi, err := os.Lstat(abs)
		if err == nil {
			real, err := filepath.EvalSymlinks(abs)
			if err != nil {
				if fi.Mode()&fs.ModeSymlink != 0 {
					return "", newError(ErrInvalidPath, given, "Path is a broken symbolic link: %s", given)
				}
				return "", osError(given, err)
			}
			inside, ok := v.relInside(real)
			if !ok {
				return "", newError(ErrOutside, given, "Path is outside the vault (through a symbolic link): %s", given)
			}
			out := inside
			for i := len(rest) - 1; i >= 0; i-- {
				out = path.Join(out, rest[i])
			}
			return strings.TrimPrefix(out, "/"), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return "", osError(given, err)
		}
		dir, base := path.Split(existing)
		rest = append(rest, base)
		existing = strings.TrimSuffix(dir, "/")
		if existing == "" {
			out := ""
			for i := len(rest) - 1; i >= 0; i-- {
				out = path.Join(out, rest[i])
			}
			return out, nil
		}
	}
}

// relInside returns real (an absolute, symlink-free path) relative to the
// vault root, and whether it lies inside the vault.
func (v *Vault) relInside(real string) (string, bool) {
	if real == v.root {
		return "", true
	}
	if !strings.HasPrefix(real, v.root+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(real[len(v.root)+1:]), true
}
