package index

import (
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
)

// A build folds its notes into the vault-wide maps in parallel. Filled
// one link at a time under the lock, as a refresh fills them
// (addContributions), backlinks and link buckets were a third of a build's
// wall time on two cores, with the other core idle: every link is a
// lookup in a map of ten thousand targets and an append that grows a
// slice, and the collector, running meanwhile, makes that one goroutine
// pay for its allocations. Instead:
//
//  1. workers, each taking notes a batch at a time, resolve each note's
//     links and hand every link's share to the shard its key hashes to,
//     counting broken links, unreadable frontmatter and tags on their own;
//  2. each shard, on its own goroutine, groups its links by key, counts
//     each key's distinct sources, and cuts every group's slice from one
//     array of the exact size (no growing, no compacting afterwards);
//  3. the shards' groups go into the vault-wide maps, which by then is a
//     single insert per key.
//
// The result is the state addContributions would reach note by note
// (TestParallelFoldMatchesSequential): only the order in which a set lists
// its sources may differ, and that order was never defined.

// share is one link's share in a vault-wide map: its key (the resolved
// target for backlinks, the link bucket for linkers) and the note (its
// place in the build's list) and link it comes from. The note is a number,
// not a pointer: a build makes two shares per link, and the collector,
// which runs several times during a build, scans every pointer of the
// ones made so far.
type share struct {
	key  string
	src  int32
	link int32
}

// shardShares are the shares one worker hands one shard.
type shardShares struct {
	backlinks, linkers []share
}

// foldWorker is what one worker of step 1 gathers.
type foldWorker struct {
	shards []shardShares // by shard
	tags   map[string]*tagStat
	broken int
	badFM  int
	seen   map[string]bool // tag keys of the current note, when it has many
}

// shardGroups is what a shard of step 2 produces.
type shardGroups struct {
	backlinkKeys []string
	backlinks    []sourceSet // backlinks[i] holds the sources of backlinkKeys[i]
	linkers      []bucket
}

// foldBatch is how many notes a worker takes at a time: small enough to
// even out workers slowed by a loaded machine, large enough that taking
// one is no cost.
const foldBatch = 64

// foldIn adds the contributions of notes (nil entries skipped) to the
// vault-wide maps, which hold no links or tags yet: the whole of a build's
// link and tag work, with the name table complete. Caller holds mu.
func (ix *Index) foldIn(notes []*note) {
	workers := runtime.GOMAXPROCS(0)
	// More shards than workers, so that a worker held up by a busy
	// machine holds up one small shard, not half the work.
	nShards := 4 * workers
	seed := maphash.MakeSeed()
	shardOf := func(k string) int { return int(maphash.String(seed, k) % uint64(nShards)) }

	// Step 1. Each worker's share of each shard is sized for an even
	// spread of the links, with room to spare, so that it rarely grows.
	links := 0
	for _, n := range notes {
		if n != nil {
			links += len(n.doc.links)
		}
	}
	room := links/(workers*nShards) + links/(4*workers*nShards) + 16
	ws := make([]foldWorker, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range ws {
		fw := &ws[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic here is a bug of this code, not of a note's text
			// (resolveNote catches those): it leaves the worker's notes
			// out of the tables, and is logged rather than ending the
			// server, as elsewhere in a build.
			defer recoverLogged(ix.log, "index build's link fold")
			fw.shards = make([]shardShares, nShards)
			for s := range fw.shards {
				fw.shards[s] = shardShares{backlinks: make([]share, 0, room), linkers: make([]share, 0, room)}
				// Large, new and filled at once: see prefault.
				prefaultAll(fw.shards[s].backlinks)
				prefaultAll(fw.shards[s].linkers)
			}
			fw.tags = map[string]*tagStat{}
			for {
				start := int(next.Add(foldBatch)) - foldBatch
				if start >= len(notes) {
					return
				}
				for i := start; i < min(start+foldBatch, len(notes)); i++ {
					if notes[i] != nil {
						ix.foldNote(fw, notes, int32(i), shardOf)
					}
				}
			}
		}()
	}
	wg.Wait()

	// Step 2. Most link targets are notes, and so are most buckets' names:
	// a shard can expect about its share of the notes as keys.
	keysPerShard := len(notes)/nShards + len(notes)/(4*nShards) + 16
	groups := make([]shardGroups, nShards)
	var nextShard atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recoverLogged(ix.log, "index build's link tables")
			for {
				s := int(nextShard.Add(1)) - 1
				if s >= nShards {
					return
				}
				groups[s] = groupShard(ws, notes, s, keysPerShard)
			}
		}()
	}
	wg.Wait()

	// Step 3.
	for s := range groups {
		g := &groups[s]
		for i, k := range g.backlinkKeys {
			ix.backlinks[k] = &g.backlinks[i]
		}
		for i := range g.linkers {
			ix.linkers[g.linkers[i].key] = &g.linkers[i]
		}
	}
	for w := range ws {
		fw := &ws[w]
		ix.broken += fw.broken
		ix.badFM += fw.badFM
		for k, st := range fw.tags {
			into := ix.tags[k]
			if into == nil {
				ix.tags[k] = st
				continue
			}
			into.count += st.count
			into.notes += st.notes
			for sp, c := range st.spellings {
				into.spellings[sp] += c
			}
		}
	}
	for _, n := range notes {
		if n != nil {
			ix.gen++
			ix.addConcept(n)
		}
	}
}

