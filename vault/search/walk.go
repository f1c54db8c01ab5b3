package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// fileRef is one regular file found by a walk.
type fileRef struct {
	rel string // vault-relative
	abs string
	d   fs.DirEntry
}

// info returns the file's metadata without following a symbolic link.
func (f fileRef) info() (fs.FileInfo, error) {
	if f.d != nil {
		return f.d.Info()
	}
	return os.Lstat(f.abs)
}

// walkBatch is how many files of one folder travel to the workers
// together; batching keeps channel overhead off the per-file path.
const walkBatch = 64

// walkFiles lists dir (a resolved folder) in parallel, several folders at
// once, and hands every regular file to onFile, called from `workers`
// goroutines at once, in no particular order. onDir, when set, is called
// for every folder below dir. Like vault.Walk it leaves out hidden and
// skipped folders and the vault's temporary files, and it never follows
// a symbolic link (a link is neither listed nor read), so a scan cannot
// leave the vault. Unreadable folders below dir, special files (FIFOs,
// sockets, devices) and whatever ctx's access scope hides are passed
// over. A panic in onFile or onDir is caught by g and ends the walk with
// its error.
func walkFiles(ctx context.Context, g *guard, v *vault.Vault, dir vault.Path, workers int,
	onDir func(rel string), onFile func(f fileRef)) error {
	if workers < 1 {
		workers = 1
	}
	root, err := os.ReadDir(dir.Abs)
	if err != nil {
		return err
	}
	scope := access.From(ctx)
	batches := make(chan []fileRef, workers*4)
	var files sync.WaitGroup
	for i := 0; i < workers; i++ {
		files.Add(1)
		go func() {
			defer files.Done()
			for batch := range batches {
				func() {
					defer g.catch()
					for _, f := range batch {
						if ctx.Err() != nil {
							break
						}
						onFile(f)
					}
				}()
			}
		}()
	}

	// Folder listings run beside the file workers; a semaphore keeps the
	// number of open directories bounded.
	var dirs sync.WaitGroup
	sem := make(chan struct{}, workers*2)
	var list func(abs, rel string, entries []fs.DirEntry)
	list = func(abs, rel string, entries []fs.DirEntry) {
		batch := make([]fileRef, 0, min(len(entries), walkBatch))
		for _, e := range entries {
			name := e.Name()
			childAbs := filepath.Join(abs, name)
			childRel := name
			if rel != "" {
				childRel = rel + "/" + name
			}
			switch t := e.Type(); {
			case t.IsDir():
				if v.Skipped(name) || !scope.Navigable(childRel) {
					continue
				}
				if onDir != nil {
					onDir(childRel)
				}
				dirs.Add(1)
				go func() {
					defer dirs.Done()
					defer g.catch()
					if ctx.Err() != nil {
						return
					}
					sem <- struct{}{}
					sub, err := os.ReadDir(childAbs)
					<-sem
					if err != nil {
						return
					}
					list(childAbs, childRel, sub)
				}()
			case t.IsRegular():
				if v.Skipped(name) || !scope.Visible(childRel) { // dotfiles, our temporary files
					continue
				}
				batch = append(batch, fileRef{rel: childRel, abs: childAbs, d: e})
				if len(batch) == walkBatch {
					batches <- batch
					batch = make([]fileRef, 0, walkBatch)
				}
			}
		}
		if len(batch) > 0 {
			batches <- batch
		}
	}
	func() {
		defer g.catch()
		list(dir.Abs, dir.Rel, root)
	}()
	dirs.Wait()
	close(batches)
	files.Wait()
	if err := g.failed(); err != nil {
		return err
	}
	return ctx.Err()
}
