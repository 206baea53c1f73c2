#!/usr/bin/env bash
# Checks the install instructions the way a new user follows them: Examples/Client (the complete
# manifest and program README.md shows) is copied into an empty folder next to this checkout,
# seen there as ../Schedulers, then resolved, built and run. Fails if it does not resolve, build,
# or print what the README says it prints.
#
#   Scripts/check-client-package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ln -s "$repo" "$work/Schedulers"
mkdir "$work/Client"
cp -R Examples/Client/Package.swift Examples/Client/Sources "$work/Client/"

swift package --package-path "$work/Client" resolve
swift build --package-path "$work/Client"
output=$("$(swift build --package-path "$work/Client" --show-bin-path)/Client")
if [ "$output" != "The sum is 5050." ]; then
    echo "check-client-package: the client printed '$output', not 'The sum is 5050.'" >&2
    exit 1
fi
echo "check-client-package: the README's client package resolves, builds and runs"
