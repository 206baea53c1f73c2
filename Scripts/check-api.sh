#!/usr/bin/env bash
# The public API does not change by accident. Compares the public surface of the Schedulers and
# Disposables modules, as `swift build` just built them, with the committed baseline in API/
# (API/Schedulers.json, API/Disposables.json: the toolchain's `swift-api-digester -dump-sdk`,
# with `@_spi` and `package` declarations and imports left out). CONTRIBUTING.md, "The public API", says why
# this tool and gives the rule in full.
#
#   Scripts/check-api.sh               fails (exit 1) when a declaration of the baseline was
#                                      removed or changed, unless CHANGELOG.md's Unreleased
#                                      section names it; additions never fail
#   Scripts/check-api.sh --record      rewrites API/*.json from the current build (after a
#                                      release, or after merging a change that adds API)
#   Scripts/check-api.sh --self-test   proves the check can fail: breaks a copy of the baseline
#                                      in four ways and expects the verdict each one deserves
#
# Each mode builds first (`swift build --target Schedulers`, a no-op right after CI's own build).
# Environment, for the self-test: API_BASELINE_DIR (default API), API_CHANGELOG (default
# CHANGELOG.md), API_SKIP_BUILD=1 (use the build that is there).
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Disposables Schedulers)
baseline_dir=${API_BASELINE_DIR:-API}
changelog=${API_CHANGELOG:-CHANGELOG.md}
mode=${1:-check}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The build the dump reads: the debug build of the library targets.
build() {
    if [ -n "${API_SKIP_BUILD:-}" ]; then bin=$(swift build --show-bin-path); return; fi
    swift build --target Schedulers >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
    bin=$(swift build --show-bin-path)
}

# dump MODULE OUT: the module's public API as JSON, without @_spi and `package` declarations
# (not API: see CONTRIBUTING.md) and without imports (they differ between Linux and Apple
# platforms and between the plain and the portable build, and are not API either).
dump() {
    swift-api-digester -dump-sdk -module "$1" -o "$work/raw-$1.json" \
        -I "$bin/Modules" -I "$bin/CurrentSchedulerSlot.build" \
        -module-cache-path "$work/module-cache" -avoid-location -avoid-tool-args
    python3 - "$work/raw-$1.json" "$2" "$1" <<'PY'
import json, sys
source, target, module = sys.argv[1:]
root = json.load(open(source))["ABIRoot"]
if root.get("name") != module or not root.get("children"):
    sys.exit(f"check-api: swift-api-digester could not load module {module}")
# Left out: imports, @_spi declarations, and `package` ones (the digester marks them isInternal:
# they are visible to this package's own modules and tests only).
def keep(node):
    return node.get("kind") != "Import" and not node.get("spi_group_names") and not node.get("isInternal")
def clean(node):
    for key in ("children", "accessors"):
        if key in node:
            node[key] = [clean(child) for child in node[key] if keep(child)]
    return node
json.dump({"ABIRoot": clean(root)}, open(target, "w"), indent=2, sort_keys=True)
open(target, "a").write("\n")
PY
}

# unreleased: the text of CHANGELOG.md's "## [Unreleased]" section, up to the next "## [".
unreleased() {
    awk '/^## \[Unreleased\]/ { inside = 1; next } /^## \[/ { inside = 0 } inside' "$changelog"
}

# compare BASELINE_DIR CURRENT_DIR: prints each break, and returns 1 if one is not announced.
compare() {
    local status=0 module line symbol
    local notes
    notes=$(unreleased)
    for module in "${modules[@]}"; do
        swift-api-digester -diagnose-sdk -input-paths "$1/$module.json" -input-paths "$2/$module.json" \
            >"$work/diagnose-$module.txt" 2>&1
        # The digester prints section headers (/* … */) and one line per break:
        # "<kind> <symbol> <what happened>", e.g. "Func TestScheduler.advance(by:) has been removed".
        while IFS= read -r line; do
            symbol=$(awk '{ print $2 }' <<<"$line")
            if grep -qF "\`$symbol\`" <<<"$notes"; then
                echo "check-api: $module: $line (announced in $changelog)"
            else
                echo "check-api: $module: $line" >&2
                echo "  not announced: name \`$symbol\` in the ## [Unreleased] section of $changelog," >&2
                echo "  or restore it (a deprecated forwarding declaration keeps old callers working)." >&2
                status=1
            fi
        done < <(grep -v -e '^\s*$' -e '^/\*' "$work/diagnose-$module.txt")
    done
    return $status
}