// foldNote is step 1 for notes[at]: resolve its links (a panic leaves
// the note without links, as a panic in its parse does) and share them
// out.
func (ix *Index) foldNote(fw *foldWorker, notes []*note, at int32, shardOf func(string) int) {
	n := notes[at]
	if !ix.resolveNote(n) {
		n.doc.links, n.out = nil, nil
	}
	for i, l := range n.doc.links {
		if t := n.out[i]; t != "" && t != n.rel {
			sh := &fw.shards[shardOf(t)]
			sh.backlinks = append(sh.backlinks, share{key: t, src: at, link: int32(i)})
		}
		if l.target != "" {
			sh := &fw.shards[shardOf(l.bucket)]
			sh.linkers = append(sh.linkers, share{key: l.bucket, src: at, link: int32(i)})
		}
	}
	if n.brokenCount() > 0 {
		fw.broken++
	}
	if n.badFrontmatter {
		fw.badFM++
	}
	// A note counts once for each tag it carries, however often: most
	// notes carry a few, checked by looking back; a note with many gets a
	// set.
	const fewTags = 16
	many := len(n.doc.tags) > fewTags
	if many {
		clear(fw.seen)
		if fw.seen == nil {
			fw.seen = map[string]bool{}
		}
	}
	for j, t := range n.doc.tags {
		k := n.doc.tagKeys[j]
		st := fw.tags[k]
		if st == nil {
			st = &tagStat{spellings: map[string]int{}}
			fw.tags[k] = st
		}
		st.count++
		st.spellings[t]++
		var first bool
		if many {
			first = !fw.seen[k]
			fw.seen[k] = true
		} else {
			first = true
			for _, prev := range n.doc.tagKeys[:j] {
				if prev == k {
					first = false
					break
				}
			}
		}
		if first {
			st.notes++
		}
	}
}

// resolveNote sets n.out, and reports false if resolving panicked (a bug
// a link's text triggers), which it logs.
func (ix *Index) resolveNote(n *note) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ix.log.Error("resolving a note's links panicked; it is indexed without links", "path", n.rel, "panic", p)
			ok = false
		}
	}()
	n.resolve(&ix.names)
	return true
}

// groupShard is step 2 for shard s, which expects about expect keys of
// each kind; the shares' sources are notes' places in notes.
func groupShard(ws []foldWorker, notes []*note, s, expect int) shardGroups {
	var g shardGroups
	var parts [][]share
	for w := range ws {
		parts = append(parts, ws[w].shards[s].backlinks)
	}
	var sets []sourceSet
	g.backlinkKeys, sets = group(parts, notes, expect, nil)
	g.backlinks = sets

	parts = parts[:0]
	for w := range ws {
		parts = append(parts, ws[w].shards[s].linkers)
	}
	bucketKeys, lsets := group(parts, notes, expect, func(sh share, k string) {
		// One copy of each bucket's key: most links' keys are folded
		// copies of their targets, one per link.
		notes[sh.src].doc.links[sh.link].bucket = k
	})
	g.linkers = make([]bucket, len(bucketKeys))
	for i, k := range bucketKeys {
		g.linkers[i] = bucket{key: k, sourceSet: lsets[i]}
	}
	return g
}

// group gathers shares by key: the distinct keys in the order first met,
// and for each a set of its sources counting their shares. Each note's
// shares are consecutive within a part (a worker handles a note whole),
// so a source is counted by comparing it with the last one met for that
// key. Sets of few sources share one array cut to their exact sizes.
// each, if not nil, is called with every share and its key's first copy.
// expect is about how many keys there will be.
func group(parts [][]share, notes []*note, expect int, each func(sh share, k string)) ([]string, []sourceSet) {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	type slot struct {
		last    int32 // the source last met, plus one (0: none yet)
		sources int
	}
	expect = min(expect, total)
	index := make(map[string]int32, expect)
	keys := make([]string, 0, expect)
	slots := make([]slot, 0, expect)
	at := make([]int32, 0, total) // the slot of each share, in order
	prefaultAll(at)
	for _, p := range parts {
		for _, sh := range p {
			i, ok := index[sh.key]
			if !ok {
				i = int32(len(keys))
				index[sh.key] = i
				keys = append(keys, sh.key)
				slots = append(slots, slot{})
			}
			if sl := &slots[i]; sl.last != sh.src+1 {
				sl.last = sh.src + 1
				sl.sources++
			}
			at = append(at, i)
		}
	}
	few := 0
	for _, sl := range slots {
		if sl.sources <= maxFewSources {
			few += sl.sources
		}
	}
	backing := make([]sourceCount, few)
	prefaultAll(backing)
	sets := make([]sourceSet, len(keys))
	off := 0
	for i, sl := range slots {
		if sl.sources > maxFewSources {
			sets[i].many = make(map[string]int32, sl.sources)
			continue
		}
		sets[i].few = backing[off : off : off+sl.sources]
		off += sl.sources
	}
	j := 0
	for _, p := range parts {
		for _, sh := range p {
			i := at[j]
			j++
			if each != nil {
				each(sh, keys[i])
			}
			s := &sets[i]
			src := notes[sh.src].rel
			if s.many != nil {
				s.many[src]++
				continue
			}
			if last := len(s.few) - 1; last >= 0 && s.few[last].src == src {
				s.few[last].n++
				continue
			}
			s.few = append(s.few, sourceCount{src: src, n: 1})
		}
	}
	return keys, sets
}
