package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/idempotency"
	"vaultmcp/tools"
	"vaultmcp/vault"
)

// route is one REST endpoint and the methods it takes.
type route struct {
	handler http.Handler
	methods []string
}

// apiRoutes are the authenticated REST endpoints.
func (s *Server) apiRoutes() map[string]route {
	routes := map[string]route{
		"/api/notes/": {http.HandlerFunc(s.note), []string{http.MethodGet, http.MethodPut, http.MethodDelete}},
		// Without it the mux answers /api/notes with a redirect and an
		// HTML page; it gets note's JSON 400 saying to name a note.
		"/api/notes": {http.HandlerFunc(s.note), []string{http.MethodGet, http.MethodPut, http.MethodDelete}},
	}
	maps.Copy(routes, s.conceptRoutes())
	maps.Copy(routes, s.baseRoutes())
	maps.Copy(routes, s.canvasRoutes())
	return routes
}

// decode reads a JSON request body into v; false after answering 400.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		detail(w, http.StatusUnsupportedMediaType, "Send the body as JSON (Content-Type: application/json)")
		return false
	}
	dec := json.NewDecoder(r.Body)
	// A misspelt field would otherwise be dropped and its default used
	// without a word, as the MCP tools refuse an unknown argument.
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errTrailingJSON
	}
	if err != nil {
		msg := "The body is not valid JSON"
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			msg = "The body must be a JSON object"
		case errors.As(err, &te):
			// te.Field is the Go path (Paging.limit for a field of an
			// embedded struct); the client knows only the last name.
			field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			kind := jsonKind(te.Type.Kind().String())
			msg = fmt.Sprintf("Field %q must be a %s", field, kind)
			if number, ok := strings.CutPrefix(te.Value, "number "); ok && kind == "number" {
				// A number that an integer field cannot hold: a
				// fraction, or a whole number out of range.
				msg = fmt.Sprintf("Field %q must be a whole number in range, not %s", field, number)
			}
		case errors.Is(err, errTrailingJSON):
			msg = "The body must be one JSON object; more follows it"
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			// encoding/json has no error type for this; its message is
			// stable since Go 1.10.
			field := strings.TrimPrefix(err.Error(), "json: unknown field ")
			msg = fmt.Sprintf("Unknown field %s; this endpoint takes %s", field, strings.Join(jsonFields(v), ", "))
		}
		detail(w, http.StatusBadRequest, msg)
		return false
	}
	return true
}

var errTrailingJSON = errors.New("trailing JSON")

// jsonFields lists the JSON field names of the struct v points to, for
// an error naming what a body may hold.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are the body's own, as
			// encoding/json reads them (exported or not).
			names = append(names, jsonFields(reflect.New(f.Type).Interface())...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, `"`+name+`"`)
	}
	return names
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int64", "float64":
		return "number"
	case "slice":
		return "list"
	}
	return goKind
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type loginResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// login exchanges a configured user's name and password for a JWT.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Username == "" || req.Password == "" {
		detail(w, http.StatusBadRequest, "username and password are required")
		return
	}
	if rec := audit.From(r.Context()); rec != nil {
		rec.SetIdentity("login:" + req.Username)
	}
	tok, ttl, err := s.opts.Auth.Login(req.Username, req.Password)
	if err != nil {
		if errors.Is(err, auth.ErrInvalid) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, resource_metadata=%q`, Name, s.metadataURL(r)))
			detail(w, http.StatusUnauthorized, "Invalid username or password")
			return
		}
		s.log.Error("login failed", "err", err)
		detail(w, http.StatusInternalServerError, "Login failed; the server logged the details")
		return
	}
	writeJSON(w, http.StatusOK, loginResponse{AccessToken: tok, TokenType: "bearer", ExpiresIn: int(ttl / time.Second)})
}

// vaultStatus maps a vault error onto the status the REST API answers.
func vaultStatus(err error) int {
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, vault.ErrDenied), errors.Is(err, vault.ErrHidden), errors.Is(err, vault.ErrOutside),
		errors.Is(err, vault.ErrPermission):
		return http.StatusForbidden
	case errors.Is(err, vault.ErrExists):
		return http.StatusConflict
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	var ve *vault.Error
	if errors.As(err, &ve) {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// fail answers a typed function's error: client errors with their
// message, anything unexpected as 500 with the details in the log.
// A path that names nothing is answered with the paths it may have meant,
// in the message and as "suggestions", as the tools do.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var nd *vault.NotDurableError
	if errors.As(err, &nd) {
		// The change was made and committed: say so, with its commit, so
		// that a client does not take it for undone and retry it.
		s.log.Error("REST change committed but not flushed", "err", err)
		msg := nd.Error()
		if v := s.opts.Deps.Vault; v != nil {
			msg = strings.ReplaceAll(msg, v.Root(), "<vault>")
		}
		writeJSON(w, http.StatusInternalServerError, map[string]any{"detail": msg, "commit": nd.Commit})
		return
	}
	var ce *vault.VersionConflictError
	if errors.As(err, &ce) {
		body := tools.ConflictFields(r.Context(), s.opts.Deps, ce)
		body["detail"] = err.Error()
		if ce.Current != vault.Absent {
			w.Header().Set("ETag", strconv.Quote(ce.Current))
		}
		writeJSON(w, http.StatusPreconditionFailed, body)
		return
	}
	status := vaultStatus(err)
	if status == http.StatusInternalServerError {
		s.log.Error("REST call failed", "err", err)
		detail(w, status, "Internal server error; the server logged the details")
		return
	}
	var ve *vault.Error
	if status == http.StatusNotFound && errors.As(err, &ve) && ve.Path != "" && s.opts.Deps.Vault != nil {
		if paths, hint := tools.Suggest(r.Context(), s.opts.Deps, ve.Path); len(paths) > 0 {
			writeJSON(w, status, map[string]any{"detail": err.Error() + hint, "suggestions": paths})
			return
		}
	}
	detail(w, status, err.Error())
}

type noteResponse struct {
	Path      string     `json:"path"`
	Content   *string    `json:"content,omitempty"`
	Size      int64      `json:"size,omitempty"`
	Modified  *time.Time `json:"modified,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
	// A part of a note (truncated): its lines, and where the next part
	// starts, as read_file's offset and column.
	FirstLine  int    `json:"first_line,omitempty"`
	Lines      *int   `json:"lines,omitempty"`
	TotalLines int    `json:"total_lines,omitempty"`
	NextOffset *int   `json:"next_offset,omitempty"`
	NextColumn int64  `json:"next_column,omitempty"`
	Binary     bool   `json:"binary,omitempty"`
	Bytes      *int   `json:"bytes,omitempty"`
	Commit     string `json:"commit,omitempty"`
	Deleted    bool   `json:"deleted,omitempty"`
	// Version is the note's version (git blob id), also its ETag.
	Version string `json:"version,omitempty"`
}

