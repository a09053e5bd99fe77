#!/usr/bin/env bash
# Pool contention: 1, 2, 4 and 8 producer threads submit tiny jobs to a pool, for ActorPromise's
# WorkerPool, DispatchQueue.global() and a SwiftNIO event-loop group (one queue per thread).
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
printf '%-10s %14s %14s %14s   (median ns per job of %s runs, %s jobs each)\n' producers WorkerPool dispatch NIO-loops "$RUNS" "$JOBS"
for producers in 1 2 4 8; do
    row=()
    for library in actorpromise dispatch nio; do
        samples=()
        for _ in $(seq "$RUNS"); do samples+=("$(.build/release/Measure "pool$producers" "$library" "$JOBS")"); done
        row+=("$(printf '%s\n' "${samples[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')")
    done
    printf '%-10s %14s %14s %14s\n' "$producers" "${row[@]}"
done
