// Package access is the scope a request runs under: whether it may change
// the vault, and which folders it may see. One mechanism serves every
// transport and every credential:
//
//   - The server's own rules (access.read_only, access.allow, access.deny
//     in the configuration) are a Scope; so are each HTTP credential's
//     (read_only, allow, deny on a token or user). A request runs under
//     the narrowing of the two (Scope.Narrow): both must allow a path.
//   - The transport puts the request's Scope into its context (With);
//     nothing below the transport takes it from anywhere else. No Scope in
//     a context means no restriction, which is what the server's own work
//     (index builds, sync, the watcher) runs under.
//   - It is enforced where paths are resolved and where results are
//     listed, not tool by tool: the vault refuses a client path the scope
//     hides and every change a read-only or narrower scope does not allow
//     (inside the change's transaction, so nothing is half-written);
//     listings, the index's answers, searches and history leave out what
//     the scope hides. A tool written later inherits all of this by
//     resolving paths through the vault and passing its request context
//     on. The MCP layer additionally leaves tools that are not read-only
//     out of tools/list under a read-only scope and refuses their calls
//     with a reason.
//
// A hidden path never appears in an answer, and a refusal never says
// whether a hidden path exists: reading a denied note that exists and one
// that does not give the same error.
//
// A symbolic link is seen only where both its own path and its target
// are: the vault checks both ends of every link on a client's path
// (vault.Path.Via), and answers built from files a walk found as links
// (the index, and what searches read from it) bind the request's scope
// to where those links lead (Through).
//
// Patterns are doublestar globs over vault-relative, '/'-separated paths,
// compared without regard to case or Unicode normal form (so a case- or
// NFD-spelled path cannot slip past a deny on a case-insensitive disk). A
// pattern names folders or files; a path is covered when it or one of its
// parent folders matches, so "Journal", "Journal/" and "Journal/**" all
// mean the Journal folder and everything in it. An allow list, when not
// empty, admits only what it covers; a deny list hides what it covers and
// wins over allow. The parent folders of an allowed folder stay
// navigable (listed, searched within) but show only the allowed parts.
// Navigable says only where a pattern could lead: with a wildcard
// (Projects/*/public) it holds for Projects/Beta even when Beta has no
// public folder. The vault therefore shows, and lets a client name, a
// folder that is not visible itself only when it holds something that
// is; any other folder is hidden like a denied one.
package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"
)

// Rules are one party's restrictions, as configured.
type Rules struct {
	// ReadOnly refuses every change.
	ReadOnly bool
	// Allow, when not empty, admits only the paths these globs cover.
	Allow []string
	// Deny hides the paths these globs cover, whatever Allow says.
	Deny []string
}

// Scope is a set of Rules applied together (a server's and a
// credential's). The nil *Scope allows everything; a Scope is immutable
// and safe for concurrent use.
type Scope struct {
	readOnly string // who made it read-only ("" = writable), for messages
	layers   []layer
	links    Links // see Through; nil when bound to none
}

// Links tells where the symbolic links among a vault's files lead. A link
// shows another file's content under its own path, so a scope must judge
// it by both: see Through.
type Links interface {
	// LinkTarget returns the vault-relative path of the file the link
	// at rel leads to, and false when rel is not a link the source knows.
	LinkTarget(rel string) (target string, ok bool)
}

type layer struct {
	allow, deny []pattern
}

// pattern is one compiled glob, folded, split at '/' for prefix matching.
type pattern struct {
	glob string
	segs []string
}

