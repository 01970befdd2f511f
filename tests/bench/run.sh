#!/usr/bin/env bash
# Runs every benchmark and prints figures with ratios against baselines measured in the same run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
[ -d node_modules/diff ] || npm ci --silent --no-audit --no-fund
node core.mjs "$@"
node cli-start.mjs
node extension.mjs
node remote.mjs "$@"
node acp-bridge.mjs
node openclaw.mjs "$@"
