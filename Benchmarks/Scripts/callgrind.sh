#!/usr/bin/env bash
# Instructions per action, counted by callgrind, for every workload of the ratio table that has
# one in the `workload` executable (update-ratios.sh writes them to Results/instructions.md, and
# the table shows them beside each row): each workload runs once at SMALL and once at LARGE
# operations in its own process, and the difference of the two totals over the difference of
# the counts is the cost of one action, start-up excluded. callgrind runs threads one at a time, so this counts
# work, not contention: the 2-producer wall-clock ratio is in ratios.md.
#
# How the producer and queue threads take turns still moves a queue workload's count by up to
# ~25 % from one process to the next (mostly in malloc: how often glibc consolidates its free
# chunks), for raw GCD as much as for ours, so each workload is measured ROUNDS times (default
# 3) and the row gives the lowest and the highest figure. Compare the lowest figures.
#
# A workload written NAME/COUNT runs at COUNT and 3 x COUNT operations instead (the task
# workloads, whose 150,000 tasks would take minutes under callgrind). A NAME ending in -in-tests
# runs NAME without it in the `workload-in-tests` executable (captured-task-in-tests/5000). Both
# executables link SchedulersTestSupport now, as every capture needs it (Package.swift): the
# "-in-tests" rows are kept so that their history reads on.
#
# A workload written NAME@COUNT is counted differently: one process at COUNT operations, counting
# only inside the workload executable's `measuredRound` (callgrind's --toggle-collect), divided by
# COUNT. That is the cost at that size (a heap's grows with its depth), with the preparation of
# the input left out; single-threaded workloads only (the TestScheduler rows).
#
#   Benchmarks/Scripts/callgrind.sh [PACKAGE_DIR] [WORKLOAD...]
#
# PACKAGE_DIR (default: this Benchmarks package) lets the same workloads run against another
# checkout of the library, e.g. an earlier commit exported next to a copy of this package.
# Prints one markdown row per workload. Needs valgrind.
set -euo pipefail
package="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
shift || true
workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then
  # Every workload the ratio table (ratios.md) shows a count for.
  workloads=(serial-raw serial-ours serial-opencombine serial-nio
             serial2-raw serial2-ours serial2-opencombine serial2-nio
             recursion-raw recursion-ours recursion-nio recursion-immediate-ours recursion-immediate-loop
             immediate-schedule direct-call current-read thread-dictionary
             current-identity-main current-identity-action is-current-main is-current-action
             current-pthread-getspecific)
  for size in 10000 100000 1000000; do
    workloads+=(virtual-ours@$size virtual-heap@$size virtual-collections-heap@$size)
  done
  workloads+=(virtual-equal-ours@10000 virtual-equal-heap@10000 virtual-equal-collections-heap@10000)
  workloads+=(compound-ours@10000 compound-dict@10000 compound-ours@100000 compound-dict@100000)
  workloads+=(captured-task/5000 preferring-task/5000 plain-task/5000)
  workloads+=(captured-task-in-tests/5000 preferring-task-in-tests/5000)
fi
small=50000
large=150000

swift build --package-path "$package" -c release --product workload >&2
swift build --package-path "$package" -c release --product workload-in-tests >&2
bin="$(swift build --package-path "$package" -c release --show-bin-path)"
# valgrind cannot read the DWARF the toolchain writes; the symbol table is enough to count.
stripped="$(mktemp)"
in_tests="$(mktemp)"
trap 'rm -f "$stripped" "$stripped".out "$in_tests" "$in_tests".out' EXIT
objcopy --strip-debug "$bin/workload" "$stripped"
objcopy --strip-debug "$bin/workload-in-tests" "$in_tests"

# Total instructions of workload $1 at count $2, in the executable $3 (default: `workload`).
instructions() {
  local executable="${3:-$stripped}"
  valgrind --tool=callgrind --callgrind-out-file="$executable.out" "$executable" "$1" "$2" 2>&1 >/dev/null \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# Instructions inside `measuredRound` alone.
round_instructions() {
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRound*' \
    --callgrind-out-file="$stripped.out" "$stripped" "$1" "$2" 2>&1 >/dev/null \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

rounds="${ROUNDS:-3}"
echo "| Workload | Instructions per action, lowest of $rounds | Highest |"
echo "|---|---:|---:|"
for workload in "${workloads[@]}"; do
  name="${workload%@*}"
  executable="$stripped"
  case "${name%/*}" in *-in-tests) executable="$in_tests" ;; esac
  probe="${name%/*}"
  if ! "$executable" "${probe%-in-tests}" 1 >/dev/null 2>&1; then continue; fi
  lowest=""; highest=""
  if [ "$name" != "$workload" ]; then
    # Single-threaded and deterministic: one round is enough.
    count="${workload#*@}"
    per=$(( $(round_instructions "$name" "$count") / count ))
    echo "| $workload | $per | $per |"
    continue
  fi
  name="${workload%/*}"
  low=$small; high=$large
  if [ "$name" != "$workload" ]; then low="${workload#*/}"; high=$((3 * low)); fi
  name="${name%-in-tests}"
  for _ in $(seq "$rounds"); do
    a=$(instructions "$name" $low "$executable")
    b=$(instructions "$name" $high "$executable")
    per=$(( (b - a) / (high - low) ))
    if [ -z "$lowest" ] || [ "$per" -lt "$lowest" ]; then lowest=$per; fi
    if [ -z "$highest" ] || [ "$per" -gt "$highest" ]; then highest=$per; fi
  done
  echo "| $workload | $lowest | $highest |"
done
