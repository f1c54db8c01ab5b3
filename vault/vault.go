// Package vault is the Obsidian vault on disk: the boundary every client
// path is checked against, atomic file changes that are recorded (committed)
// or rolled back as one, listings and walks that skip what clients must not
// see. It knows nothing of MCP, git or Markdown.
//
// A change's files are the vault's to write, to put into place and to
// undo; making the change durable is its recorder's (see
// changes.Recorder). The line between them runs through the change's
// last write: the vault writes the new content to a temporary file beside
// the note, the recorder prepares the commit and flushes that file with
// it, the vault renames the file into place, and the recorder publishes
// the commit. See Vault.Update.
package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"vaultmcp/vault/access"
	"vaultmcp/vault/changes"
)

// DefaultHidden are the directories refused in any path and left out of
// every listing, search and count (the documented hidden directories, docs/configuration.md).
var DefaultHidden = []string{".git", ".claude"}

// DefaultSkip are directories that scans leave out but that a client may
// still name directly: Obsidian's settings and its trash.
var DefaultSkip = []string{".obsidian", ".trash"}

// tempPrefix marks the temporary files of atomic writes, so walkers and
// watchers can ignore them (and git never commits them). The names are
// ".vaultmcp-<pid>-<target>-<random>.tmp"; see tempName.
const tempPrefix = ".vaultmcp-"

// NotDurableError is Update's error for a change that was committed (the
// branch points at Commit, and the files hold the change) but whose last
// flush to disk failed: the change stands, and may not survive a power
// loss. Callers answer it as an error that says so, never as "nothing
// happened": retrying the change would find it made.
type NotDurableError struct {
	Summary string // what the change was, e.g. "write notes/a.md"
	Commit  string // the commit's hash
	Err     error  // why the flush failed
}

// Error says what was committed and what failed.
func (e *NotDurableError) Error() string {
	return fmt.Sprintf("the change (%s) was committed as %s, but flushing it to disk failed, so it may not survive a power loss: %v", e.Summary, e.Commit, e.Err)
}

// Unwrap returns why the flush failed.
func (e *NotDurableError) Unwrap() error { return e.Err }

// Options configure a Vault. The zero value is usable.
type Options struct {
	// Hidden names directories refused in paths and skipped everywhere.
	// Nil means DefaultHidden; .git is always hidden.
	Hidden []string
	// Skip names directories that scans leave out. Nil means DefaultSkip.
	Skip []string
	// MaxWriteBytes caps the content of one write or edit; 0 means
	// DefaultMaxWriteBytes, negative means no cap.
	MaxWriteBytes int64
}

// DefaultMaxWriteBytes is the largest content a write or an edit may
// leave in a file: far above any real note, far below what would strain
// the server's memory.
const DefaultMaxWriteBytes = 10 << 20

// Vault is an Obsidian vault rooted at a directory. Reads run
// concurrently; changes are serialised by one write lock.
type Vault struct {
	root      string // absolute, symlinks resolved
	givenRoot string // absolute as configured, for clients echoing paths
	hidden    map[string]struct{}
	skip      map[string]struct{}
	maxWrite  int64 // <= 0: no cap

	mu        sync.Mutex // the write lock
	recorder  changes.Recorder
	observers []func(changes.Batch)

	// dropping counts the backup removals running in the background
	// (see dropLater); Close waits for them.
	dropping sync.WaitGroup

	// writeFault, when set (by tests), writes the data of an atomic write
	// in place of f.Write, so a full disk can be simulated.
	writeFault func(f *os.File, data []byte) error
	// dirSynced, when set (by tests), is told of each folder that
	// syncDirs flushes.
	dirSynced func(abs string)
	// creators, when not 0 (tests and benchmarks), is how many workers
	// check, create and rename a batch's files, in place of
	// createWorkers' choice.
	creators int
	// renameFile, when set (by tests), renames a batch's temporary files
	// into place instead of renameOver, to make one of them fail.
	renameFile func(from, to string) error
}