// New compiles rules into a Scope. who names the rules' owner in refusals
// ("the server", `token "n8n"`). Rules that restrict nothing give nil.
func New(who string, r Rules) (*Scope, error) {
	var l layer
	var errs []error
	for _, list := range []struct {
		name string
		in   []string
		out  *[]pattern
	}{{"allow", r.Allow, &l.allow}, {"deny", r.Deny, &l.deny}} {
		for _, g := range list.in {
			p, err := compile(g)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s pattern %q: %w", list.name, g, err))
				continue
			}
			*list.out = append(*list.out, p)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s := &Scope{}
	if r.ReadOnly {
		s.readOnly = who
	}
	if len(l.allow) > 0 || len(l.deny) > 0 {
		s.layers = []layer{l}
	}
	if s.readOnly == "" && len(s.layers) == 0 {
		return nil, nil
	}
	return s, nil
}

// MustNew is New for rules known to be valid (tests, constants).
func MustNew(who string, r Rules) *Scope {
	s, err := New(who, r)
	if err != nil {
		panic(err)
	}
	return s
}

func compile(g string) (pattern, error) {
	f := fold(strings.TrimSpace(g))
	f = strings.Trim(f, "/")
	for strings.HasSuffix(f, "/**") {
		f = strings.TrimSuffix(f, "/**")
	}
	if f == "" || f == "**" {
		return pattern{}, errors.New("covers the whole vault; leave the list empty instead")
	}
	if !doublestar.ValidatePattern(f) {
		return pattern{}, errors.New("not a valid glob")
	}
	segs := strings.Split(f, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return pattern{}, errors.New("empty, '.' or '..' folder names are not allowed")
		}
		if strings.ContainsAny(s, "{}") && strings.Count(s, "{") != strings.Count(s, "}") {
			// A '/' inside {a,b/c} would split an alternative across
			// folders, which the folder-by-folder matching cannot follow.
			return pattern{}, errors.New("alternatives ({…}) must not contain '/'")
		}
	}
	return pattern{glob: f, segs: segs}, nil
}

// fold is the form patterns and paths are compared in.
func fold(s string) string {
	s = strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFC.String(s)
		}
	}
	return s
}

// covers reports whether rel (folded) or one of its parent folders
// matches the pattern.
func (p pattern) covers(rel string) bool {
	for {
		if ok, _ := doublestar.Match(p.glob, rel); ok {
			return true
		}
		i := strings.LastIndexByte(rel, '/')
		if i < 0 {
			return false
		}
		rel = rel[:i]
	}
}

// leadsTo reports whether the folder dir (folded) is a parent of
// something the pattern matches: dir's names match the pattern's first
// names, or the pattern reaches a ** on the way.
func (p pattern) leadsTo(dir string) bool {
	if dir == "" {
		return true
	}
	for i, name := range strings.Split(dir, "/") {
		if i >= len(p.segs) {
			return true // dir lies inside a match
		}
		if p.segs[i] == "**" {
			return true
		}
		if ok, _ := doublestar.Match(p.segs[i], name); !ok {
			return false
		}
	}
	return true
}

func (l layer) visible(rel string) bool {
	for _, p := range l.deny {
		if p.covers(rel) {
			return false
		}
	}
	if len(l.allow) == 0 {
		return true
	}
	for _, p := range l.allow {
		if p.covers(rel) {
			return true
		}
	}
	return false
}

func (l layer) navigable(dir string) bool {
	if l.visible(dir) {
		return true
	}
	for _, p := range l.deny {
		if p.covers(dir) {
			return false
		}
	}
	for _, p := range l.allow {
		if p.leadsTo(dir) {
			return true
		}
	}
	return false
}

// Narrow returns the scope that allows only what both s and other allow.
func (s *Scope) Narrow(other *Scope) *Scope {
	switch {
	case s == nil:
		return other
	case other == nil:
		return s
	}
	n := &Scope{readOnly: s.readOnly, layers: append(append([]layer{}, s.layers...), other.layers...), links: s.links}
	if n.readOnly == "" {
		n.readOnly = other.readOnly
	}
	if n.links == nil {
		n.links = other.links
	}
	return n
}

// Through returns s judging every path also by where it leads: a path
// that links tells is a symbolic link is visible only when both the link
// and its target are. Without it, Public/alias.md -> ../Private/secret.md
// would show the secret under a scope that allows only Public. Whatever
// answers from files a walk found as links (the index) binds its scope
// through itself; a scope that hides nothing, or nil links, is s itself.
func (s *Scope) Through(links Links) *Scope {
	if !s.Hides() || links == nil {
		return s
	}
	n := *s
	n.links = links
	return &n
}

