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

# Splice the table into the README and the Performance article, replacing whatever stood
# between the markers.
python3 - Results/ratios.md ../README.md ../Sources/Schedulers/Schedulers.docc/Performance.md <<'PY'
import re, sys
table = open(sys.argv[1]).read().split("\n", 1)[1].strip()  # drop the generated-file comment
pattern = re.compile(r"(<!-- ratios:begin[^>]*-->\n).*?(<!-- ratios:end -->)", re.S)
for path in sys.argv[2:]:
    text = open(path).read()
    if not pattern.search(text):
        sys.exit(f"{path} has no ratios:begin/ratios:end markers")
    open(path, "w").write(pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text))
PY
echo "Spliced the table into README.md and Performance.md"