// Open returns the vault rooted at dir, which must be an existing
// directory.
func Open(dir string, opts Options) (*Vault, error) {
	if dir == "" {
		return nil, &Error{Kind: ErrVaultMissing, Msg: "Vault path not set"}
	}
	givenRoot, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Kind: ErrVaultMissing, Path: dir, Msg: "Vault not found: " + dir}
	}
	root, err := filepath.EvalSymlinks(givenRoot)
	if err != nil {
		return nil, &Error{Kind: ErrVaultMissing, Path: dir, Msg: "Vault not found: " + dir}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, &Error{Kind: ErrVaultMissing, Path: dir, Msg: "Vault not found: " + dir}
	}
	if !fi.IsDir() {
		// Said apart from a missing one: the usual slip is naming a note
		// or the vault's .obsidian config file instead of its folder.
		return nil, &Error{Kind: ErrVaultMissing, Path: dir, Msg: "Vault is not a folder: " + dir + " (name the vault's folder)"}
	}
	if root == string(filepath.Separator) {
		// The boundary is "below the root": the whole file system cannot be one.
		return nil, &Error{Kind: ErrVaultMissing, Path: dir, Msg: "Vault must not be the file-system root: " + dir}
	}
	hidden, skip := opts.Hidden, opts.Skip
	if hidden == nil {
		hidden = DefaultHidden
	}
	if skip == nil {
		skip = DefaultSkip
	}
	// .git stays hidden whatever the configuration says: an agent that
	// could write .git/hooks or .git/config could run code on the
	// user's machine at their next git command.
	hidden = append(slices.Clone(hidden), ".git")
	maxWrite := opts.MaxWriteBytes
	if maxWrite == 0 {
		maxWrite = DefaultMaxWriteBytes
	}
	v := &Vault{
		root:      root,
		givenRoot: filepath.Clean(givenRoot),
		hidden:    nameSet(hidden),
		skip:      nameSet(skip),
		maxWrite:  maxWrite,
	}
	return v, nil
}

func nameSet(names []string) map[string]struct{} {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[foldName(n)] = struct{}{}
	}
	return set
}

// MaxWriteBytes returns the cap on one write's content (<= 0: none).
func (v *Vault) MaxWriteBytes() int64 { return v.maxWrite }

// checkSize refuses content of n bytes when it is over the write cap.
// what says what is too large ("content", "the edited file").
func (v *Vault) checkSize(given, what string, n int64) error {
	if v.maxWrite <= 0 || n <= v.maxWrite {
		return nil
	}
	return newError(ErrTooLarge, given, "%s of %s is %s, more than the server's limit of %s per write (limits.max_write_bytes); nothing was changed",
		what, given, HumanBytes(n), HumanBytes(v.maxWrite))
}

// HumanBytes renders a byte count for people: "512 bytes", "3.2 KB",
// "10.0 MB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Root returns the vault's absolute root directory. It is for wiring and
// for fields the documented answers carry (absolute_path); never put it in an error.
func (v *Vault) Root() string { return v.root }

// SetRecorder installs the recorder every change goes through. Call it
// before serving.
func (v *Vault) SetRecorder(r changes.Recorder) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.recorder = r
}

// dropLater removes the backups of a recorded change in the background.
// Each backup holds the only link left to a file's old content, so
// removing it frees that content's inode and blocks: for the 1,800 notes
// of a large rename about a second on ext4 here, for a single write's
// note a few tenths of a millisecond, neither of which the answer need
// wait for. The backups are temporary files nothing else reads (IsTemp,
// never committed), and a process that stops before they are gone leaves
// them to the sync's start-up clean-up, as it does after a crash: a
// dead process's backup is removed there, never taken for a change.
func (v *Vault) dropLater(backups []string) {
	v.dropping.Add(1)
	go func() {
		defer v.dropping.Done()
		for _, b := range backups {
			_ = removeIfExists(b)
		}
	}()
}

// Close waits for the clean-up a change left to the background (see
// dropLater). Call it once no more changes will be made.
func (v *Vault) Close() error {
	v.dropping.Wait()
	return nil
}

// Observe registers fn to be told, synchronously and under the write
// lock, of each recorded change: the paths it touched and what it wrote.
// The index uses it so the next query already sees the write.
func (v *Vault) Observe(fn func(changes.Batch)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.observers = append(v.observers, fn)
}

// Locker returns the vault's write lock, for work that changes the
// worktree outside a Tx (a git pull).
func (v *Vault) Locker() sync.Locker { return &v.mu }

// Hidden reports whether a single path component names a hidden
// directory (refused in paths, skipped everywhere).
func (v *Vault) Hidden(name string) bool { return v.isHidden(name) }

// Skipped reports whether scans leave out a file or directory of this
// name: hidden and skipped folders, and every other dotfile and
// dot-folder (.obsidian, .github, .DS_Store, our temporary files), which
// are not notes: Obsidian and ripgrep leave them out too. A client can
// still name one directly.
func (v *Vault) Skipped(name string) bool {
	if strings.HasPrefix(name, ".") || v.isHidden(name) {
		return true
	}
	_, ok := v.skip[foldName(name)]
	return ok
}

// IsTemp reports whether a file name is one of the vault's own temporary
// files, which watchers should ignore.
func IsTemp(name string) bool { return strings.HasPrefix(name, tempPrefix) }

