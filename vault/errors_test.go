package vault

import (
	"strings"
	"syscall"
	"testing"
)

// An error about a path too long says which limit it broke, and does not
// repeat a path of kilobytes in full.
func TestTooLongError(t *testing.T) {
	longName := strings.Repeat("ü", 200) // 400 bytes
	tests := []struct {
		given string
		want  []string
	}{
		{"Notes/" + longName + ".md", []string{`Path is too long: the name "üüüüüüüüüüüüüüüüüüüü"…"üüüüüüüüüüüüüüüüüü.md" is 403 bytes, and a file or folder name may have at most 255`}},
		{strings.Repeat("folder/", 700) + "a.md", []string{`Path is too long: "folder/folder/folder/folder/folder/folde"…"/folder/folder/folder/folder/folder/a.md" is 4904 bytes, more than the file system takes`}},
		{"short/" + strings.Repeat("x", 256), []string{"the name", "is 256 bytes"}},
	}
	for _, tt := range tests {
		msg := osError(tt.given, syscall.ENAMETOOLONG).Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%.40s…: %q, want it to hold %q", tt.given, msg, w)
			}
		}
		if len(msg) > 300 {
			t.Errorf("%.40s…: the error is %d bytes", tt.given, len(msg))
		}
	}
}
