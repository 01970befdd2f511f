#!/usr/bin/env bash
# Runs every benchmark, prints figures with ratios against baselines measured in the same run, then
# the summary table (check.mjs).
#   tests/bench/run.sh [--quick] [--check] [--record] [--only NAME...]
#     --quick   fewer samples (a smoke run; its ratios are not for recording)
#     --check   fail when a ratio is more than 20% worse than tests/bench/recorded.json's, in this
#               run and again in a re-run of its benchmark (one noisy run does not fail it)
#     --record  run everything twice and write the worse of the two ratios of each row into
#               tests/bench/recorded.json (on purpose, on a quiet machine)
#     --only    run only the named benchmarks (core cli-start first-request extension remote
#               acp-bridge openclaw); --check then compares only the rows they measure
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
all=(core cli-start first-request extension remote acp-bridge openclaw)
quick=() guard=() only=() passes=1
while (($#)); do
  case $1 in
    --quick) quick=(--quick) ;;
    --check) guard+=(--check) ;;
    --record) guard+=(--record) passes=2 ;;
    --only)
      shift
      while (($#)) && [[ $1 != --* ]]; do only+=("$1"); shift; done
      ((${#only[@]})) || { echo "run.sh: --only needs benchmark names (${all[*]})" >&2; exit 2; }
      continue
      ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for name in ${only[@]+"${only[@]}"}; do
  [[ " ${all[*]} " == *" $name "* ]] || { echo "run.sh: no benchmark named $name (${all[*]})" >&2; exit 2; }
done
if ((${#only[@]})); then
  [[ " ${guard[*]} " != *" --record "* ]] || { echo "run.sh: --record needs every benchmark (no --only)" >&2; exit 2; }
  guard+=(--partial)
fi
((${#quick[@]} == 0)) || [[ " ${guard[*]} " != *" --record "* ]] || { echo "run.sh: a --quick run's ratios are not for recording" >&2; exit 2; }
[ -d node_modules/diff ] || npm ci --silent --no-audit --no-fund
work=$(mktemp -d "${TMPDIR:-/tmp}/tether-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
names=("${all[@]}")
((${#only[@]} == 0)) || names=("${only[@]}")
# Runs the named benchmarks, their rows into $1.
run_benchmarks() {
  export TETHER_BENCH_RESULTS="$1"
  shift
  for name in "$@"; do
    export TETHER_BENCH_NAME="$name"
    case $name in
      core | extension | remote | openclaw) node "$name.mjs" ${quick[@]+"${quick[@]}"} ;;
      *) node "$name.mjs" ;;
    esac
  done
}
results=()
for ((pass = 1; pass <= passes; pass++)); do
  ((passes == 1)) || echo -e "\n######## run $pass of $passes ########"
  results+=("$work/run-$pass.jsonl")
  run_benchmarks "$work/run-$pass.jsonl" "${names[@]}"
done
if [[ " ${guard[*]} " == *" --check "* ]]; then
  mapfile -t again < <(node check.mjs "${results[0]}" --failing)
  if ((${#again[@]})); then
    echo -e "\n######## again: ${again[*]} (a row more than 20% worse than recorded; the guard fails only if the re-run is too) ########"
    run_benchmarks "$work/retry.jsonl" "${again[@]}"
    guard+=(--retry "$work/retry.jsonl")
  fi
fi
node check.mjs "${results[@]}" "${guard[@]}"
