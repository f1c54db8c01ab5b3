package tools_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// historyWriter writes a git history as a git fast-import stream: a
// history of hundreds of commits over thousands of notes is made in
// about a second, where one `git commit` per change would take minutes.
// The commits' times are fixed, so their hashes are too.
type historyWriter struct {
	stream  bytes.Buffer
	when    time.Time
	commits int
	// last is the text each path was last written with, unless that was
	// what the worktree holds already (fromDisk); gone are the paths
	// deleted (or moved away from) and not written since.
	last map[string]string
	gone map[string]bool
}

// fileOp is one file a commit changes: content written at path, or path
// deleted, or (with from) the file at from moved to path with content.
type fileOp struct {
	path, content, from string
	delete              bool
	fromDisk            bool // content is what the worktree holds at path
}

func writeOp(path, content string) fileOp    { return fileOp{path: path, content: content} }
func diskOp(path, content string) fileOp     { return fileOp{path: path, content: content, fromDisk: true} }
func deleteOp(path string) fileOp            { return fileOp{path: path, delete: true} }
func moveOp(from, to, content string) fileOp { return fileOp{path: to, content: content, from: from} }

func newHistoryWriter(start time.Time) *historyWriter {
	return &historyWriter{when: start, last: map[string]string{}, gone: map[string]bool{}}
}

// commit adds a commit by author ("Name <email>"), a minute after the
// one before.
func (w *historyWriter) commit(author, msg string, ops ...fileOp) {
	w.commits++
	w.when = w.when.Add(time.Minute)
	stamp := fmt.Sprintf("%s %d %s", author, w.when.Unix(), w.when.Format("-0700"))
	fmt.Fprintf(&w.stream, "commit refs/heads/main\nauthor %s\ncommitter %s\ndata %d\n%s\n", stamp, stamp, len(msg), msg)
	for _, op := range ops {
		if op.from != "" {
			fmt.Fprintf(&w.stream, "D %s\n", strconv.Quote(op.from))
			w.gone[op.from] = true
			delete(w.last, op.from)
		}
		if op.delete {
			fmt.Fprintf(&w.stream, "D %s\n", strconv.Quote(op.path))
			w.gone[op.path] = true
			delete(w.last, op.path)
			continue
		}
		fmt.Fprintf(&w.stream, "M 100644 inline %s\ndata %d\n%s\n", strconv.Quote(op.path), len(op.content), op.content)
		delete(w.gone, op.path)
		if op.fromDisk {
			delete(w.last, op.path)
		} else {
			w.last[op.path] = op.content
		}
	}
	w.stream.WriteString("\n")
}

// write makes dir a repository holding the history on branch main, its
// index the last commit's. With checkout the worktree is made the last
// commit's too (only the files the history wrote other than from disk
// are written); without it the files in dir are left alone: they must be
// the last commit's already.
func (w *historyWriter) write(t testing.TB, dir string, checkout bool) {
	t.Helper()
	gitIn(t, dir, nil, "init", "-q", "-b", "main")
	// No detached `git gc --auto` may outlive the test and race the
	// removal of its folder.
	gitIn(t, dir, nil, "config", "gc.auto", "0")
	// Compressing tens of megabytes of notes and random attachments
	// would take seconds of the test's time.
	gitIn(t, dir, &w.stream, "-c", "core.compression=0", "fast-import", "--quiet")
	if checkout {
		for p, content := range w.last {
			abs := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for p := range w.gone {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	gitIn(t, dir, nil, "reset", "-q", "main")
}

// gitOut runs git in dir and returns its output, trimmed.
func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitIn(t, dir, nil, args...)
}

// gitIn runs git in dir, away from the user's and the system's git
// configuration, reading stdin (when not nil), and returns its standard
// output, trimmed; a failure ends the test with what git said.
func gitIn(t testing.TB, dir string, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}
