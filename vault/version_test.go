package vault

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestVersionIsGitBlobID(t *testing.T) {
	// What `git hash-object` prints for the same bytes.
	for data, want := range map[string]string{
		"":        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"hello\n": "ce013625030ba8dba906f756967f9e9ca394464a",
	} {
		if got := Version([]byte(data)); got != want {
			t.Errorf("Version(%q) = %s, want %s", data, got, want)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{Absent, true},
		{"ce013625030ba8dba906f756967f9e9ca394464a", true},
		{"CE013625030BA8DBA906F756967F9E9CA394464A", true},
		{"ce01362", false},
		{"zz013625030ba8dba906f756967f9e9ca394464a", false},
		{"missing", false},
	} {
		if err := CheckVersion("if_version", tc.in); (err == nil) != tc.ok {
			t.Errorf("CheckVersion(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

// TestConditionalChanges runs every writing operation with a matching,
// a stale and an "absent" expectation: a stale one writes and records
// nothing and names the current version.
func TestConditionalChanges(t *testing.T) {
	const text = "# A\n\nbody\n"
	cur := Version([]byte(text))
	stale := Version([]byte("older\n"))
	ops := map[string]func(ctx context.Context, v *Vault) error{
		"write": func(ctx context.Context, v *Vault) error {
			_, err := v.WriteFile(ctx, "a.md", []byte("new\n"))
			return err
		},
		"write same size": func(ctx context.Context, v *Vault) error {
			_, err := v.WriteFile(ctx, "a.md", []byte("# B\n\nbody\n"))
			return err
		},
		"append": func(ctx context.Context, v *Vault) error {
			_, err := v.WriteFileMode(ctx, "a.md", []byte("more"), Append)
			return err
		},
		"edit": func(ctx context.Context, v *Vault) error {
			_, err := v.EditFile(ctx, "a.md", "body", "text")
			return err
		},
		"modify": func(ctx context.Context, v *Vault) error {
			_, err := v.ModifyFile(ctx, "a.md", func(rel string) string { return "patch " + rel },
				func(src []byte) ([]byte, error) { return append(src, 'x'), nil })
			return err
		},
		"delete": func(ctx context.Context, v *Vault) error {
			_, err := v.DeleteFile(ctx, "a.md")
			return err
		},
		"rename": func(ctx context.Context, v *Vault) error {
			_, err := v.RenameFile(ctx, "a.md", "b.md", nil)
			return err
		},
	}
	for name, op := range ops {
		for _, tc := range []struct {
			expect, current string
			ok              bool
		}{
			{cur, cur, true},
			{stale, cur, false},
			{Absent, cur, false},
		} {
			t.Run(name+"/"+tc.expect[:6], func(t *testing.T) {
				v, root := newTestVault(t, Options{})
				rec := &summaries{}
				v.SetRecorder(rec)
				mkfile(t, root, "a.md", text)
				before := snapshot(t, root)
				err := op(WithExpectedVersion(context.Background(), tc.expect), v)
				if tc.ok {
					if err != nil || len(rec.got) != 1 {
						t.Fatalf("err %v, recorded %q; want one change", err, rec.got)
					}
					return
				}
				var ce *VersionConflictError
				if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
					t.Fatalf("err = %v, want a *VersionConflictError", err)
				}
				if ce.Current != tc.current || ce.Expected != tc.expect || ce.Path != "a.md" || string(ce.Data) != text {
					t.Errorf("conflict %+v, want current %s", ce, tc.current)
				}
				if len(rec.got) != 0 {
					t.Errorf("recorded %q after a conflict", rec.got)
				}
				sameSnapshot(t, before, snapshot(t, root))
			})
		}
	}
}

func TestConditionalMissingFile(t *testing.T) {
	stale := Version([]byte("older\n"))
	v, root := newTestVault(t, Options{})
	v.SetRecorder(&summaries{})
	ctx := WithExpectedVersion(context.Background(), stale)
	for name, op := range map[string]func() error{
		"write":  func() error { _, err := v.WriteFile(ctx, "gone.md", []byte("x")); return err },
		"edit":   func() error { _, err := v.EditFile(ctx, "gone.md", "a", "b"); return err },
		"delete": func() error { _, err := v.DeleteFile(ctx, "gone.md"); return err },
		"rename": func() error { _, err := v.RenameFile(ctx, "gone.md", "b.md", nil); return err },
	} {
		var ce *VersionConflictError
		if err := op(); !errors.As(err, &ce) || ce.Current != Absent || ce.Path != "gone.md" {
			t.Errorf("%s: err = %v, want a conflict naming the file absent", name, err)
		}
	}
	if exists(root, "gone.md") {
		t.Error("a conditional write created gone.md")
	}
	// "absent" creates a missing file, once.
	ctx = WithExpectedVersion(context.Background(), Absent)
	if _, err := v.WriteFile(ctx, "new.md", []byte("x")); err != nil {
		t.Fatalf("create if absent: %v", err)
	}
	if _, err := v.WriteFile(ctx, "new.md", []byte("y")); !errors.Is(err, ErrConflict) {
		t.Fatalf("second create if absent: %v, want a conflict", err)
	}
	if got := readRel(t, root, "new.md"); got != "x" {
		t.Errorf("new.md = %q, want x", got)
	}
}

// TestConditionalWritesRace: writers racing with one expected version
// (or "absent") on one file: exactly one wins, since the check and the
// write happen under the one write lock.
func TestConditionalWritesRace(t *testing.T) {
	for _, expect := range []string{Absent, Version([]byte("base\n"))} {
		v, root := newTestVault(t, Options{})
		v.SetRecorder(&summaries{})
		if expect != Absent {
			mkfile(t, root, "a.md", "base\n")
		}
		ctx := WithExpectedVersion(context.Background(), expect)
		const writers = 8
		errs := make(chan error, writers)
		for i := range writers {
			go func() {
				_, err := v.WriteFile(ctx, "a.md", []byte(fmt.Sprintf("writer %d\n", i)))
				errs <- err
			}()
		}
		won := 0
		for range writers {
			switch err := <-errs; {
			case err == nil:
				won++
			case !errors.Is(err, ErrConflict):
				t.Errorf("expect %s: %v", expect, err)
			}
		}
		if won != 1 {
			t.Errorf("expect %s: %d writers won, want exactly 1", expect, won)
		}
	}
}
