#!/usr/bin/env bash
# Checks the install instructions the way a new user follows them: Examples/Client (the complete
# manifest and program README.md shows) is copied into an empty folder, then resolved, built and
# run. Fails if it does not resolve, build, or print what the README says it prints.
#
# The manifest asks for the package by URL, first with the requirement that works today (a
# branch, until a version is tagged), then, commented out, with the one for when the tag is
# published (`from: "0.1.0"`). CI has no network and the tag may not be published yet, so the
# script makes what the URL would serve: a git repository holding this checkout's files
# (committed or not, ignored ones left out) on that branch, with the tag the commented line asks
# for, and points the URL at it. The manifest as written is resolved, built and run; then the
# commented line is put in place of the live one and resolved, so both lines are known to pick
# what they say. SwiftPM clones and picks exactly as it would from the real repository.
#
#   Scripts/check-client-package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

manifest=Examples/Client/Package.swift
placeholder="<the repository's git URL>"
# The live line (not commented out): `branch: "…"` or `from: "…"`.
live=$(grep -E '^ *\.package\(url: "<the repository.s git URL>", (branch|from): "[^"]*"\),' "$manifest" || true)
if [ "$(printf '%s\n' "$live" | grep -c .)" != 1 ]; then
    echo "check-client-package: $manifest needs exactly one live .package(url: \"$placeholder\", branch: or from: …) line" >&2
    exit 1
fi
branch=$(printf '%s\n' "$live" | sed -n 's/.*branch: "\([^"]*\)").*/\1/p')
# The version: the live line's, else the commented-out alternative's.
version=$(sed -n 's|^ *\(// *\)\{0,1\}\.package(url: "<the repository.s git URL>", from: "\([0-9.]*\)").*|\2|p' "$manifest" | head -n 1)
if [ -z "$version" ]; then
    echo "check-client-package: $manifest names no version (from: \"<version>\"), live or commented out" >&2
    exit 1
fi

# What the URL serves: this checkout's files, in a repository of their own, on the branch the
# live line names (main when it names a version), tagged $version.
mkdir "$work/Schedulers"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    if [ -e "$file" ]; then printf '%s\0' "$file"; fi   # a deleted, not yet committed file
done | tar --null -T - -cf - | tar -xf - -C "$work/Schedulers"
git -C "$work/Schedulers" init -q -b "${branch:-main}"
git -C "$work/Schedulers" add -A
git -C "$work/Schedulers" -c user.name=check -c user.email=check@localhost commit -qm "$version"
git -C "$work/Schedulers" tag "$version"

# What SwiftPM pinned for the client in folder $1: "branch <name>" or "version <number>".
pinned() {
    python3 - "$1/Package.resolved" <<'PY'
import json, sys
state = json.load(open(sys.argv[1]))["pins"][0]["state"]
print(f"branch {state['branch']}" if state.get("branch") else f"version {state.get('version')}")
PY
}

# The manifest as written: resolved, built and run.
mkdir "$work/Client"
cp -R Examples/Client/Sources "$work/Client/"
sed "s|\"$placeholder\"|\"file://$work/Schedulers\"|" "$manifest" >"$work/Client/Package.swift"
swift package --package-path "$work/Client" resolve
expected=$(if [ -n "$branch" ]; then echo "branch $branch"; else echo "version $version"; fi)
resolved=$(pinned "$work/Client")
if [ "$resolved" != "$expected" ]; then
    echo "check-client-package: the manifest as written resolved Schedulers to $resolved, not $expected" >&2
    exit 1
fi
swift build --package-path "$work/Client"
output=$("$(swift build --package-path "$work/Client" --show-bin-path)/Client")
if [ "$output" != "The sum is 5050." ]; then
    echo "check-client-package: the client printed '$output', not 'The sum is 5050.'" >&2
    exit 1
fi

# An app links only Schedulers, and nothing in its binary touches what only tests may: it
# defines none of the C library and Dispatch functions that the test-support product defines
# (Sources/VirtualReadings), so production code never reads a clock through ours, and it names
# none of the Swift runtime's hook variables and no symbol of Swift Testing or XCTest, which only
# the test support lends (Sources/Schedulers/Shared/TestSupportLink.swift), so it can install no
# hook and look up no test framework. The same checks on the package's own test binary, which
# links the test-support product, must find them: that proves each check can fail.
interposed() {
    nm --defined-only "$1" | awk '$2 == "T" && $3 ~ /^(clock_gettime|dispatch_.*)$/ { print $3 }'
}
test_only_names() {
    { grep -a -o -E 'swift_task_[A-Za-z]+_hook|[$]s7Testing[A-Za-z0-9_]+|[$]s6XCTest[A-Za-z0-9_]+' "$1" || true; } | sort -u
}
client_binary="$(swift build --package-path "$work/Client" --show-bin-path)/Client"
found=$(interposed "$client_binary")
if [ -n "$found" ]; then
    echo "check-client-package: the client, which links only Schedulers, defines $found" >&2
    exit 1
fi
found=$(test_only_names "$client_binary")
if [ -n "$found" ]; then
    echo "check-client-package: the client, which links only Schedulers, names what only tests may:" >&2
    echo "$found" >&2
    exit 1
fi
tests_binary="$(swift build --show-bin-path)/SchedulersPackageTests.xctest"
if [ -e "$tests_binary" ]; then
    if [ -z "$(interposed "$tests_binary")" ]; then
        echo "check-client-package: the test binary ($tests_binary) defines no clock_gettime: the check above proves nothing" >&2
        exit 1
    fi
    # Read once into a variable: `grep -q` in a pipe would end the pipe early, and pipefail
    # would then take the writer's broken pipe for a miss.
    named=$(test_only_names "$tests_binary")
    for name in swift_task_enqueueGlobal_hook swift_task_getMainExecutor_hook '$s7Testing' '$s6XCTest'; do
        if ! grep -q -F "$name" <<<"$named"; then
            echo "check-client-package: the test binary ($tests_binary) does not name $name: the check above proves nothing" >&2
            exit 1
        fi
    done
fi

# The commented-out `from:` line, in place of a live branch line: resolves to the tag.
if [ -n "$branch" ]; then
    mkdir "$work/Tagged"
    cp -R Examples/Client/Sources "$work/Tagged/"
    sed -e "s|\"$placeholder\"|\"file://$work/Schedulers\"|" \
        -e '/^ *\.package(url: .*, branch: /d' \
        -e 's|^\( *\)// *\(\.package(url: .*, from: \)|\1\2|' "$manifest" >"$work/Tagged/Package.swift"
    swift package --package-path "$work/Tagged" resolve
    tagged=$(pinned "$work/Tagged")
    if [ "$tagged" != "version $version" ]; then
        echo "check-client-package: the commented from: line resolved Schedulers to $tagged, not version $version" >&2
        exit 1
    fi
    echo "check-client-package: the README's client package resolves Schedulers on branch $branch by URL, builds and runs; its from: \"$version\" line resolves the tag"
else
    echo "check-client-package: the README's client package resolves Schedulers $version by URL and version, builds and runs"
fi
