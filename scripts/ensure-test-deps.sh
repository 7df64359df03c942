#!/usr/bin/env bash
# What `npm test` needs beyond `npm ci`, installed when missing: Debian
# packages (as root, with apt-get), code-server (a real VS Code build) and the
# runtimes the cross-runtime tests use (Deno, Bun, Node 22, Miniflare),
# into caches outside the repo. Not root and something missing: stops at
# once with one message naming the command that installs it. Idempotent, and
# quick when everything is there (file checks only). `npm test` runs it first
# (the `pretest` script); .ci/run runs `npm test`.
#
#   bash scripts/ensure-test-deps.sh           # check, install what is missing
#   bash scripts/ensure-test-deps.sh --check   # check only: exit 1 naming what is missing
set -euo pipefail
cd "$(dirname "$0")/.."

# The Debian packages the tests need, one a line: "<package>|<a check that succeeds when it is there>|<why>".
# Add a line when a test needs another one.
PACKAGES=(
  "chromium|test -x \"\${CHROMIUM_PATH:-/usr/bin/chromium}\"|Playwright drives it: the webview and VS Code tests"
  "openssl|command -v openssl|the replay-over-TLS test makes a self-signed certificate"
  "redis-server|command -v redis-server|the redis queue driver's tests start one (tests/helpers/redis.ts)"
  "libkrb5-dev|test -f /usr/include/krb5.h|code-server's native build (needed only while installing code-server)"
  "tmux|command -v tmux|the shell completion, tinker and svc start wizard tests type into a real terminal"
  "bash-completion|test -f /usr/share/bash-completion/bash_completion|the bash completion test loads it (colons: __ltrim_colon_completions)"
  "zsh|command -v zsh|the zsh completion test"
)

check_only=false
[ "${1:-}" = "--check" ] && check_only=true

missing=()
for entry in "${PACKAGES[@]}"; do
  IFS='|' read -r package check _why <<<"$entry"
  if ! (eval "$check") >/dev/null 2>&1; then
    # libkrb5-dev matters only when code-server still has to be built.
    if [ "$package" = "libkrb5-dev" ] && bash extension/scripts/install-code-server.sh --installed >/dev/null 2>&1; then continue; fi
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$check_only" = true ] || [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "npm test needs these Debian packages: ${missing[*]}" >&2
    echo "Install them with: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "(run as root, npm test installs them itself; see README.md, \"Tests\")" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  echo "Installing for the tests: ${missing[*]}"
  # The package lists may be missing on a fresh machine: update once, only if the install needs it.
  apt-get install -y -q --no-install-recommends "${missing[@]}" || { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
fi

# A real VS Code (code-server, from npm) for the extension's end-to-end test, cached outside the repo.
if ! bash extension/scripts/install-code-server.sh --installed >/dev/null 2>&1; then
  if [ "$check_only" = true ]; then
    echo "npm test needs code-server: bash extension/scripts/install-code-server.sh" >&2
    exit 1
  fi
  bash extension/scripts/install-code-server.sh
fi

# Deno, Bun, Node 22 and Miniflare (workerd, D1), from npm, cached outside the repo:
# tests/runtimes serves the example on each of them (scripts/install-runtimes.sh).
if ! bash scripts/install-runtimes.sh --installed >/dev/null 2>&1; then
  if [ "$check_only" = true ]; then
    echo "npm test needs deno, bun, node@22 and miniflare: bash scripts/install-runtimes.sh" >&2
    exit 1
  fi
  bash scripts/install-runtimes.sh
fi
