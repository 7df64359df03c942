#!/usr/bin/env bash
# Serves the example app on another runtime, installing the runtimes first
# when missing (scripts/install-runtimes.sh: from npm, once, outside the repo):
#
#   scripts/runtime.sh deno       # npm run start:deno
#   scripts/runtime.sh bun        # npm run start:bun
#   scripts/runtime.sh workerd    # npm run start:workerd (Miniflare, under Node 22)
#   scripts/runtime.sh workerd-traces   # the Worker's stored traces, JSON (npm run start:workerd's D1)
#   scripts/runtime.sh wrangler-traces  # the same, from `wrangler dev`'s local D1 (examples/blog/runtimes/.wrangler)
#   scripts/runtime.sh wrangler ...     # Cloudflare's CLI under Node 22 (e.g. deploy --dry-run)
#
# PORT and HOST as for `npm start`; .env is read (Deno: --env-file, Bun: itself,
# workerd: scripts/workerd.mjs), the environment winning over it. Databases in
# storage/ (workerd: storage/workerd).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-runtimes.sh --installed >/dev/null 2>&1 || bash scripts/install-runtimes.sh >&2
# shellcheck disable=SC1091
. "$(bash scripts/install-runtimes.sh --print)/env.sh"
export MINIFLARE_DIR

# NAME's value as the app sees it: the environment's when set (Deno and Bun do not override it), else
# .env's last line; blank means unset to the app.
env_value() {
  local value="${!1:-}"
  if [ -z "${!1+set}" ] && [ -f .env ]; then
    value="$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" .env | tail -n 1 | sed 's/[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/')"
  fi
  printf '%s' "${value//[[:space:]]/}"
}

# No .env yet (a fresh clone): made as `npm start` makes it, from the example's .env.example with a fresh
# JWT_SECRET, outside production (svc serve's rule). Without it Deno and Bun stopped on an uncaught
# ConfigError, and the Worker answered every request 500 with advice for wrangler, not for .env.
ensure_env_file() {
  [ -f .env ] && return 0
  [ "$(env_value APP_ENV)" = production ] && return 0
  local secret
  secret="$("${NODE22:-node}" -e 'process.stdout.write(require("node:crypto").randomBytes(48).toString("base64url"))')"
  (umask 077 && sed "s/^JWT_SECRET=.*/JWT_SECRET=$secret/" examples/blog/.env.example > .env)
  echo "Created .env with a fresh JWT_SECRET (development settings), as npm start does." >&2
}

case "${1:-}" in
  deno|bun|workerd) ensure_env_file ;;
esac

case "${1:-}" in
  deno)
    # The narrowest permissions that work (docs/runtimes.md, "Deno"): the libSQL
    # driver is a native library (ffi) that asks for the CPU, network interfaces
    # and host name to pick its build; files are read from the project and
    # written under storage/ only; the network is the address it listens on.
    # The address the app binds is HOST as the app reads it: the environment's, else .env's
    # (the last line wins, quotes dropped), a blank value meaning the default.
    env_file=(); [ -f .env ] && env_file=(--env-file=.env)
    host="$(env_value HOST)"; host="${host:-127.0.0.1}"
    case "$host" in *:*) host="[${host#[}"; host="${host%]}]" ;; esac
    exec "$DENO" run "${env_file[@]}" --allow-env --allow-net="$host" --allow-read=. --allow-write=storage \
      --allow-ffi --allow-sys=cpus,networkInterfaces,hostname examples/blog/runtimes/deno.ts ;;
  bun) exec "$BUN" run examples/blog/runtimes/bun.ts ;;
  # As examples/blog/runtimes/wrangler.toml sets them: each isolate has its own memory, so the
  # throttle counts in D1; no `svc queue:work` reaches D1, so queued work (the author's mail) runs in the request.
  workerd) THROTTLE_STORE=database QUEUE_CONNECTION=sync exec "$NODE22" scripts/workerd.mjs serve ;;
  workerd-traces) exec "$NODE22" scripts/workerd.mjs traces "${2:-1000}" ;;
  # wrangler.toml's preview_database_id names the local D1s as workerd.mjs does; wrangler keeps them in
  # .wrangler/state/v3 beside wrangler.toml (or in --persist-to's folder: WRANGLER_STATE).
  wrangler-traces) WORKERD_STORAGE="${WRANGLER_STATE:-examples/blog/runtimes/.wrangler/state}/v3" exec "$NODE22" scripts/workerd.mjs traces "${2:-1000}" ;;
  wrangler) shift; PATH="$(dirname "$NODE22"):$PATH" WRANGLER_SEND_METRICS=false exec "$NODE22" "$WRANGLER" "$@" ;;
  *) echo "usage: scripts/runtime.sh deno|bun|workerd|workerd-traces|wrangler-traces|wrangler ..." >&2; exit 2 ;;
esac
