package watch

import (
	"context"
	"io/fs"
	"time"
)

// stamp is what polling compares to notice a change.
type stamp struct {
	size    int64
	modTime time.Time
}

func (w *Watcher) startPolling(ctx context.Context) {
	// The first scan is the baseline: take it before Start returns, so
	// every change made after Start is seen.
	prev := w.scan()
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(w.opts.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				cur := w.scan()
				if changed := diff(prev, cur); len(changed) > 0 {
					w.deliver(changed)
				}
				prev = cur
			}
		}
	}()
}

// scan stamps every file in the vault.
func (w *Watcher) scan() map[string]stamp {
	out := map[string]stamp{}
	root, err := w.v.Resolve("")
	if err != nil {
		return out
	}
	_ = w.v.Walk(root, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[rel] = stamp{size: fi.Size(), modTime: fi.ModTime()}
		}
		return nil
	})
	return out
}

// diff lists the paths added, changed or removed between two scans.
func diff(prev, cur map[string]stamp) []string {
	var out []string
	for rel, s := range cur {
		if p, ok := prev[rel]; !ok || p.size != s.size || !p.modTime.Equal(s.modTime) {
			out = append(out, rel)
		}
	}
	for rel := range prev {
		if _, ok := cur[rel]; !ok {
			out = append(out, rel)
		}
	}
	return out
}
