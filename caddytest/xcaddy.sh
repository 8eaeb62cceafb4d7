#!/usr/bin/env bash
# xcaddy.sh builds Caddy with llmbridge from this checkout, the way users
# build it (xcaddy build --with github.com/llmbridge/llmbridge=<checkout>),
# and checks that the binary has llmbridge's modules.
#
# Usage: caddytest/xcaddy.sh [output-binary]
#
#   output-binary   where to write Caddy (default: a temporary directory,
#                   removed afterwards)
#
# Environment:
#   CADDY_VERSION   the Caddy version to build (default: the one go.mod
#                   requires, which the tests run against)
#   XCADDY_VERSION  the xcaddy version installed when xcaddy is missing
#                   (default: latest)
#
# xcaddy is installed with `go install` when it is not on PATH. Builds need
# the Go module proxy (or a module cache that has every module). Where the
# proxy refuses or cannot be reached and the module cache is complete (after
# `go test ./...` in this checkout, for example), build from the cache:
#
#   GOPROXY=file://$(go env GOMODCACHE)/cache/download GOSUMDB=off caddytest/xcaddy.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v go >/dev/null; then
	echo "xcaddy.sh: go is not installed" >&2
	exit 1
fi

xcaddy=$(command -v xcaddy || true)
if [ -z "$xcaddy" ]; then
	gobin=$(go env GOBIN)
	[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
	if [ ! -x "$gobin/xcaddy" ]; then
		echo "xcaddy.sh: installing xcaddy@${XCADDY_VERSION:-latest} into $gobin" >&2
		go install "github.com/caddyserver/xcaddy/cmd/xcaddy@${XCADDY_VERSION:-latest}"
	fi
	xcaddy="$gobin/xcaddy"
fi

version=${CADDY_VERSION:-$(go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2)}

out=${1:-}
if [ -z "$out" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	out="$tmp/caddy"
fi

echo "xcaddy.sh: building Caddy $version with github.com/llmbridge/llmbridge=$root" >&2
if ! "$xcaddy" build "$version" --with "github.com/llmbridge/llmbridge=$root" --output "$out"; then
	cat >&2 <<EOF
xcaddy.sh: the build failed. If it failed to download modules (the proxy
refused a module, or there is no network), and this checkout's tests have
run, the module cache may have everything; try:
  GOPROXY=file://$(go env GOMODCACHE)/cache/download GOSUMDB=off $0 ${1:-}
EOF
	exit 1
fi

modules=$("$out" list-modules)
status=0
for m in http.handlers.llmbridge http.matchers.llm_model; do
	if grep -qx "$m" <<<"$modules"; then
		echo "xcaddy.sh: ok: $m"
	else
		echo "xcaddy.sh: FAIL: $out list-modules lacks $m" >&2
		status=1
	fi
done
# The directive is registered too: a Caddyfile using it adapts.
cfg=$(mktemp)
printf ':8080 {\n\tllmbridge {\n\t\tupstream openai-chat\n\t}\n\treverse_proxy localhost:9\n}\n' >"$cfg"
if "$out" adapt --config "$cfg" --adapter caddyfile >/dev/null; then
	echo "xcaddy.sh: ok: the llmbridge Caddyfile directive adapts"
else
	echo "xcaddy.sh: FAIL: $out adapt rejects the llmbridge directive" >&2
	status=1
fi
rm -f "$cfg"
[ "$status" -eq 0 ] && "$out" version
exit "$status"
