#!/usr/bin/env bash
# Pool contention: 1, 2, 4 and 8 producer threads submit tiny jobs to a pool, for ActorPromise's
# WorkerPool, DispatchQueue.global() and a SwiftNIO event-loop group (one queue per thread); then
# the same producers making fan-outs of one and of two children (the second takes the adoption lock).
# Wall clock, so RUNS runs each and the median; on a shared 2-core machine compare within a run,
# never across runs.
#
#   Benchmarks/contention.sh            # 200,000 jobs per run, 5 runs
#   JOBS=50000 RUNS=3 contention.sh
set -euo pipefail
cd "$(dirname "$0")"
JOBS=${JOBS:-200000}
RUNS=${RUNS:-5}
swift build -c release --product Measure >/dev/null
# median WORKLOAD LIBRARY: the median of RUNS runs of one Measure workload.
median() {
    for _ in $(seq "$RUNS"); do .build/release/Measure "$1" "$2" "$JOBS"; done | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
printf '%-10s %14s %14s %14s   (median ns per job of %s runs, %s jobs each)\n' producers WorkerPool dispatch NIO-loops "$RUNS" "$JOBS"
for producers in 1 2 4 8; do
    row=()
    for library in actorpromise dispatch nio; do row+=("$(median "pool$producers" "$library")"); done
    printf '%-10s %14s %14s %14s\n' "$producers" "${row[@]}"
done

# Fan-outs: producer threads each make pending roots with one or with two inline children. A
# root's second child stores its side object under the process-wide adoption lock; one child
# takes no lock. Compare the two columns within a row, and how their gap moves with producers.
printf '\n%-10s %14s %14s   (median ns per root of %s runs, %s roots each)\n' producers "1 child" "2 children" "$RUNS" "$JOBS"
for producers in 1 2 4 8; do
    row=()
    for children in 1 2; do row+=("$(median "fan$producers" "$children")"); done
    printf '%-10s %14s %14s\n' "$producers" "${row[@]}"
done
