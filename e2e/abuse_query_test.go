package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHTTPQueryAbuse sends, with the weakest credential that may search
// (a read-only token for one folder), requests whose patterns alone once
// cost the server seconds and hundreds of megabytes, and checks that each
// is refused with its limit named, that the server's memory stays near
// where it was, and that it answers the next ordinary call correctly.
func TestHTTPQueryAbuse(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Journal/2025.md":  "# 2025\nNEEDLE in the journal\n",
		"Private/diary.md": "# Diary\nNEEDLE in private\n",
	})
	tok, hash := createToken(t, "reader")
	tokens := fmt.Sprintf(`[{"name": "reader", "hash": %q, "read_only": true, "allow": ["Journal"]}]`, hash)
	// The memory it measures is the production binary's.
	srv := startHTTP(t, v, withBinary(plainBinary(t)), withEnv("VAULTMCP_HTTP_TOKENS="+tokens))
	s := srv.session(t, tok)
	pid := srv.cmd.Process.Pid

	t.Run("huge grep query", func(t *testing.T) {
		// 3.5 MB fits under the default 4 MiB body limit: it reaches the
		// tool.
		huge := strings.Repeat("x", 3_500_000)
		for _, regex := range []bool{false, true} {
			before := rssPeakReset(t, pid)
			// Not s.fail: its messages would print the query.
			text, isErr := s.call(t, "grep", map[string]any{"query": huge, "is_regex": regex})
			if !isErr {
				t.Fatalf("is_regex=%v: a 3.5 MB query was searched: %.300q", regex, text)
			}
			msg := errorMessage(t, v, text, nil)
			if !strings.Contains(msg, "4096") || !strings.Contains(msg, "3500000") || !strings.Contains(msg, `"query"`) {
				t.Errorf("is_regex=%v: the error does not name the argument, its length and the limit: %.300q", regex, msg)
			}
			if grew := procStatusKB(t, pid, "VmHWM") - before; grew > 50<<10 {
				t.Errorf("is_regex=%v: the server's resident memory grew by %d MB (limit 50 MB)", regex, grew>>10)
			}
		}
		text := s.ok(t, "grep", map[string]any{"query": "needle"})
		if text != "Journal/2025.md:2: NEEDLE in the journal" {
			t.Errorf("grep after the refusals: %q", text)
		}
	})
}

// rssPeakReset resets the peak resident size of process pid (as
// /proc/PID/clear_refs allows its owner) and returns its resident size
// now, in KB. Where the reset is refused, the peak stays that of the whole
// run, which only makes the caller's check stricter.
func rssPeakReset(t *testing.T, pid int) int {
	t.Helper()
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	return procStatusKB(t, pid, "VmRSS")
}

// procStatusKB reads one "Name: N kB" field of /proc/PID/status.
func procStatusKB(t *testing.T, pid int, field string) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status for the server: %v", err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("/proc/%d/status: %q: %v", pid, line, err)
			}
			return n
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}
