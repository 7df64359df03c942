#!/usr/bin/env bash
# Serves the example app on another runtime, installing the runtimes first
# when missing (scripts/install-runtimes.sh: from npm, once, outside the repo):
#
#   scripts/runtime.sh deno       # npm run start:deno
#   scripts/runtime.sh bun        # npm run start:bun
#   scripts/runtime.sh workerd    # npm run start:workerd (Miniflare, under Node 22)
#   scripts/runtime.sh workerd-traces   # the Worker's stored traces, JSON
#   scripts/runtime.sh wrangler ...     # Cloudflare's CLI under Node 22 (e.g. deploy --dry-run)
#
# PORT and HOST as for `npm start`; .env is read (Deno: --env-file, Bun: itself,
# workerd: scripts/workerd.mjs). Databases in storage/ (workerd: storage/workerd).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-runtimes.sh --installed >/dev/null 2>&1 || bash scripts/install-runtimes.sh >&2
# shellcheck disable=SC1091
. "$(bash scripts/install-runtimes.sh --print)/env.sh"
export MINIFLARE_DIR

case "${1:-}" in
  deno)
    # The narrowest permissions that work (docs/runtimes.md, "Deno"): the libSQL
    # driver is a native library (ffi) that asks for the CPU, network interfaces
    # and host name to pick its build; files are read from the project and
    # written under storage/ only; the network is the address it listens on.
    env_file=(); [ -f .env ] && env_file=(--env-file=.env)
    exec "$DENO" run "${env_file[@]}" --allow-env --allow-net="${HOST:-127.0.0.1}" --allow-read=. --allow-write=storage \
      --allow-ffi --allow-sys=cpus,networkInterfaces,hostname examples/blog/runtimes/deno.ts ;;
  bun) exec "$BUN" run examples/blog/runtimes/bun.ts ;;
  workerd) exec "$NODE22" scripts/workerd.mjs serve ;;
  workerd-traces) exec "$NODE22" scripts/workerd.mjs traces "${2:-1000}" ;;
  wrangler) shift; PATH="$(dirname "$NODE22"):$PATH" WRANGLER_SEND_METRICS=false exec "$NODE22" "$WRANGLER" "$@" ;;
  *) echo "usage: scripts/runtime.sh deno|bun|workerd|workerd-traces|wrangler ..." >&2; exit 2 ;;
esac
