package main

import (
	"strings"
	"testing"
	"time"
)

func TestBuildLog(t *testing.T) {
	const built = `time=2026-11-24T01:20:40.845Z level=INFO msg="index built" notes=10000 files=10400 took=1.94s` + "\n"
	tests := []struct {
		name   string
		writes []string
		want   time.Duration // 0: no build time found
	}{
		{"one write", []string{built}, 1940 * time.Millisecond},
		{"split mid-line", []string{built[:30], built[30:70], built[70:]}, 1940 * time.Millisecond},
		{"after other lines", []string{"level=INFO msg=\"serving over stdio\"\n", built}, 1940 * time.Millisecond},
		{"milliseconds", []string{`level=INFO msg="index built" notes=3 files=3 took=352ms` + "\n"}, 352 * time.Millisecond},
		{"the first build only", []string{built, strings.Replace(built, "1.94s", "5s", 1)}, 1940 * time.Millisecond},
		{"line not ended yet", []string{strings.TrimSuffix(built, "\n")}, 0},
		{"another message", []string{`level=INFO msg="search index built" notes=3 took=1s` + "\n"}, 0},
		{"no took", []string{`level=INFO msg="index built" notes=3` + "\n"}, 0},
		{"took twice in a line", []string{`level=INFO msg="index built" took=1s took=2s` + "\n"}, time.Second},
		{"took unreadable", []string{`level=INFO msg="index built" took=soon` + "\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuildLog()
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(w))
				}
			}
			select {
			case <-b.done:
				if tt.want == 0 {
					t.Fatalf("found a build time %v in a log without one", b.took)
				}
				if b.took != tt.want {
					t.Fatalf("took = %v, want %v", b.took, tt.want)
				}
			default:
				if tt.want != 0 {
					t.Fatalf("no build time found, want %v", tt.want)
				}
			}
		})
	}
}

// FuzzBuildLog: any log, written in any pieces, neither panics nor
// closes done twice; a time it finds is positive.
func FuzzBuildLog(f *testing.F) {
	f.Add(`level=INFO msg="index built" notes=3 files=3 took=352ms`+"\n", 7)
	f.Add("msg=\"index built\" took=-1s\nmsg=\"index built\" took=2s\n", 3)
	f.Add(`msg="index built" took=1s took=2s`+"\n", 100)
	f.Fuzz(func(t *testing.T, log string, piece int) {
		if piece <= 0 {
			piece = 1
		}
		b := newBuildLog()
		for len(log) > 0 {
			n := min(piece, len(log))
			b.Write([]byte(log[:n]))
			log = log[n:]
		}
		select {
		case <-b.done:
			if b.took <= 0 {
				t.Fatalf("took = %v", b.took)
			}
		default:
		}
	})
}
