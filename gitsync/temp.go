package gitsync

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
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
// old. A backup whose target is gone is the content of a deletion the
// kill cut short before it was answered: it is put back rather than
// removed, so a kill never loses a note's last content.

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
	return pid == os.Getpid() || !processAlive(pid)
}

// backupTarget returns the name of the file a backup was kept for, from
// the backup's name (".vaultmcp-<pid>-<target>-<random>.bak").
func backupTarget(name string) (string, bool) {
	rest, ok := strings.CutSuffix(name, ".bak")
	if !ok {
		return "", false
	}
	if _, ok := tempPid(name); !ok {
		return "", false
	}
	_, rest, _ = strings.Cut(strings.TrimPrefix(rest, tempPrefix), "-")
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", false
	}
	if _, err := strconv.ParseUint(rest[i+1:], 10, 64); err != nil {
		return "", false
	}
	return rest[:i], true
}

// removeStaleTemp removes the temporary file or backup at full (rel in
// the vault) if it is a leftover, or puts a leftover backup back in place
// of its target when the target is gone.
func (r *Repo) removeStaleTemp(full, rel string) {
	fi, err := os.Lstat(full)
	if err != nil || fi.IsDir() || !staleTemp(fi.Name(), fi.ModTime()) {
		return
	}
	if target, ok := backupTarget(fi.Name()); ok && fi.Mode().IsRegular() && !isTempName(target) && checkName(target, filemode.Regular) == nil {
		tfull := filepath.Join(filepath.Dir(full), target)
		if _, err := os.Lstat(tfull); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(full, tfull); err != nil {
				r.log.Warn("could not put back the backup of an interrupted change", "path", rel, "err", err)
				return
			}
			r.log.Info("put back the file an interrupted deletion had set aside", "path", path.Join(path.Dir(rel), target))
			return
		}
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.log.Warn("could not remove the temporary file or backup of an interrupted write", "path", rel, "err", err)
		return
	}
	r.log.Info("removed the temporary file or backup of an interrupted write", "path", rel)
}
