package tools

import (
	"context"
	"path/filepath"
)

// remoteKey marks a context whose client is on another machine.
type remoteKey struct{}

// ForRemoteClient returns ctx marked as serving a client on another
// machine, which the transport knows and the tools do not: answers then
// name a file by its vault-relative path and the vault by its folder's
// name, never by the server's absolute paths, which tell a remote client
// (a folder-scoped token's too) how the server's disk is laid out and
// open nothing it could use. A local client (stdio, an unmarked context)
// shares the server's file system: it gets absolute paths, as the
// concept tools' and get_backlinks' documented answers have them.
func ForRemoteClient(ctx context.Context) context.Context {
	return context.WithValue(ctx, remoteKey{}, true)
}

// remoteClient reports whether ForRemoteClient marked ctx.
func remoteClient(ctx context.Context) bool {
	remote, _ := ctx.Value(remoteKey{}).(bool)
	return remote
}

// filePath is how an answer names the file at rel (vault-relative, '/'
// separated) in its file_path or absolute_path field: absolute for a
// local client, rel itself for a remote one.
func filePath(ctx context.Context, d Deps, rel string) string {
	if remoteClient(ctx) {
		return rel
	}
	return filepath.Join(d.Vault.Root(), filepath.FromSlash(rel))
}

// vaultPath is how an answer names the vault (get_statistics'
// vault_path): its absolute path for a local client, its folder's name
// for a remote one.
func vaultPath(ctx context.Context, d Deps) string {
	if remoteClient(ctx) {
		return filepath.Base(d.Vault.Root())
	}
	return d.Vault.Root()
}
