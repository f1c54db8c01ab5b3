package oauth

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// signInPage is the page a person signs in on.
type signInPage struct {
	req     pageRequest
	client  *Client
	token   string // the signed request the form sends back
	user    string
	message string // why the page is shown again
}

// pageHeaders are set on every page this package shows: nothing loads
// but the page itself, no site can frame it, and nothing about the page
// leaks to where it leads.
func pageHeaders(w http.ResponseWriter, formAction string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	csp := "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	// A browser applies form-action to the redirect that answers the
	// form too: the application's return address must be allowed.
	if formAction != "" {
		csp += " " + formAction
	}
	h.Set("Content-Security-Policy", csp)
}

// redirectSource is the CSP source for a redirect URI: its origin, or
// for a private-use scheme the scheme.
func redirectSource(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme == "" || strings.ContainsAny(redirect, " ;,'\"") {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	if strings.Contains(u.Host, "[") {
		// CSP has no syntax for an IPv6 literal: allow the scheme (the
		// address is a registered loopback one).
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}

// returnTo says where the person returns after signing in, as the page
// shows it: the host of an https address; for anything else the whole
// address, since the host part of a private-use URI
// (com.app://claude.ai/…) names nothing the person can trust.
func returnTo(redirect string) template.HTML {
	u, err := url.Parse(redirect)
	if err == nil && u.Scheme == "https" {
		return template.HTML("<strong>" + template.HTMLEscapeString(u.Host) + "</strong>")
	}
	what := "an application on this computer"
	if err == nil && u.Scheme != "http" {
		what = "the application that opens " + template.HTMLEscapeString(u.Scheme) + ": links"
	}
	return template.HTML(what + " (<code>" + template.HTMLEscapeString(truncate(redirect, 120)) + "</code>)")
}

func (p signInPage) render(w http.ResponseWriter, status int) {
	pageHeaders(w, redirectSource(p.req.Redirect))
	w.WriteHeader(status)
	c := p.client
	data := map[string]any{
		"Client":       c.displayName(),
		"FromMetadata": c.FromMetadata,
		"ClientHost":   hostOf(c.ID),
		"Return":       returnTo(p.req.Redirect),
		"Write":        p.req.Write,
		"User":         p.user,
		"Message":      p.message,
		"Request":      p.token,
	}
	_ = templates().ExecuteTemplate(w, "signin", data)
}

// errorPage shows why a sign-in cannot go on. back, when set, is the
// application's return address with the error, offered as a link: the
// person chooses to follow it.
func errorPage(w http.ResponseWriter, status int, msg, back string) {
	pageHeaders(w, "")
	w.WriteHeader(status)
	_ = templates().ExecuteTemplate(w, "error", map[string]any{"Message": msg, "Back": template.URL(back), "BackHost": hostOf(back)})
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

// templates are parsed by the first page served, not at every start
// (stdio sessions never serve one).
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("pages").Parse(pagesHTML))
})

const pagesHTML = `{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to vaultmcp</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#222;line-height:1.4}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem .8rem}fieldset label{display:inline;margin:0 0 0 .3rem;font-weight:normal}
.choice{margin:.3rem 0}.buttons{margin-top:1.2rem;display:flex;gap:.8rem}button{padding:.5rem 1.2rem}
.error{color:#a00}.small{color:#555;font-size:.9rem}
</style></head><body>{{end}}

{{define "signin"}}{{template "head"}}
<h1>Sign in to your vault</h1>
<p><strong>{{.Client}}</strong> asks to use your Obsidian vault through vaultmcp.</p>
<p class="small">{{if .FromMetadata}}The application is identified by {{.ClientHost}}.{{else}}The application gave this name itself.{{end}}
After you sign in you return to {{.Return}}. It gets at most what your account may see and change.</p>
{{if .Message}}<p class="error" role="alert">{{.Message}}</p>{{end}}
<form method="post" action="">
<input type="hidden" name="request" value="{{.Request}}">
<label for="username">User name</label><input type="text" id="username" name="username" value="{{.User}}" autocomplete="username" required autofocus>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
{{if .Write}}<fieldset><legend>Access for this application</legend>
<div class="choice"><input type="radio" id="access-write" name="access" value="write" checked><label for="access-write">Read and change notes</label></div>
<div class="choice"><input type="radio" id="access-read" name="access" value="read"><label for="access-read">Read only</label></div>
</fieldset>{{else}}<p class="small">The application asks to read only.</p><input type="hidden" name="access" value="read">{{end}}
<div class="buttons"><button type="submit" name="action" value="allow" id="allow">Sign in and allow</button>
<button type="submit" name="action" value="deny" id="deny" formnovalidate>Cancel</button></div>
</form></body></html>
{{end}}

{{define "error"}}{{template "head"}}
<h1>Cannot sign in</h1>
<p class="error" role="alert">{{.Message}}</p>
{{if .Back}}<p><a href="{{.Back}}" rel="noreferrer">Return to {{.BackHost}}</a></p>{{end}}
</body></html>
{{end}}`