// ReadOnly reports whether the scope refuses every change.
func (s *Scope) ReadOnly() bool { return s != nil && s.readOnly != "" }

// Unrestricted reports whether the scope allows everything.
func (s *Scope) Unrestricted() bool { return s == nil }

// Hides reports whether the scope restricts which paths are seen at all
// (it has allow or deny rules), so results must be filtered.
func (s *Scope) Hides() bool { return s != nil && len(s.layers) > 0 }

// Visible reports whether the file or folder rel (vault-relative,
// '/'-separated, "" for the root) may be read and appear in answers. A
// scope bound to links (Through) also requires a link's target to be
// visible.
func (s *Scope) Visible(rel string) bool {
	if s == nil || len(s.layers) == 0 {
		return true
	}
	rel = strings.Trim(rel, "/")
	if !s.visible(rel) {
		return false
	}
	if s.links != nil {
		if target, ok := s.links.LinkTarget(rel); ok && !s.visible(strings.Trim(target, "/")) {
			return false
		}
	}
	return true
}

// visible is Visible of rel (trimmed) by the rules alone.
func (s *Scope) visible(rel string) bool {
	if rel == "" {
		return true
	}
	f := fold(rel)
	for _, l := range s.layers {
		if !l.visible(f) {
			return false
		}
	}
	return true
}

// Navigable reports whether the folder dir may be listed or searched
// within: it is visible, or it leads to a folder that is (the parents of
// an allowed folder). What is found inside still has to be Visible.
func (s *Scope) Navigable(dir string) bool {
	if s == nil || len(s.layers) == 0 {
		return true
	}
	dir = strings.Trim(dir, "/")
	if dir == "" {
		return true
	}
	f := fold(dir)
	for _, l := range s.layers {
		if !l.navigable(f) {
			return false
		}
	}
	return true
}

// ErrDenied is what every refusal unwraps to.
var ErrDenied = errors.New("access denied")

// Error is a refusal, phrased for the client.
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns ErrDenied.
func (e *Error) Unwrap() error { return ErrDenied }

// CheckRead refuses a path the client named (given, as written) that
// resolved to rel when the scope hides it. The message is the same
// whether or not the path exists.
func (s *Scope) CheckRead(given, rel string) error {
	if s.Visible(rel) {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("Access denied: %s is outside the folders this session may access", given)}
}

// CheckFolder is CheckRead for a folder to list or search within, which
// may also be a parent of an allowed folder.
func (s *Scope) CheckFolder(given, rel string) error {
	if s.Navigable(rel) {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("Access denied: %s is outside the folders this session may access", given)}
}

// CheckWrite refuses a change to rel. given is the path as the client
// wrote it, or "" for a path the change touches on its own (a note whose
// links a rename rewrites), which is then not named: the client may not
// know it exists.
func (s *Scope) CheckWrite(given, rel string) error {
	if s == nil {
		return nil
	}
	if s.readOnly != "" {
		return &Error{Msg: fmt.Sprintf("Access denied: %s is read-only, so nothing was changed", s.readOnly)}
	}
	if s.Visible(rel) {
		return nil
	}
	if given == "" {
		return &Error{Msg: "Access denied: the change would also touch notes outside the folders this session may access, so nothing was changed"}
	}
	return &Error{Msg: fmt.Sprintf("Access denied: %s is outside the folders this session may access, so nothing was changed", given)}
}

type ctxKey struct{}

// With returns ctx carrying s, replacing any scope ctx carried.
func With(ctx context.Context, s *Scope) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// From returns the scope ctx carries; nil (everything allowed) if none.
func From(ctx context.Context) *Scope {
	s, _ := ctx.Value(ctxKey{}).(*Scope)
	return s
}
