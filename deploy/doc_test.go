// Package deploy holds what runs vaultmcp where users run servers: the
// systemd unit and the Caddyfile (docs/deploy.md). Its tests check the
// unit with systemd's own tools.
package deploy
