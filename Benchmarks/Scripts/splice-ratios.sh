#!/usr/bin/env bash
# Copies the table of Benchmarks/Results/ratios.md into README.md and the Performance article
# (Sources/Schedulers/Schedulers.docc/Performance.md), replacing whatever stands between their
# ratios:begin and ratios:end markers. update-ratios.sh runs it after measuring; run it alone
# after merging a branch that changed ratios.md. `.ci/run` fails when a copy differs.
set -euo pipefail
cd "$(dirname "$0")/.."
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
