#!/usr/bin/env bash
# Checks the install instructions the way a new user follows them: Examples/Client (the complete
# manifest and program README.md shows) is copied into an empty folder, then resolved, built and
# run. Fails if it does not resolve, build, or print what the README says it prints.
#
# The manifest asks for the package by URL and version (`from: "0.1.0"`). CI has no network and
# the tag may not be published yet, so the script makes what the URL would serve: a git
# repository holding this checkout's files (committed or not, ignored ones left out) with the tag
# the manifest asks for, and points the URL at it. SwiftPM then clones it and picks the version
# exactly as it would from the real repository.
#
#   Scripts/check-client-package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

manifest=Examples/Client/Package.swift
placeholder="<the repository's git URL>"
version=$(sed -n 's/.*\.package(url: "<the repository.s git URL>", from: "\([0-9.]*\)").*/\1/p' "$manifest")
if [ -z "$version" ]; then
    echo "check-client-package: $manifest has no .package(url: \"$placeholder\", from: \"<version>\") line" >&2
    exit 1
fi

# What the URL serves: this checkout's files, in a repository of their own, tagged $version.
mkdir "$work/Schedulers"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    if [ -e "$file" ]; then printf '%s\0' "$file"; fi   # a deleted, not yet committed file
done | tar --null -T - -cf - | tar -xf - -C "$work/Schedulers"
git -C "$work/Schedulers" init -q
git -C "$work/Schedulers" add -A
git -C "$work/Schedulers" -c user.name=check -c user.email=check@localhost commit -qm "$version"
git -C "$work/Schedulers" tag "$version"

mkdir "$work/Client"
cp -R "$manifest" Examples/Client/Sources "$work/Client/"
sed "s|\"$placeholder\"|\"file://$work/Schedulers\"|" "$manifest" >"$work/Client/Package.swift"

swift package --package-path "$work/Client" resolve
resolved=$(swift package --package-path "$work/Client" show-dependencies --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["dependencies"][0]["version"])')
if [ "$resolved" != "$version" ]; then
    echo "check-client-package: resolved Schedulers $resolved, not the tagged $version" >&2
    exit 1
fi
swift build --package-path "$work/Client"
output=$("$(swift build --package-path "$work/Client" --show-bin-path)/Client")
if [ "$output" != "The sum is 5050." ]; then
    echo "check-client-package: the client printed '$output', not 'The sum is 5050.'" >&2
    exit 1
fi
echo "check-client-package: the README's client package resolves Schedulers $resolved by URL and version, builds and runs"