// precondition turns a write's If-Match (a strong ETag a GET returned)
// or If-None-Match: * (create only) into the vault's expected version;
// ok is false, the answer written, when the header is not one of those.
func precondition(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	ctx := r.Context()
	if r.Header.Get("If-None-Match") == "*" {
		return vault.WithExpectedVersion(ctx, vault.Absent), true
	}
	im := strings.TrimSpace(r.Header.Get("If-Match"))
	if im == "" {
		return ctx, true
	}
	tag, err := strconv.Unquote(im)
	if err != nil || vault.CheckVersion("If-Match", tag) != nil || tag == vault.Absent {
		detail(w, http.StatusBadRequest, fmt.Sprintf("If-Match %s is not a version: give the one strong ETag a GET of the note returned (a quoted 40-digit version); use If-None-Match: * to create a note only if it does not exist", im))
		return ctx, false
	}
	return vault.WithExpectedVersion(ctx, tag), true
}

type putNoteRequest struct {
	Content *string `json:"content"`
}

// note serves /api/notes/{path}: GET reads a note, PUT writes it (one
// commit), DELETE deletes it (one commit); the vault functions are the
// ones read_file, write_file and delete_file use, under the caller's
// access scope.
func (s *Server) note(w http.ResponseWriter, r *http.Request) {
	p, named := strings.CutPrefix(r.URL.Path, "/api/notes/")
	if !named || p == "" {
		detail(w, http.StatusBadRequest, "Name a note: /api/notes/{path}, e.g. /api/notes/Journal/2025-01-01.md")
		return
	}
	audit.NotePaths(r.Context(), p)
	switch key := r.Header.Get("Idempotency-Key"); {
	case r.Method == http.MethodGet:
		s.readNote(w, r, p)
	case key != "" && s.opts.Deps.Idempotency != nil:
		s.writeOnce(w, r, p, key, s.writeNote)
	default:
		s.writeNote(w, r, p)
	}
}

// storedAnswer is a REST write's answer as an idempotency key keeps it.
type storedAnswer struct {
	Status int             `json:"status"`
	ETag   string          `json:"etag,omitempty"`
	Body   json.RawMessage `json:"body"`
}

// answerRecorder holds a write's answer to keep it before sending it.
type answerRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answerRecorder) Header() http.Header         { return a.header }
func (a *answerRecorder) Write(b []byte) (int, error) { return a.body.Write(b) }
func (a *answerRecorder) WriteHeader(status int)      { a.status = status }

