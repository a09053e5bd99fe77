#!/usr/bin/env python3
"""Time as users measure it: wall clock, CPU (user and system) and context switches per unit of
work, for ActorPromise against its peer in the same run (SwiftNIO; Dispatch for W7).

Each workload runs in its own process (`Measure WORKLOAD LIBRARY N`, the harness compare.sh uses)
at two sizes; the difference divided by the extra units cancels start-up, as compare.sh does for
instructions. Runs are paired — ActorPromise, then its peer, then again — and the table shows the
median over the pairs with its min-max; the ratio is the median of the per-pair ratios.

  Benchmarks/wallclock.py                 # all workloads, 5 pairs
  PAIRS=7 Benchmarks/wallclock.py w2 w3   # some workloads, more pairs
"""
import os, resource, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = int(os.environ.get("PAIRS", "5"))
# workload: (peer, units per iteration, small, large, unit name)
WORKLOADS = {
    "w1": ("nio", 100, 2_000, 12_000, "link"),
    "w2": ("nio", 1_000, 100, 600, "handler"),
    "w3": ("nio", 1, 20_000, 120_000, "promise"),
    "w4": ("nio", 10_000, 5, 30, "input"),
    "w7": ("dispatch", 1, 20_000, 120_000, "hop"),
}
FIELDS = ("wall", "user", "sys", "vcsw", "ivcsw")


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", "Measure"], cwd=HERE, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(HERE, ".build", "release", "Measure")


def run(binary, workload, library, iterations):
    """Wall seconds, user and system seconds, voluntary and involuntary switches of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([binary, workload, library, str(iterations)], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": wall, "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime,
            "vcsw": after.ru_nvcsw - before.ru_nvcsw, "ivcsw": after.ru_nivcsw - before.ru_nivcsw}


def per_unit(binary, workload, library):
    peer, units, small, large, _ = WORKLOADS[workload]
    a = run(binary, workload, library, small)
    b = run(binary, workload, library, large)
    extra = (large - small) * units
    return {field: (b[field] - a[field]) / extra for field in FIELDS}


def fmt(field, value):
    if field in ("wall", "user", "sys"):
        return f"{value * 1e9:,.0f} ns"
    return f"{value:.3f}"


def main():
    chosen = sys.argv[1:] or list(WORKLOADS)
    binary = build()
    print(f"per unit of work, median of {PAIRS} paired runs (min-max); ratio = ActorPromise / peer, median of the pairs")
    print(f"{'workload':10} {'measure':6} {'ActorPromise':>26} {'peer':>26} {'ratio':>7}")
    for workload in chosen:
        peer, _, _, _, unit = WORKLOADS[workload]
        ours, theirs = [], []
        for _ in range(PAIRS):
            ours.append(per_unit(binary, workload, "actorpromise"))
            theirs.append(per_unit(binary, workload, peer))
        for field in FIELDS:
            a = [r[field] for r in ours]
            b = [r[field] for r in theirs]
            # A ratio over a peer figure near zero (NIO makes no system call per W2 handler) says
            # nothing: shown as n/a, the two columns tell the story.
            floor = 10e-9 if field in ("wall", "user", "sys") else 0.01
            ratios = [x / y for x, y in zip(a, b) if y > floor]
            ratio = f"{statistics.median(ratios):.2f}x" if statistics.median(b) > floor and ratios else "n/a"
            cell = lambda v: f"{fmt(field, statistics.median(v))} ({fmt(field, min(v))}-{fmt(field, max(v))})"
            print(f"{workload + '/' + unit:10} {field:6} {cell(a):>26} {cell(b):>26} {ratio:>7}   vs {peer}")


if __name__ == "__main__":
    main()