// Update runs fn as one change: everything fn does through the Tx is
// recorded as a single history entry, or, if fn or the recorder fails,
// rolled back so the vault is as it was. It returns the recorder's commit
// id ("" without a recorder or when nothing changed). A recorder's
// CommittedError is not rolled back: the change stands as committed, and
// Update returns the commit with an error saying it may not be on disk.
//
// Under a read-only access scope (see package access) Update refuses at
// once, before fn reads anything; otherwise every path the Tx changes
// must lie within ctx's scope.
func (v *Vault) Update(ctx context.Context, fn func(tx *Tx) error) (commit string, err error) {
	scope := access.From(ctx)
	if scope.ReadOnly() {
		return "", deniedError("", scope.CheckWrite("", ""))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	tx := &Tx{v: v, scope: scope}
	if err := fn(tx); err != nil {
		return "", tx.fail(v.explain(err))
	}
	if len(tx.touched) == 0 {
		return "", nil
	}
	commit, err = tx.commit(ctx)
	var notFlushed error
	var done changes.CommittedError
	switch {
	case errors.As(err, &done):
		// The commit counts: undoing the files now would leave the
		// branch holding a change the vault does not, and the next
		// scan would commit the old content back. The change stays,
		// and the answer is an error that says what happened.
		commit = done.Committed()
		notFlushed = &NotDurableError{Summary: tx.summary, Commit: commit, Err: done.Unwrap()}
	case err != nil && v.recorder != nil:
		return "", tx.fail(fmt.Errorf("could not record %q, the change was undone: %w", tx.summary, err))
	case err != nil:
		return "", tx.fail(v.explain(err))
	}
	tx.finish()
	b := changes.Batch{Paths: tx.touched, Written: tx.written}
	for _, fn := range v.observers {
		fn(b)
	}
	return commit, notFlushed
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// CheckRoot reports an ErrVaultMissing error when the vault folder itself
// is gone: deleted, or moved away, while the server runs. Every path is
// then "not found", which would mislead; callers check this on their
// not-found paths. Nothing needs restarting when the folder comes back.
func (v *Vault) CheckRoot() error {
	fi, err := os.Stat(v.root)
	if err == nil && fi.IsDir() {
		return nil
	}
	return &Error{Kind: ErrVaultMissing, Msg: "The vault folder is missing: it was deleted or moved away while the server was running. " +
		"Nothing was changed; the vault is served again as soon as its folder is back"}
}

// explain replaces a not-found error by CheckRoot's when the whole vault
// folder is what is missing.
func (v *Vault) explain(err error) error {
	if err == nil || !(errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotDir) || errors.Is(err, fs.ErrNotExist)) {
		return err
	}
	if rootErr := v.CheckRoot(); rootErr != nil {
		return rootErr
	}
	return err
}

// statFile resolves a client path that must name an existing regular file.
func (v *Vault) statFile(ctx context.Context, given string) (Path, fs.FileInfo, error) {
	if given == "" {
		return Path{}, nil, newError(ErrInvalidPath, given, "Path is required")
	}
	p, err := v.Resolve(given)
	if err != nil {
		return Path{}, nil, err
	}
	if err := checkRead(ctx, given, p); err != nil {
		return Path{}, nil, err
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		return Path{}, nil, osError(given, err)
	}
	if fi.IsDir() {
		return Path{}, nil, newError(ErrIsDir, given, "Is a directory, not a file: %s", displayDir(given))
	}
	if !fi.Mode().IsRegular() {
		return Path{}, nil, notRegularError(given, fi.Mode())
	}
	return p, fi, nil
}

// statEntry resolves a client path that must name an existing file or
// symbolic link, for operations on the entry itself: a link is deleted or
// moved as a link.
func (v *Vault) statEntry(ctx context.Context, given string) (Path, error) {
	if given == "" {
		return Path{}, newError(ErrInvalidPath, given, "Path is required")
	}
	p, err := v.ResolveEntry(given)
	if err != nil {
		return Path{}, err
	}
	if err := checkRead(ctx, given, p); err != nil {
		return Path{}, err
	}
	fi, err := os.Lstat(p.Abs)
	if err != nil {
		return Path{}, osError(given, err)
	}
	switch {
	case fi.IsDir():
		return Path{}, newError(ErrIsDir, given, "Is a directory, not a file: %s", displayDir(given))
	case fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular():
		return Path{}, notRegularError(given, fi.Mode())
	}
	return p, nil
}

func displayDir(given string) string {
	if given == "" || given == "." || given == "/" {
		return "/ (the vault root)"
	}
	return given
}
