#!/usr/bin/env bash
# Installs the pinned real agent CLIs used by TestRealCLIs (caddytest/clis_test.go)
# into a cache directory outside the repository (never commit node_modules).
#
#   bash caddytest/clis/install.sh [DIR]     # DIR defaults to $LLMBRIDGE_CLIS_DIR,
#                                            # else ${XDG_CACHE_HOME:-$HOME/.cache}/llmbridge-clis
#
# Then: go test ./caddytest -run TestRealCLIs -clis -clis.dir DIR -v
set -euo pipefail

DIR="${1:-${LLMBRIDGE_CLIS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmbridge-clis}}"
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.328}"
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
QWEN_CODE_VERSION="${QWEN_CODE_VERSION:-0.24.4}"

command -v node >/dev/null || { echo "install.sh: node (>= 20) is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm is required" >&2; exit 1; }

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"name":"llmbridge-clis","private":true}' >package.json

npm install --no-audit --no-fund --no-save --loglevel=error \
  "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" \
  "@openai/codex@${CODEX_VERSION}" \
  "@google/gemini-cli@${GEMINI_CLI_VERSION}" \
  "@qwen-code/qwen-code@${QWEN_CODE_VERSION}"

# Claude Code's postinstall puts the native binary in place; npm skips install
# scripts when ignore-scripts is set, so run it by hand (it is idempotent).
if [ -f node_modules/@anthropic-ai/claude-code/install.cjs ]; then
  node node_modules/@anthropic-ai/claude-code/install.cjs
fi

for bin in claude codex gemini qwen; do
  if [ ! -x "node_modules/.bin/$bin" ]; then
    echo "install.sh: node_modules/.bin/$bin is missing after install" >&2
    exit 1
  fi
done
echo "install.sh: CLIs installed in $DIR/node_modules/.bin:"
for bin in claude codex gemini qwen; do
  printf '  %-7s %s\n' "$bin" "$("node_modules/.bin/$bin" --version 2>/dev/null | head -1 || echo '?')"
done
