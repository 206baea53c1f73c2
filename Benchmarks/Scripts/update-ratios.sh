#!/usr/bin/env bash
# Regenerates Benchmarks/Results/ratios.md and ratios.svg, and the copies of the table in the
# repository's README.md and the Performance article (between the ratios:begin and ratios:end
# markers): builds the `ratios`
# executable in release and runs every workload interleaved with its limit. Takes a few minutes
# after the build. Run it on an otherwise idle machine; commit the results; never edit them by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ratios
"$(swift build -c release --show-bin-path)/ratios" Results

Scripts/splice-ratios.sh
