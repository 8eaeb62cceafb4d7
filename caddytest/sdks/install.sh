#!/usr/bin/env bash
# Installs the pinned npm SDKs used by TestRealSDKs (caddytest/sdks_test.go)
# into a cache directory outside the repository (never commit node_modules):
# the Vercel AI SDK (ai with @ai-sdk/openai), openai-node, the OpenAI Agents
# SDK and Google's @google/genai (its Interactions client).
#
#   bash caddytest/sdks/install.sh [DIR]     # DIR defaults to $LLMBRIDGE_SDKS_DIR,
#                                            # else ${XDG_CACHE_HOME:-$HOME/.cache}/llmbridge-sdks
#
# Then: go test ./caddytest -run TestRealSDKs -sdks -sdks.dir DIR -v
set -euo pipefail

DIR="${1:-${LLMBRIDGE_SDKS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmbridge-sdks}}"
AI_VERSION="${AI_VERSION:-7.0.173}"
AI_SDK_OPENAI_VERSION="${AI_SDK_OPENAI_VERSION:-4.0.118}"
OPENAI_NODE_VERSION="${OPENAI_NODE_VERSION:-7.59.0}"
AGENTS_VERSION="${AGENTS_VERSION:-0.20.0}"
WS_VERSION="${WS_VERSION:-8.23.1}"   # openai-node's Responses WebSocket client runs on it
GENAI_VERSION="${GENAI_VERSION:-3.6.1}"   # @google/genai: interactions.create

command -v node >/dev/null || { echo "install.sh: node (>= 20) is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm is required" >&2; exit 1; }

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"name":"llmbridge-sdks","private":true}' >package.json

npm install --no-audit --no-fund --no-save --loglevel=error \
  "ai@${AI_VERSION}" \
  "@ai-sdk/openai@${AI_SDK_OPENAI_VERSION}" \
  "openai@${OPENAI_NODE_VERSION}" \
  "ws@${WS_VERSION}" \
  "@openai/agents@${AGENTS_VERSION}" \
  "@google/genai@${GENAI_VERSION}"

for pkg in ai @ai-sdk/openai openai ws @openai/agents @google/genai; do
  if [ ! -f "node_modules/$pkg/package.json" ]; then
    echo "install.sh: node_modules/$pkg is missing after install" >&2
    exit 1
  fi
  printf '  %-16s %s\n' "$pkg" "$(node -p "require('./node_modules/$pkg/package.json').version")"
done
echo "install.sh: SDKs installed in $DIR/node_modules"
