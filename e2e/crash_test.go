package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashRecovery streams writes, edits, renames and deletes from four
// concurrent clients into the server while it also pulls (a laptop moves
// the remote on between rounds) and pushes, kills it with SIGKILL at a
// random moment, and starts it again, VAULTMCP_CRASH_KILLS times (50 by
// default; `make crash` runs 500). After every kill, before the restart:
// each client's files on disk and in HEAD are exactly the state before or
// after its one request in flight, so every acknowledged change is on
// disk and in a commit and nothing is half-written. Every restart must
// come up and serve writes with no help (stale locks, temporary files,
// uncommitted writes are the server's to recover). At the end the
// repository passes git fsck --strict, git status is clean, HEAD matches
// the disk, no temporary file was ever committed, and the remote has it
// all. VAULTMCP_CRASH_SEED replays a run.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	kills := 50
	if s := os.Getenv("VAULTMCP_CRASH_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("VAULTMCP_CRASH_KILLS=%q", s)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("VAULTMCP_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("VAULTMCP_CRASH_SEED=%q", s)
		}
	}
	t.Logf("seed %d (VAULTMCP_CRASH_SEED replays it), %d kills", seed, kills)
	rng := rand.New(rand.NewPCG(seed, 1))

	v, remote := newRemoteVault(t, map[string]string{"README.md": "crash test\n"})
	laptop := filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)
	env := []string{"VAULTMCP_GIT_SYNC_INTERVAL=100ms"}

	const lanes = 4
	state := make([]*laneModel, lanes)
	for i := range state {
		state[i] = &laneModel{files: laneState{}, loose: map[string][]*string{}}
	}
	written := map[string]bool{} // every content ever sent, to tell a torn file
	var stats crashStats
	for round := 0; round < kills; round++ {
		if round%3 == 0 {
			// The laptop moves the remote on, so the restarted server
			// pulls (fast-forward or replay) while it is being written to.
			writeAt(t, filepath.Join(laptop, "laptop", fmt.Sprintf("round-%d.md", round)), "from the laptop\n")
			gitCLI(t, laptop, "pull", "-q", "--rebase", "origin", "main")
			laptopPush(t, laptop, fmt.Sprintf("laptop round %d", round))
		}
		p := startCrashServer(t, v, env)
		stats.starts++
		stats.recover(p.log())
		// The kill lands after a random number of acknowledged changes
		// plus a random few milliseconds: inside the stream of writes,
		// wherever a commit, a pull or a push happens to be.
		target := rng.IntN(24)
		extra := time.Duration(rng.IntN(40)) * time.Millisecond
		ackCh := make(chan struct{}, 1024)
		seeds := make([]uint64, lanes)
		for i := range seeds {
			seeds[i] = rng.Uint64()
		}
		var wg sync.WaitGroup
		pending := make([]*laneOp, lanes)
		acked := make([]int, lanes)
		var mu sync.Mutex
		for l := 0; l < lanes; l++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lr := rand.New(rand.NewPCG(seeds[l], uint64(round)))
				seq := 0
				for {
					op := nextOp(lr, l, round, &seq, state[l].files)
					mu.Lock()
					written[op.content] = true
					pending[l] = op
					mu.Unlock()
					text, isErr, err := p.call(op.tool, op.args)
					if err != nil {
						return // killed: op's outcome is unknown
					}
					if isErr {
						t.Errorf("round %d lane %d: %s %v failed: %s\nserver log:\n%s", round, l, op.tool, op.args, text, p.log())
						p.kill()
						return
					}
					mu.Lock()
					state[l].ack(op)
					pending[l] = nil
					acked[l]++
					mu.Unlock()
					ackCh <- struct{}{}
				}
			}()
		}
		guard := time.After(callTimeout)
	wait:
		for n := 0; n < target; n++ {
			select {
			case <-ackCh:
			case <-guard:
				break wait
			}
		}
		time.Sleep(extra)
		p.kill()
		wg.Wait()
		if t.Failed() {
			return
		}
		for l := 0; l < lanes; l++ {
			stats.acked += acked[l]
			if pending[l] != nil {
				stats.inFlight++
			}
			checkLane(t, v, round, l, state[l], pending[l], written)
		}
		stats.leftovers += countTemps(v.Root)
		if t.Failed() {
			t.Fatalf("round %d: a kill broke the vault (seed %d)", round, seed)
		}
	}

	// A last, orderly run: everything is committed, pushed, and clean.
	p := startCrashServer(t, v, env)
	stats.recover(p.log())
	text, isErr, err := p.call("write_file", map[string]any{"path": "final.md", "content": "done\n"})
	if err != nil || isErr {
		t.Fatalf("write after the last restart: %v %s\n%s", err, text, p.log())
	}
	for deadline := time.Now().Add(2 * time.Minute); gitCLI(t, remote, "rev-parse", "main") != v.gitRun(t, "rev-parse", "HEAD"); {
		if time.Now().After(deadline) {
			if dir := os.Getenv("VAULTMCP_CRASH_KEEP"); dir != "" {
				exec.Command("cp", "-a", v.base, dir).Run()
			}
			t.Fatalf("the last run never pushed everything\nserver log:\n%s", p.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.stop(t)

	if out, err := gitTry(v.Root, "fsck", "--full", "--strict"); err != nil {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
	if st := v.gitStatus(t); st != "" {
		t.Errorf("git status after the last run:\n%s", st)
	}
	if n := countTemps(v.Root); n != 0 {
		t.Errorf("%d temporary files left after the last run", n)
	}
	// The unflushed-index marks of the killed servers were settled at the
	// restarts, and the orderly stop flushed the index and dropped its own.
	if marks, _ := filepath.Glob(filepath.Join(v.Root, ".git", "vaultmcp-*-index.unflushed")); len(marks) != 0 {
		t.Errorf("unflushed-index marks left after the last run: %q\nlast run's log:\n%s", marks, p.log())
	}
	if names := v.gitRun(t, "log", "--all", "--format=", "--name-only"); strings.Contains(names, ".vaultmcp-") {
		t.Errorf("a temporary file was committed")
	}
	for l := 0; l < lanes; l++ {
		if got := laneOnDisk(t, v, l); !maps.Equal(got, state[l].files) {
			t.Errorf("lane %d on disk %v, want %v", l, keys(got), keys(state[l].files))
		}
		if got := laneInHead(t, v, l); !sameHashes(got, state[l].files) {
			t.Errorf("lane %d in HEAD differs from the disk", l)
		}
	}
	for round := 0; round < kills; round += 3 {
		if !v.exists(fmt.Sprintf("laptop/round-%d.md", round)) {
			t.Errorf("the laptop's round-%d note never reached the vault", round)
		}
	}
	t.Logf("%d kills, %d starts (each came up and served on its own), %d changes acknowledged, %d requests in flight at a kill; "+
		"at the restarts: %d stale lock files removed, %d temporary files removed, %d outside-change commits; %d temporary files seen after kills",
		kills, stats.starts+1, stats.acked, stats.inFlight, stats.locks, stats.temps, stats.external, stats.leftovers)
}

// crashStats counts what the crash test saw.
type crashStats struct {
	starts, acked, inFlight, leftovers int
	locks, temps, external             int
}

// recover counts the recoveries a start logged.
func (s *crashStats) recover(log string) {
	s.locks += strings.Count(log, "removed a stale lock file")
	s.temps += strings.Count(log, "removed the temporary file")
	s.external += strings.Count(log, "committed external changes")
}

// laneState is one client's files: vault path -> content.
type laneState map[string]string

// laneModel is what the test knows of one client's files: their content
// on disk, and for the paths a request killed in flight changed on disk
// without its commit, what HEAD may still hold instead (nil: no file)
// until a commit (a later write of the path, or the sync's outside-change
// commit at the next start) settles it.
type laneModel struct {
	files laneState
	loose map[string][]*string
}

// ack applies an acknowledged change: it was committed, paths and all.
func (m *laneModel) ack(op *laneOp) {
	m.files = op.post
	for _, p := range op.touched {
		delete(m.loose, p)
	}
}

// laneOp is one request and the lane's state once it is applied.
type laneOp struct {
	tool    string
	args    map[string]any
	content string   // the content it writes ("" for a rename or delete)
	touched []string // the paths it changes
	post    laneState
}

// nextOp picks the lane's next change: write a new note, edit one,
// rename one, or delete one. Contents are unique and several kilobytes
// long, so a torn write cannot pass for a whole one.
func nextOp(r *rand.Rand, lane, round int, seq *int, cur laneState) *laneOp {
	*seq++
	id := fmt.Sprintf("lane %d round %d op %d", lane, round, *seq)
	content := id + "\n" + strings.Repeat("the quick brown fox jumps over the lazy dog\n", 50+r.IntN(300))
	post := maps.Clone(cur)
	names := slices.Sorted(maps.Keys(cur))
	pick := func() string { return names[r.IntN(len(names))] }
	switch k := r.IntN(10); {
	case len(cur) < 2 || (k < 3 && len(cur) < 6):
		p := fmt.Sprintf("lane%d/n-%d-%d.md", lane, round, *seq)
		post[p] = content
		return &laneOp{tool: "write_file", args: map[string]any{"path": p, "content": content}, content: content, touched: []string{p}, post: post}
	case k < 7:
		p := pick()
		old, _, _ := strings.Cut(cur[p], "\n")
		post[p] = strings.Replace(cur[p], old, id, 1)
		return &laneOp{tool: "edit_file", args: map[string]any{"path": p, "old_text": old, "new_text": id}, content: post[p], touched: []string{p}, post: post}
	case k < 9:
		p := pick()
		to := fmt.Sprintf("lane%d/sub%d/r-%d-%d.md", lane, r.IntN(3), round, *seq)
		post[to] = cur[p]
		delete(post, p)
		return &laneOp{tool: "rename_file", args: map[string]any{"old_path": p, "new_path": to}, touched: []string{p, to}, post: post}
	default:
		p := pick()
		delete(post, p)
		return &laneOp{tool: "delete_file", args: map[string]any{"path": p}, touched: []string{p}, post: post}
	}
}

// checkLane checks a lane after a kill and brings its model up to date.
// On disk the lane is exactly the state before its request in flight or
// the state after it: nothing half-done, nothing torn. In HEAD every path
// holds what is on disk, except the paths changed on disk by requests a
// kill cut short, which may still hold what they held before: every
// acknowledged change is committed.
func checkLane(t *testing.T, v *testVault, round, lane int, m *laneModel, op *laneOp, written map[string]bool) {
	t.Helper()
	disk := laneOnDisk(t, v, lane)
	head := laneInHead(t, v, lane)
	pre := m.files
	for p, c := range disk {
		if !written[c] && pre[p] != c {
			t.Errorf("round %d: %s is half-written (%d bytes)", round, p, len(c))
		}
	}
	switch {
	case maps.Equal(disk, pre):
	case op != nil && maps.Equal(disk, op.post):
		for _, p := range op.touched {
			var was *string
			if c, ok := pre[p]; ok {
				was = &c
			}
			m.loose[p] = append(m.loose[p], was)
		}
	default:
		t.Errorf("round %d lane %d: on disk %v; want the acknowledged state %v or, with the request in flight (%s), %v",
			round, lane, keys(disk), keys(pre), opName(op), keys(postOf(op)))
		return
	}
	m.files = disk
	paths := map[string]bool{}
	for _, set := range []map[string]string{disk, head} {
		for p := range set {
			paths[p] = true
		}
	}
	for p := range m.loose {
		paths[p] = true
	}
	for p := range paths {
		c, onDisk := disk[p]
		h, inHead := head[p]
		if inHead == onDisk && (!inHead || h == blobHash(c)) {
			delete(m.loose, p) // committed as it is on disk
			continue
		}
		ok := false
		for _, was := range m.loose[p] {
			if (was == nil && !inHead) || (was != nil && inHead && h == blobHash(*was)) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("round %d lane %d: %s in HEAD (%v) is neither what is on disk (%v) nor what a request cut short left; an acknowledged change is not committed",
				round, lane, p, inHead, onDisk)
		}
	}
}

func opName(op *laneOp) string {
	if op == nil {
		return "none"
	}
	return fmt.Sprintf("%s %v", op.tool, op.args["path"])
}

func postOf(op *laneOp) laneState {
	if op == nil {
		return nil
	}
	return op.post
}

func keys(s map[string]string) []string { return slices.Sorted(maps.Keys(s)) }

// laneOnDisk reads a lane's notes (temporary files left out).
func laneOnDisk(t *testing.T, v *testVault, lane int) laneState {
	t.Helper()
	out := laneState{}
	root := v.path(fmt.Sprintf("lane%d", lane))
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".vaultmcp-") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			return nil
		}
		rel, _ := filepath.Rel(v.Root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return out
}

// laneInHead lists a lane's notes in HEAD: path -> blob hash.
func laneInHead(t *testing.T, v *testVault, lane int) map[string]string {
	t.Helper()
	out := map[string]string{}
	ls := v.gitRun(t, "ls-tree", "-r", "HEAD", "--", fmt.Sprintf("lane%d", lane))
	for _, line := range strings.Split(ls, "\n") {
		meta, name, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		out[name] = f[2]
	}
	return out
}

// sameHashes reports whether the tree listing holds exactly the state's
// files with their contents.
func sameHashes(tree map[string]string, s laneState) bool {
	if len(tree) != len(s) {
		return false
	}
	for p, c := range s {
		if tree[p] != blobHash(c) {
			return false
		}
	}
	return true
}

// blobHash is git's hash of a blob holding c.
func blobHash(c string) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(c), c))))
}