// writeOnce is a write (writeNote, editCanvas) under an Idempotency-Key:
// the same request (method, file, conditions and body) sent again with
// the key within a day is answered as the first was and applies nothing.
func (s *Server) writeOnce(w http.ResponseWriter, r *http.Request, p, key string, write func(http.ResponseWriter, *http.Request, string)) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		detail(w, http.StatusBadRequest, "The body could not be read: "+err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	fp := idempotency.Fingerprint([]byte(r.Method), []byte(p), []byte(r.Header.Get("If-Match")), []byte(r.Header.Get("If-None-Match")), body)
	answer, replayed, err := s.opts.Deps.Idempotency.Do(tools.Caller(r.Context()), key, fp, func() ([]byte, bool) {
		rec := &answerRecorder{header: http.Header{}, status: http.StatusOK}
		write(rec, r, p)
		raw, err := json.Marshal(storedAnswer{Status: rec.status, ETag: rec.header.Get("ETag"), Body: bytes.TrimSpace(rec.body.Bytes())})
		return raw, err == nil && rec.status == http.StatusOK
	})
	var reused *idempotency.ReusedError
	switch {
	case errors.As(err, &reused):
		detail(w, http.StatusUnprocessableEntity, strings.Replace(err.Error(), "idempotency_key", "Idempotency-Key", 1))
		return
	case err != nil && answer == nil:
		detail(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		s.log.Warn("idempotency key not kept", "err", err)
	}
	var a storedAnswer
	if json.Unmarshal(answer, &a) != nil {
		detail(w, http.StatusInternalServerError, "the answer kept for this Idempotency-Key is unreadable")
		return
	}
	if a.ETag != "" {
		w.Header().Set("ETag", a.ETag)
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	w.Write(append(a.Body, '\n'))
}

// writeNote answers PUT and DELETE of /api/notes/{path}.
func (s *Server) writeNote(w http.ResponseWriter, r *http.Request, p string) {
	ctx, ok := precondition(w, r)
	if !ok {
		return
	}
	v := s.opts.Deps.Vault
	switch r.Method {
	case http.MethodPut:
		var req putNoteRequest
		if !decode(w, r, &req) {
			return
		}
		if req.Content == nil {
			detail(w, http.StatusBadRequest, `"content" is required: the note's complete new text`)
			return
		}
		if strings.ContainsRune(*req.Content, utf8.RuneError) {
			detail(w, http.StatusBadRequest, "content is not valid UTF-8 text")
			return
		}
		wr, err := v.WriteFile(ctx, p, []byte(*req.Content))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		n := wr.Bytes
		version := vault.Version([]byte(*req.Content))
		w.Header().Set("ETag", strconv.Quote(version))
		writeJSON(w, http.StatusOK, noteResponse{Path: wr.Path.Rel, Bytes: &n, Commit: wr.Commit, Version: version})
	case http.MethodDelete:
		wr, err := v.DeleteFile(ctx, p)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, noteResponse{Path: wr.Path.Rel, Commit: wr.Commit, Deleted: true})
	}
}

// readNote answers GET /api/notes/{path}: the note's text, a page at a
// time as read_file reads it. The query's offset, limit and column are
// read_file's; a note longer than a page comes back truncated, with the
// next_offset (and, inside a line longer than a page, next_column) to ask
// for the rest.
func (s *Server) readNote(w http.ResponseWriter, r *http.Request, p string) {
	a := tools.ReadArgs{Path: p, Exact: true}
	q := r.URL.Query()
	for _, param := range []struct {
		name string
		min  int64
		set  func(int64)
	}{
		{"offset", 0, func(n int64) { a.Offset = int(n) }},
		{"limit", 1, func(n int64) { l := int(n); a.Limit = &l }},
		{"column", 0, func(n int64) { a.Column = n }},
	} {
		v := q.Get(param.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < param.min {
			detail(w, http.StatusBadRequest, fmt.Sprintf("query parameter %s=%q: want a whole number of at least %d", param.name, v, param.min))
			return
		}
		param.set(n)
	}
	res, err := tools.Read(r.Context(), s.opts.Deps, a)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pg := res.Page
	if pg.PastEnd {
		detail(w, http.StatusBadRequest, strings.Trim(res.Notice(), "[]"))
		return
	}
	mod := res.Modified.UTC()
	out := noteResponse{Path: res.Path, Size: pg.Size, Modified: &mod, Version: res.Version}
	if res.Version != "" {
		w.Header().Set("ETag", strconv.Quote(res.Version))
	}
	if pg.Binary {
		out.Binary = true
		writeJSON(w, http.StatusOK, out)
		return
	}
	text := string(pg.Text)
	out.Content = &text
	if res.Notice() != "" {
		lines := pg.Lines
		out.Truncated, out.FirstLine, out.Lines, out.TotalLines = true, pg.First, &lines, pg.TotalLines
		if offset, column, more := res.Next(); more {
			out.NextOffset, out.NextColumn = &offset, column
		}
	}
	writeJSON(w, http.StatusOK, out)
}
