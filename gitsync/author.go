package gitsync

import (
	"context"
	"strings"
)

// Author is who a change is made for, as its commit's author says: the
// credential of the client that asked (the committer stays the server's
// configured identity). Trailers name the client and the credential in
// the commit message.
type Author struct {
	Name, Email string
	Trailers    []Trailer
}

// Trailer is a "Key: value" line at the end of a commit message.
type Trailer struct{ Key, Value string }

// The trailers the server writes.
const (
	ClientTrailer     = "Vaultmcp-Client"
	CredentialTrailer = "Vaultmcp-Credential"
)

type authorKey struct{}

// WithAuthor makes a the author of the commits made with the returned
// context; without one, commits are authored by Options.AuthorName.
func WithAuthor(ctx context.Context, a Author) context.Context {
	return context.WithValue(ctx, authorKey{}, a)
}

// AuthorFrom is the author ctx carries.
func AuthorFrom(ctx context.Context) (Author, bool) {
	a, ok := ctx.Value(authorKey{}).(Author)
	return a, ok && a.Name != ""
}

// WithTrailer returns a with the trailer key set to value (replacing one
// of the same key).
func (a Author) WithTrailer(key, value string) Author {
	out := Author{Name: a.Name, Email: a.Email}
	for _, t := range a.Trailers {
		if t.Key != key {
			out.Trailers = append(out.Trailers, t)
		}
	}
	out.Trailers = append(out.Trailers, Trailer{key, value})
	return out
}

// signatureText makes s safe inside a git signature: no angle brackets
// or line breaks, which would end the name or the email early.
func signatureText(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', 0:
			return ' '
		}
		return r
	}, s)), " ")
}

// withTrailers appends a's trailers to message, as git interpret-trailers
// would: after a blank line, one per line, values on one line.
func (a Author) withTrailers(message string) string {
	var b strings.Builder
	for _, t := range a.Trailers {
		v := strings.Join(strings.Fields(t.Value), " ")
		if t.Key == "" || v == "" {
			continue
		}
		b.WriteString(t.Key + ": " + v + "\n")
	}
	if b.Len() == 0 {
		return message
	}
	return strings.TrimRight(message, "\n") + "\n\n" + strings.TrimSuffix(b.String(), "\n")
}

// DisplayEmail is the email of an author name no mapping gives one:
// name@vaultmcp.invalid, the name lowercased with what an address cannot
// hold turned into "-".
func DisplayEmail(name string) string {
	local := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, name)
	for strings.Contains(local, "--") {
		local = strings.ReplaceAll(local, "--", "-")
	}
	local = strings.Trim(local, ".-")
	if local == "" {
		local = "client"
	}
	return local + "@vaultmcp.invalid"
}
