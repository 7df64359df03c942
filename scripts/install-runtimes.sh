#!/usr/bin/env bash
# Installs the runtimes the cross-runtime tests serve the example with, all
# from npm, once per machine, outside the repo (tests/runtimes/):
#
#   deno       the npm package deno (its platform binary package)
#   bun        the npm package bun
#   node22/    Node 22 (the npm package node@22): Miniflare requires Node >= 22
#   miniflare  Miniflare, which runs workerd (Cloudflare's runtime) and gives D1 locally
#   wrangler   Cloudflare's CLI: the Worker example is bundled with `wrangler deploy --dry-run`
#
# Idempotent: exits at once when the pinned versions are there.
#
#   scripts/install-runtimes.sh             # install if missing
#   scripts/install-runtimes.sh --print     # print the install folder
#   scripts/install-runtimes.sh --installed # exit 0 when installed, 1 when not
#
# Layout of $SVC_RUNTIMES_DIR (default ~/.cache/svc/runtimes):
#   node_modules/   deno, bun, miniflare (with workerd), wrangler, node@22
#   env.sh          DENO, BUN, NODE22, MINIFLARE_DIR and WRANGLER (a script for NODE22), sourced by scripts/runtime.sh
set -euo pipefail

DENO_VERSION=2.9.6
BUN_VERSION=1.4.5
NODE22_VERSION=22.23.3
MINIFLARE_VERSION=4.20260730.0
WRANGLER_VERSION=4.164.0
VERSION="deno@$DENO_VERSION bun@$BUN_VERSION node@$NODE22_VERSION miniflare@$MINIFLARE_VERSION wrangler@$WRANGLER_VERSION"
DIR="${SVC_RUNTIMES_DIR:-$HOME/.cache/svc/runtimes}"

if [ "${1:-}" = "--print" ]; then echo "$DIR"; exit 0; fi

installed() { [ -f "$DIR/env.sh" ] && [ -f "$DIR/.version" ] && [ "$(cat "$DIR/.version")" = "$VERSION" ]; }
if [ "${1:-}" = "--installed" ]; then installed; exit $?; fi

if installed; then
  echo "runtimes already installed in $DIR ($VERSION)"
  exit 0
fi

rm -rf "$DIR.partial"
mkdir -p "$DIR.partial"
# The packages fetch their platform binaries as optional dependencies and set
# them up in install scripts (npm >= 11 blocks those by default).
export npm_config_dangerously_allow_all_scripts=true
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

echo "Installing $VERSION into $DIR"
(cd "$DIR.partial" && printf '{"name":"svc-runtimes","private":true}\n' > package.json &&
  npm install --no-save --loglevel=error --engine-strict=false $VERSION)

M="$DIR/node_modules"
cat > "$DIR.partial/env.sh" <<EOF
DENO="$M/deno/deno"
BUN="$M/bun/bin/bun.exe"
NODE22="$M/node/bin/node"
MINIFLARE_DIR="$M/miniflare"
WRANGLER="$M/wrangler/bin/wrangler.js"
EOF
echo "$VERSION" > "$DIR.partial/.version"
rm -rf "$DIR"
mv "$DIR.partial" "$DIR"

# The binaries answer (a broken install fails here, not in a test).
. "$DIR/env.sh"
"$NODE22" --version >/dev/null
"$DENO" --version >/dev/null
"$BUN" --version >/dev/null
echo "runtimes installed in $DIR"
