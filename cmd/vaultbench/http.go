package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpSessions and httpDuration shape the load of the http section: that
// many concurrent MCP sessions over streamable HTTP for that long.
const (
	httpSessions = 50
	httpDuration = 15 * time.Second
	// httpWriteShare is the share of calls that write (and commit).
	httpWriteShare = 0.3
)

var (
	servingURL = regexp.MustCompile(`msg="serving over HTTP" url=(http://[^ ]+)/mcp`)
	runToken   = regexp.MustCompile(`Authorization: Bearer (vmcp_[A-Za-z0-9_-]+)`)
)

// benchHTTP serves a copy of the vault over HTTP on a loopback port and
// runs httpSessions sessions at once, each calling a mix of reads
// (read_file, get_backlinks, search_files, grep) and writes (write_file of
// a note of its own) as fast as answers come, for httpDuration. It
// reports throughput, p50 and p99 latency and errors (which must be 0),
// then stops the server (SIGTERM, graceful) and checks that every write
// the server acknowledged is a commit in the repository.
func benchHTTP(ctx context.Context, e *env) ([]figure, error) {
	dir := filepath.Join(e.tmp, "http")
	if err := copyTree(e.vault.Dir, dir); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		return nil, err
	}
	if err := gitInit(dir); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, e.bin, "serve", "--vault", dir, "--http=127.0.0.1:0")
	// The sessions share the run's token and call as fast as answers
	// come: the server's throughput is measured, not its /mcp rate limit.
	cmd.Env = append(os.Environ(), "VAULTMCP_GIT_SYNC_INTERVAL=0", "VAULTMCP_LOG_LEVEL=info",
		"VAULTMCP_HTTP_MCP_RATE_LIMIT=0", "VAULTMCP_CONFIG="+filepath.Join(e.tmp, "no-config.yaml"))
	if err := os.WriteFile(filepath.Join(e.tmp, "no-config.yaml"), nil, 0o644); err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start vaultmcp: %w", err)
	}
	exited := make(chan error, 1)
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	base, token, err := awaitServing(stderr)
	go func() { exited <- cmd.Wait() }()
	if err != nil {
		return nil, err
	}

	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: httpSessions * 2}}
	type sample struct {
		d     time.Duration
		write bool
		tool  string
	}
	var (
		mu      sync.Mutex
		samples []sample
		errs    []error
		acked   []string // notes whose write was answered with a commit
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	sessions := make([]*client.Client, httpSessions)
	for i := range sessions {
		c, err := client.NewStreamableHttpClient(base+"/mcp",
			transport.WithHTTPBasicClient(httpClient),
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		req.Params.ClientInfo = mcp.Implementation{Name: "vaultbench", Version: "1"}
		if _, err := c.Initialize(ctx, req); err != nil {
			return nil, fmt.Errorf("initialize session %d: %w", i, err)
		}
		sessions[i] = c
	}

	start := time.Now()
	deadline := start.Add(httpDuration)
	var wg sync.WaitGroup
	for i, c := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for n := 0; time.Now().Before(deadline); n++ {
				name, args, write := httpCall(rng, e.vault.Paths, i, n)
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = name, args
				t0 := time.Now()
				res, err := c.CallTool(ctx, req)
				d := time.Since(t0)
				if err == nil && res.IsError {
					err = fmt.Errorf("%s: %s", name, resultText(res))
				}
				if err != nil {
					fail(fmt.Errorf("session %d: %w", i, err))
					continue
				}
				mu.Lock()
				samples = append(samples, sample{d, write, name})
				if write {
					if !strings.Contains(resultText(res), "commit ") {
						errs = append(errs, fmt.Errorf("write_file answered without a commit: %s", resultText(res)))
					} else {
						acked = append(acked, args["path"].(string))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	// A graceful stop, then every acknowledged write must be a commit.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			errs = append(errs, fmt.Errorf("server exit: %w", err))
		}
	case <-time.After(time.Minute):
		errs = append(errs, errors.New("server did not stop within a minute of SIGTERM"))
	}
	missing, err := missingCommits(dir, acked)
	if err != nil {
		return nil, err
	}

	lat := make([]time.Duration, 0, len(samples))
	var writes int
	for _, s := range samples {
		lat = append(lat, s.d)
		if s.write {
			writes++
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	label := fmt.Sprintf("%d sessions, %d%% writes", httpSessions, int(httpWriteShare*100))
	figs := []figure{
		{name: "HTTP " + label + ": calls/s", text: fmt.Sprintf("%.0f/s", float64(len(samples))/elapsed.Seconds()),
			note: fmt.Sprintf("%d calls (%d writes) in %s", len(samples), writes, elapsed.Round(time.Millisecond))},
		{name: "HTTP " + label + ": p50", got: pct(0.50)},
		{name: "HTTP " + label + ": p99", got: pct(0.99)},
		{name: "HTTP " + label + ": errors", text: fmt.Sprint(len(errs)), budgetText: "= 0", over: len(errs) > 0},
		{name: "HTTP acknowledged writes missing from git", text: fmt.Sprintf("%d of %d", len(missing), len(acked)),
			budgetText: "= 0", over: len(missing) > 0},
	}
	// Per tool, since writes queue behind the vault's one write lock and
	// reads do not.
	by := map[string][]time.Duration{}
	for _, s := range samples {
		by[s.tool] = append(by[s.tool], s.d)
	}
	tools := slices.Sorted(maps.Keys(by))
	for _, tool := range tools {
		ds := by[tool]
		slices.Sort(ds)
		figs = append(figs, figure{name: "HTTP   " + tool + ": p50 / p99",
			text: fmtDuration(ds[len(ds)/2]) + " / " + fmtDuration(ds[len(ds)*99/100]), note: fmt.Sprintf("%d calls", len(ds))})
	}
	for i, err := range errs {
		if i == 5 {
			fmt.Printf("  ... %d more errors\n", len(errs)-5)
			break
		}
		fmt.Println("  error:", err)
	}
	if len(errs) > 0 || len(missing) > 0 {
		return figs, fmt.Errorf("%d errors, %d acknowledged writes missing from git", len(errs), len(missing))
	}
	return figs, nil
}

// awaitServing reads the server's log until it says where it listens,
// returning the base URL and the token printed for the run; the rest of
// the log is drained in the background.
func awaitServing(stderr io.Reader) (base, token string, err error) {
	sc := bufio.NewScanner(stderr)
	var log []string
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if m := runToken.FindStringSubmatch(line); m != nil {
			token = m[1]
		}
		if m := servingURL.FindStringSubmatch(line); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			if token == "" {
				return "", "", errors.New("the server printed no token for the run")
			}
			return m[1], token, nil
		}
	}
	return "", "", fmt.Errorf("the server stopped before serving:\n%s", strings.Join(log, "\n"))
}

// httpCall picks session i's n-th call: a write of its own note, or a read.
func httpCall(rng *rand.Rand, paths []string, i, n int) (name string, args map[string]any, write bool) {
	note := paths[rng.IntN(len(paths))]
	if rng.Float64() < httpWriteShare {
		return "write_file", map[string]any{
			"path":    fmt.Sprintf("bench-http/s%02d/n%05d.md", i, n),
			"content": fmt.Sprintf("# Session %d, call %d\n\nLinks to [[%s]].\n", i, n, strings.TrimSuffix(path.Base(note), ".md")),
		}, true
	}
	switch rng.IntN(4) {
	case 0:
		return "read_file", map[string]any{"path": note}, false
	case 1:
		return "get_backlinks", map[string]any{"note_name": strings.TrimSuffix(path.Base(note), ".md")}, false
	case 2:
		return "search_files", map[string]any{"pattern": path.Dir(note) + "/*.md"}, false
	default:
		return "grep", map[string]any{"query": "bench-unlikely-" + fmt.Sprint(rng.IntN(100)), "path": path.Dir(note)}, false
	}
}

// missingCommits returns the acknowledged writes that are not in the
// repository's HEAD, each with its own commit.
func missingCommits(dir string, acked []string) ([]string, error) {
	out, err := exec.Command("git", "-C", dir, "log", "--format=%s").Output()
	if err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	subjects := map[string]bool{}
	for _, s := range strings.Split(string(out), "\n") {
		subjects[s] = true
	}
	tree, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "--name-only", "HEAD", "--", "bench-http").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	inTree := map[string]bool{}
	for _, p := range strings.Split(string(tree), "\n") {
		inTree[p] = true
	}
	var missing []string
	for _, p := range acked {
		if !inTree[p] || !subjects["MCP: write "+p] {
			missing = append(missing, p)
		}
	}
	return missing, nil
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
