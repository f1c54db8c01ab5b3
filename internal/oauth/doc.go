// Package oauth is vaultmcp's built-in OAuth 2.1 authorization server, for
// MCP clients that discover authentication (Claude's custom connectors, MCP
// Inspector) as the MCP authorization specification describes. The
// configured users sign in on its page; their clients get tokens for this
// server's /mcp and nothing else. docs/connectors.md is the user's view;
// docs/security.md lists what it defends against.
//
// The parts, a file each:
//
//   - metadata.go: RFC 8414 metadata, naming every endpoint and what the
//     server supports (iss on responses, client metadata documents).
//   - clients.go: who a client is. Dynamic registration (RFC 7591) with a
//     limit on every field and an allowlist of redirect URI schemes, or
//   - metadatadoc.go: a client_id that is an https URL naming the
//     client's metadata document, fetched with an SSRF guard.
//   - authorize.go, page.go: the sign-in page. A checked request is signed
//     into the page's form, so pages cost the server nothing and cannot be
//     altered; errors before the person acts are pages, never redirects.
//     Success redirects with code, state and iss.
//   - token.go: the token endpoint (codes with PKCE, refresh tokens bound to
//     their client, rotated, reuse ending the grant) and the access tokens:
//     HS256 JWTs naming their grant, accepted only while it lives.
//   - revoke.go: RFC 7009 revocation.
//   - state.go: clients, grants and signing keys, kept in a 0600 file
//     written whole under a file lock, so restarts keep every connector
//     signed in and `vaultmcp oauth` (admin.go) can change it beside a
//     running server, which rereads it within a second.
//
// Lock order: Server.refreshMu, then store.mu (inside which the state
// file's lock is taken), then Server.mu. Nothing calls out of the
// package while holding Server.mu.
package oauth
