package gitsync

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"vaultmcp/gitsync/internal/store"
)

// Temporary files. An atomic write (the vault's, or a pull's) writes a
// temporary file beside its target and renames it into place; a process
// killed in between leaves the temporary file. A change the vault may have
// to undo first keeps the file it replaces or deletes as a backup beside
// it (a hard link, or the file itself moved aside), removed once the
// change is done; a kill in between leaves the backup. Their names start
// with tempPrefix followed by the writing process's id and a dash
// (".vaultmcp-4242-daily.md-123.tmp", ".vaultmcp-4242-daily.md-77.bak").
// They are never committed, and the external-changes scan (which runs at
// start, with the vault lock held, so that no write of this process is in
// flight) removes those whose process is gone, or is this one; a name
// without a process id (older versions) is removed once it is a minute
// old. A backup whose note is gone belongs to a deletion the kill cut
// short: the deletion stands, as the disk showed it at the kill, and the
// next commit records it (the note's content stays in history: every
// change the server answered was committed).

// tempPrefix starts the name of every temporary file of an atomic write.
const tempPrefix = ".vaultmcp-"

// legacyTempAge is the age after which a temporary file whose name carries
// no process id is taken for a leftover.
const legacyTempAge = time.Minute

// isTempName reports whether a file name is one of the temporary files of
// an atomic write.
func isTempName(name string) bool { return strings.HasPrefix(name, tempPrefix) }

// tempPid returns the process id in a temporary file's name.
func tempPid(name string) (int, bool) {
	rest := strings.TrimPrefix(name, tempPrefix)
	digits, _, ok := strings.Cut(rest, "-")
	if !ok || digits == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// staleTemp reports whether the temporary file is a leftover.
func staleTemp(name string, modTime time.Time) bool {
	pid, ok := tempPid(name)
	if !ok {
		return time.Since(modTime) > legacyTempAge
	}
	return pid == os.Getpid() || !store.ProcessAlive(pid)
}

// removeStaleTemp removes the temporary file or backup at full (rel in
// the vault) if it is a leftover.
func (r *Repo) removeStaleTemp(full, rel string) {
	fi, err := os.Lstat(full)
	if err != nil || fi.IsDir() || !staleTemp(fi.Name(), fi.ModTime()) {
		return
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.log.Warn("could not remove the temporary file or backup of an interrupted write", "path", rel, "err", err)
		return
	}
	r.log.Info("removed the temporary file or backup of an interrupted write", "path", rel)
}
