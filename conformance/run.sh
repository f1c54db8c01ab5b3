#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json, on the Node 22 the lock file installs) against
# `vaultmcp serve --http` on a loopback port the kernel picks, with
# authentication off (http.auth: none, which the server allows on loopback
# only). Scenarios that need the suite's own fixture tools, resources or
# prompts are listed, with the reason, in expected-failures.yml; the suite
# fails the run on any other failure and on any listed scenario that
# passes. `make conformance` runs it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${VAULTMCP_BIN:-$here/../bin/vaultmcp}
node=$here/node_modules/.bin/node
suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
for f in "$bin" "$node" "$suite"; do
	[[ -e $f ]] || { echo "conformance: missing $f (run: make build conformance-deps)" >&2; exit 1; }
done

work=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# A small vault: a few linked notes in a git repository.
vault=$work/vault
mkdir -p "$vault/Journal"
printf '# Home\n\nStart at [[Journal/2025-01-01]]. #home\n' >"$vault/Home.md"
printf '# New year\n\nBack to [[Home]].\n' >"$vault/Journal/2025-01-01.md"
git -C "$vault" init -q -b main
git -C "$vault" add -A
git -C "$vault" -c user.name=conformance -c user.email=conformance@localhost commit -q -m initial

touch "$work/empty.yaml"
env VAULTMCP_CONFIG="$work/empty.yaml" VAULTMCP_HTTP_AUTH=none \
	XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
	"$bin" serve --vault "$vault" --http=127.0.0.1:0 2>"$work/server.log" &
server_pid=$!

url=
for _ in $(seq 1 600); do
	url=$(sed -n 's/.*msg="serving over HTTP" url=\(http:[^ ]*\).*/\1/p' "$work/server.log" | head -1)
	[[ -n $url ]] && break
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
if [[ -z $url ]]; then
	echo "conformance: the server did not start:" >&2
	cat "$work/server.log" >&2
	exit 1
fi
echo "conformance: suite $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$here/node_modules/@modelcontextprotocol/conformance/package.json" | head -1) on Node $("$node" --version) against $url"

status=0
(cd "$work" && "$node" "$suite" server --url "$url" --expected-failures "$here/expected-failures.yml") || status=$?
if [[ $status -ne 0 ]]; then
	echo "conformance: failed; server log:" >&2
	cat "$work/server.log" >&2
fi
exit $status
