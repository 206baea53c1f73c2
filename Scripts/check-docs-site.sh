#!/usr/bin/env bash
# Opens the documentation site in a real browser (headless Chromium) and checks that pages
# show their content: the site root (which must lead to the documentation, not to "page not
# found"), an article and a symbol page. DocC pages are rendered by JavaScript, so a plain
# HTTP fetch would see an empty shell; this asserts on the DOM the browser built.
#
#   Scripts/check-docs-site.sh SITE_DIR     (a folder written by Scripts/build-docs.sh)
#
# Installs Debian's chromium with apt-get when it is missing (needs root).
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/index.html" ]; then
    echo "usage: $0 SITE_DIR (a folder written by Scripts/build-docs.sh)" >&2
    exit 64
fi
site=$(cd "$1" && pwd)

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "check-docs-site: installing chromium"
    apt-get update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
    browser=$(command -v chromium)
fi

work=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2> /dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# A port the kernel picks, so parallel runs never collide.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do
    if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2> /dev/null; then break; fi
    sleep 0.2
done

failures=0
# check PATH TEXT...: the page at PATH, once rendered, contains every TEXT.
check() {
    local path=$1 dom
    shift
    # --virtual-time-budget lets the page's scripts run (and the root's redirect happen) before
    # the DOM is dumped; --no-sandbox because CI runs as root.
    dom=$("$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --virtual-time-budget=15000 --dump-dom "http://127.0.0.1:$port$path" 2> "$work/browser.log" || true)
    for text in "$@"; do
        if ! grep -qF -- "$text" <<< "$dom"; then
            echo "check-docs-site: $path does not show \"$text\"" >&2
            failures=$((failures + 1))
        fi
    done
    if grep -qE "page you.re looking for can.t be found" <<< "$dom"; then
        echo "check-docs-site: $path shows \"page not found\"" >&2
        failures=$((failures + 1))
    fi
    echo "check-docs-site: $path rendered ($(wc -c <<< "$dom") bytes of DOM)"
}

check / "Getting started" "Testing with virtual time" "TestScheduler"
check /documentation/schedulers/gettingstarted "Getting started" "The first schedule" "TargetQueueScheduler"
check /documentation/schedulers/testscheduler "TestScheduler" "advance(by:)" "Driving"
check /documentation/disposables/scopedcompounddisposable "ScopedCompoundDisposable" "DisposeBag"

if [ "$failures" -ne 0 ]; then
    echo "check-docs-site: $failures problem(s)" >&2
    exit 1
fi
echo "check-docs-site: every page shows its content"
