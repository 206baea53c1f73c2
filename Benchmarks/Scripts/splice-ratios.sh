#!/usr/bin/env bash
# Copies the benchmark figures of Benchmarks/Results/ratios.md into the pages that show them:
# - the whole table into the Performance article (Sources/Schedulers/Schedulers.docc/
#   Performance.md), between its ratios:begin and ratios:end markers;
# - a headline table (a few rows, medians only, one comparison each) into README.md, between its
#   headline:begin and headline:end markers.
# update-ratios.sh runs it after measuring; run it alone after merging a branch that changed
# ratios.md. With --check it writes nothing and fails when a page differs from what it would
# write (`.ci/run` runs that).
#
#   Benchmarks/Scripts/splice-ratios.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "${1:-}" Results/ratios.md ../README.md ../Sources/Schedulers/Schedulers.docc/Performance.md <<'PY'
import re, sys
check, ratios, readme, performance = sys.argv[1] == "--check", *sys.argv[2:]
table = open(ratios).read().split("\n", 1)[1].strip()  # drop the generated-file comment

# The README's rows, and what each is compared with: the limit, or a reference's column.
HEADLINE = [
    ("Serial queue 1M, 1 producer", "Limit"),
    ("Scheduler.current read", "Limit"),
    ("TestScheduler 100k", "swift-collections Heap"),
    ("scheduleRecursive 1M, serial queue", "Limit"),
    ("Async debounce (async-algorithms), 6 inputs", "Limit"),
    ("@MainActor view-model debounce, synchronous shape", "Limit"),
]

def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]

lines = [line for line in table.splitlines() if line.startswith("|")]
header = cells(lines[0])
rows = {row[0]: dict(zip(header, row)) for row in map(cells, lines[2:])}
machine = next((line for line in table.splitlines() if line.startswith("Machine:")), "")

def median(figure):
    return figure.split(" (")[0]

def ratio(shown, ours, theirs):
    # The table's own ratio (of the unrounded medians), unless it rounds to a few hundredths:
    # then two significant digits of the medians shown.
    if float(shown.rstrip("×")) >= 0.1:
        return shown
    return f"{float(ours) / float(theirs):.2g}×"

headline = [
    "| Workload | Ours | Compared with | Theirs | Ours ÷ theirs |",
    "|---|---:|---|---:|---:|",
]
for workload, against in HEADLINE:
    if workload not in rows:
        sys.exit(f"splice-ratios: {ratios} has no row '{workload}' for the README's headline table")
    row = rows[workload]
    unit = row["Unit"]
    ours = median(row["Ours"])
    if against == "Limit":
        name, theirs, shown = row["Limit"], median(row["Limit figure"]), median(row["Ours ÷ limit"])
    else:
        name, theirs, shown = against, median(row[against]), median(row[f"Ours ÷ {against}"])
    headline.append(f"| {workload} | {ours} {unit} | {name} | {theirs} {unit} | {ratio(shown, ours, theirs)} |")
headline.append("")
headline.append(
    "Medians per operation of rounds run in turn in one process (ours, the other, ours, …) on "
    + machine.removeprefix("Machine: ").rstrip(".") + ".")
headline = "\n".join(headline)

def splice(path, name, content):
    text = open(path).read()
    pattern = re.compile(rf"(<!-- {name}:begin[^>]*-->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        sys.exit(f"splice-ratios: {path} has no {name}:begin/{name}:end markers")
    new = pattern.sub(lambda m: m.group(1) + content + "\n" + m.group(2), text)
    if check:
        return new == text
    open(path, "w").write(new)
    return True

stale = [path for path, name, content in [(performance, "ratios", table), (readme, "headline", headline)]
         if not splice(path, name, content)]
if stale:
    sys.exit("splice-ratios: " + ", ".join(path.removeprefix("../") for path in stale) + " differ from Benchmarks/Results/ratios.md: "
             "run Benchmarks/Scripts/splice-ratios.sh")
print("splice-ratios: " + ("README.md and Performance.md match" if check
                           else "spliced the table into Performance.md and its headline into README.md"))
PY