// countTemps counts the temporary files of atomic writes in the vault.
func countTemps(root string) int {
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".vaultmcp-") {
			n++
		}
		return nil
	})
	return n
}

// crashServer is a server process driven over raw JSON-RPC, with
// requests in flight from several goroutines, that can be killed at any
// moment.
type crashServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	wait   map[int]chan json.RawMessage
	dead   chan struct{}
	exited chan struct{}
	once   sync.Once
}

// startCrashServer starts the server on v and initializes a session; an
// initialize that fails is a failed start: the server did not come up.
func startCrashServer(t *testing.T, v *testVault, env []string) *crashServer {
	t.Helper()
	cfg := newServerConfig(t, v, []serverOption{withEnv(env...), withDirtyVault()})
	p := &crashServer{stderr: &lockedBuffer{}, wait: map[int]chan json.RawMessage{}, dead: make(chan struct{}), exited: make(chan struct{})}
	p.cmd = exec.Command(plainBinary(t), cfg.args...)
	p.cmd.Env, p.cmd.Dir, p.cmd.Stderr = cfg.env, cfg.dir, p.stderr
	// Its own process group, so that kill can wait for the git helpers
	// it started (git-upload-pack, git-receive-pack) to be gone too.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var msg struct {
					ID *int `json:"id"`
				}
				if json.Unmarshal(line, &msg) == nil && msg.ID != nil {
					p.mu.Lock()
					ch := p.wait[*msg.ID]
					delete(p.wait, *msg.ID)
					p.mu.Unlock()
					if ch != nil {
						ch <- line
					}
				}
			}
			if err != nil {
				p.once.Do(func() { close(p.dead) })
				p.cmd.Wait()
				close(p.exited)
				return
			}
		}
	}()
	t.Cleanup(func() {
		p.kill()
		if log := p.log(); strings.Contains(log, "WARNING: DATA RACE") || strings.Contains(log, "panic:") {
			t.Errorf("server log reports a race or a panic:\n%s", log)
		}
	})
	resp, err := p.request("initialize", json.RawMessage(rawInitialize))
	if err != nil || !bytes.Contains(resp, []byte(`"result"`)) {
		t.Fatalf("the server did not come up after a kill: %v %s\nserver log:\n%s", err, resp, p.log())
	}
	p.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