case "$mode" in
--record)
    build
    mkdir -p "$baseline_dir"
    for module in "${modules[@]}"; do dump "$module" "$baseline_dir/$module.json"; done
    echo "check-api: recorded the public API of ${modules[*]} in $baseline_dir/ from the current build"
    ;;
check)
    build
    mkdir -p "$work/current"
    for module in "${modules[@]}"; do
        [ -f "$baseline_dir/$module.json" ] || { echo "check-api: no baseline $baseline_dir/$module.json: run Scripts/check-api.sh --record" >&2; exit 1; }
        dump "$module" "$work/current/$module.json"
    done
    if compare "$baseline_dir" "$work/current"; then
        echo "check-api: the public API of ${modules[*]} keeps every declaration of the baseline ($baseline_dir)"
    else
        exit 1
    fi
    ;;
--self-test)
    # Each case breaks a copy of the baseline (never the committed one) and runs the real check
    # against the current build: a declaration the baseline has and the build lacks is a removal,
    # one whose type differs is a change. The last case edits a copy of the changelog.
    build
    fails=0
    expect() {  # expect EXIT-STATUS NAME TEXT-THE-OUTPUT-MUST-CONTAIN
        local got=0
        API_SKIP_BUILD=1 API_BASELINE_DIR="$work/baseline" API_CHANGELOG="$work/CHANGELOG.md" "$0" >"$work/out.txt" 2>&1 || got=$?
        if [ "$got" != "$1" ] || ! grep -qF -- "$3" "$work/out.txt"; then
            echo "check-api self-test: FAILED: $2: expected exit $1 and '$3', got exit $got:" >&2
            sed 's/^/    /' "$work/out.txt" >&2
            fails=$((fails + 1))
        else
            echo "check-api self-test: ok: $2 (exit $got)"
        fi
    }
    reset() {
        rm -rf "$work/baseline"
        cp -R "$baseline_dir" "$work/baseline"
        cp "$changelog" "$work/CHANGELOG.md"
    }
    edit() {  # edit MODULE PYTHON-STATEMENTS (on `root`, the module's ABIRoot)
        python3 - "$work/baseline/$1.json" "$2" <<'PY'
import json, sys
path, statements = sys.argv[1:]
document = json.load(open(path))
root = document["ABIRoot"]
def find(node, *names):
    for name in names:
        node = next(child for child in node["children"] if child.get("printedName") == name)
    return node
exec(statements)
json.dump(document, open(path, "w"), indent=2, sort_keys=True)
PY
    }

    reset
    expect 0 "the unchanged baseline passes" "keeps every declaration"

    reset   # a method the build lacks: Bag.removeAll() gets a twin named removeEverything()
    edit Disposables '
bag = find(root, "Bag")
twin = json.loads(json.dumps(find(bag, "removeAll()")))
twin["name"], twin["printedName"] = "removeEverything", "removeEverything()"
twin["usr"] = twin["usr"].replace("removeAll", "removeEverything")
twin["mangledName"] = twin["mangledName"].replace("removeAll", "removeEverything")
bag["children"].append(twin)'
    expect 1 "a removed method fails" 'Func Bag.removeEverything() has been removed'

    reset   # a changed signature: the baseline's TestScheduler.advance(by:) took a Double
    edit Schedulers '
advance = find(root, "TestScheduler", "advance(by:)")
parameter = advance["children"][1]
assert parameter["printedName"] in ("Foundation.TimeInterval", "Swift.Double"), parameter
parameter.clear()
parameter.update({"kind": "TypeNominal", "name": "Int", "printedName": "Swift.Int", "usr": "s:Si"})'
    expect 1 "a changed parameter type fails" 'TestScheduler.advance(by:)'

    # The same break, announced in the Unreleased section, passes.
    awk '{ print } /^## \[Unreleased\]/ { print ""; print "- Changed: `TestScheduler.advance(by:)` (self-test)." }' \
        "$changelog" >"$work/CHANGELOG.md"
    expect 0 "an announced change passes" 'announced in'

    reset   # an addition: the baseline lacks Bag.removeAll(), which the build has
    edit Disposables '
bag = find(root, "Bag")
bag["children"].remove(find(bag, "removeAll()"))'
    expect 0 "an addition passes" "keeps every declaration"

    [ "$fails" = 0 ] || exit 1
    echo "check-api self-test: the check fails on a removal and on a changed signature, and passes otherwise"
    ;;
*)
    echo "usage: Scripts/check-api.sh [--record | --self-test]" >&2
    exit 2
    ;;
esac
