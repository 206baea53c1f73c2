#!/usr/bin/env bash
# Regenerates Benchmarks/Results/ratios.md and ratios.svg: builds the `ratios` executable in
# release and runs every workload interleaved with its limit. Takes about a minute after the
# build. Run it on an otherwise idle machine; commit both files; never edit them by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ratios
"$(swift build -c release --show-bin-path)/ratios" Results
