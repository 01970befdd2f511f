#!/usr/bin/env bash
# Runs every benchmark, prints figures with ratios against baselines measured in the same run, then
# the summary table (check.mjs).
#   tests/bench/run.sh [--quick] [--check] [--record]
#     --quick   fewer samples (a smoke run; its ratios are not for recording)
#     --check   fail when a ratio is more than 20% worse than tests/bench/recorded.json's
#     --record  write this run's ratios into tests/bench/recorded.json (on purpose, on a quiet machine)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
quick=() guard=()
for arg in "$@"; do
  case $arg in
    --quick) quick=(--quick) ;;
    --check | --record) guard+=("$arg") ;;
    *) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
[ -d node_modules/diff ] || npm ci --silent --no-audit --no-fund
results=$(mktemp "${TMPDIR:-/tmp}/tether-bench-XXXXXX.jsonl")
trap 'rm -f "$results"' EXIT
export TETHER_BENCH_RESULTS="$results"
node core.mjs "${quick[@]}"
node cli-start.mjs
node first-request.mjs
node extension.mjs "${quick[@]}"
node remote.mjs "${quick[@]}"
node acp-bridge.mjs
node openclaw.mjs "${quick[@]}"
node check.mjs "$results" "${guard[@]}"
