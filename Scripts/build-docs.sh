#!/usr/bin/env bash
# Builds the DocC documentation of both modules as one static site, with the toolchain's own
# `docc` and symbol graphs from SwiftPM: no swift-docc-plugin, so the root package keeps zero
# dependencies. Fails on any documentation warning (an unresolved link, an undocumented
# parameter, a broken article).
#
#   Scripts/build-docs.sh OUTPUT_DIR
#
# OUTPUT_DIR receives a static site: serve the folder with any static web server (e.g.
# `python3 -m http.server --directory OUTPUT_DIR`); its root redirects to the pages at
# /documentation/schedulers (and /documentation/disposables). Set
# DOCS_HOSTING_BASE_PATH when it is served from a sub-path (e.g. "/Schedulers" for GitHub Pages).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTPUT_DIR" >&2
    exit 64
fi
mkdir -p "$1"
output=$(cd "$1" && pwd)   # resolved from the caller's directory, before the cd below
# It will be emptied and refilled: refuse a folder holding anything but an earlier site.
if [ -n "$(ls -A "$output")" ] && { [ ! -f "$output/metadata.json" ] || [ ! -d "$output/documentation" ]; }; then
    echo "build-docs: $output is neither empty nor an earlier documentation site; not overwriting it" >&2
    exit 1
fi

# The toolchain's docc sits next to `swift` (no xcrun on Linux); on macOS ask xcrun.
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
if [ -x "$swift_bin/docc" ]; then
    docc="$swift_bin/docc"
elif command -v xcrun > /dev/null; then
    docc=$(xcrun --find docc)
else
    echo "build-docs: no docc next to $swift_bin/swift" >&2
    exit 1
fi

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Symbol graphs of the public API. On a checkout whose tests were never built, dump-symbol-graph
# writes the library modules' graphs, then exits 1 trying the test modules (Platform notes,
# item 19): trust the files, not the exit status, and fail only if a library graph is missing.
graphs_dir="$(dirname "$(swift build --show-bin-path)")/symbolgraph"
rm -rf "$graphs_dir"
swift package dump-symbol-graph --emit-extension-block-symbols > "$work/dump.log" 2>&1 || true
for module in Disposables Schedulers; do
    if [ ! -f "$graphs_dir/$module.symbols.json" ]; then
        cat "$work/dump.log" >&2
        echo "build-docs: no symbol graph for $module in $graphs_dir" >&2
        exit 1
    fi
    mkdir -p "$work/graphs/$module"
    # The module's own graph, plus its extensions of other modules' types (Module@Other.symbols.json).
    cp "$graphs_dir/$module".symbols.json "$work/graphs/$module/"
    cp "$graphs_dir/$module"@*.symbols.json "$work/graphs/$module/" 2> /dev/null || true
done

hosting=()
if [ -n "${DOCS_HOSTING_BASE_PATH:-}" ]; then
    hosting=(--hosting-base-path "$DOCS_HOSTING_BASE_PATH")
fi

# Disposables first: Schedulers links into it (``/Disposables/Disposable``) through --dependency,
# then docc merge joins the two archives under one landing page.
# --warnings-as-errors makes docc exit non-zero on any warning; the grep is a second guard, since
# a warning is what this script promises never to let through.
convert() {
    local module=$1 status=0
    shift
    "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$work/graphs/$module" \
        --output-path "$work/$module.doccarchive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --enable-experimental-external-link-support \
        --warnings-as-errors ${hosting[@]+"${hosting[@]}"} "$@" > "$work/$module.log" 2>&1 || status=$?
    cat "$work/$module.log"
    if [ "$status" -ne 0 ] || grep -qE '^(warning|error):' "$work/$module.log"; then
        echo "build-docs: docc reported problems for $module (exit $status)" >&2
        exit 1
    fi
}
convert Disposables
convert Schedulers --dependency "$work/Disposables.doccarchive"

rm -rf "$work/site.doccarchive"
"$docc" merge "$work/Disposables.doccarchive" "$work/Schedulers.doccarchive" \
    --synthesized-landing-page-name Schedulers \
    --output-path "$work/site.doccarchive"
# Replace OUTPUT_DIR's contents, not OUTPUT_DIR itself (it may be a mount or a served folder).
if [ -n "$(ls -A "$output")" ]; then
    find "$output" -mindepth 1 -delete
fi
cp -R "$work/site.doccarchive/." "$output/"

# Code listings: DocC neither wraps nor visibly scrolls a line wider than its column (about 78
# characters), so the end of a long line is lost. Every page is a copy of one HTML shell; give
# each a rule that wraps such lines instead. (DocumentationSnippetTests also keeps the lines of
# every snippet short, so that wrapping stays rare.)
wrap_code='<style>pre, pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; }</style>'
find "$output" -name '*.html' -exec sed -i.orig "s#</head>#${wrap_code}</head>#" {} +
find "$output" -name '*.html.orig' -delete

# The site's root: DocC serves its pages under documentation/, and its own root page says "page
# not found". Send readers to the Schedulers module's page (relative, so that a
# DOCS_HOSTING_BASE_PATH keeps working).
cat > "$output/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Schedulers documentation</title>
<meta http-equiv="refresh" content="0; url=documentation/schedulers/">
</head>
<body>
<p>The documentation is at <a href="documentation/schedulers/">documentation/schedulers</a>.</p>
</body>
</html>
HTML
echo "build-docs: 0 warnings; site written to $output"