var errServerGone = errors.New("server gone")

func (p *crashServer) notify(line string) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.stdin.Write([]byte(line + "\n"))
}

// request sends one request and waits for its response; errServerGone
// when the process died first.
func (p *crashServer) request(method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan json.RawMessage, 1)
	p.wait[id] = ch
	p.mu.Unlock()
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, raw)
	p.wmu.Lock()
	_, werr := p.stdin.Write([]byte(line))
	p.wmu.Unlock()
	if werr != nil {
		return nil, errServerGone
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-p.dead:
		return nil, errServerGone
	case <-time.After(callTimeout):
		return nil, fmt.Errorf("%s: no response within %s", method, callTimeout)
	}
}

// call calls a tool; err is set when the server died before answering.
func (p *crashServer) call(name string, args map[string]any) (text string, isError bool, err error) {
	resp, err := p.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", false, err
	}
	var r struct {
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return "", true, nil
	}
	if r.Error != nil {
		return r.Error.Message, true, nil
	}
	var parts []string
	for _, c := range r.Result.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), r.Result.IsError, nil
}

// kill sends SIGKILL to the server (nothing runs after it: no deferred
// cleanup, no flush) and waits until it is gone, and so are the git
// helper processes it had started: a push a helper was finishing lands on
// the remote before the test goes on, as it would on a real machine.
func (p *crashServer) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	for deadline := time.Now().Add(callTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(-p.cmd.Process.Pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
}

// stop ends the session the orderly way (stdin closed) and waits.
func (p *crashServer) stop(t *testing.T) {
	t.Helper()
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
	select {
	case <-p.exited:
	case <-time.After(callTimeout):
		t.Errorf("the server did not exit after stdin closed")
		p.kill()
	}
}

func (p *crashServer) log() string { return p.stderr.String() }
