#!/usr/bin/env python3
"""Time as users measure it: wall clock, CPU (user and system, and their sum) and context switches
(voluntary and involuntary) per unit of work, for ActorPromise and its peers in the same run:
SwiftNIO for the promise workloads, `DispatchQueue` for the serial hop, continuations for awaits.

Each workload runs in its own process (`Measure WORKLOAD LIBRARY N`, the harness compare.sh uses)
at two sizes; the difference divided by the extra units cancels start-up, as compare.sh does for
instructions. Runs are paired — ActorPromise, then each peer, then again — and the table shows the
median over the pairs with its min-max; a ratio is the median of the per-pair ratios. Rows with a
bar (Benchmarks/README.md) say whether the median ratio meets it. W6 (memory) is not a time: see
compare.sh.

  Benchmarks/wallclock.py                 # every workload, 5 pairs
  PAIRS=7 Benchmarks/wallclock.py w2 w3   # some workloads, more pairs
"""
import os, resource, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = int(os.environ.get("PAIRS", "5"))
# workload: (peers, units per iteration, small, large, unit name)
WORKLOADS = {
    "w1": (("nio",), 100, 2_000, 12_000, "link"),
    # W1 in NIO's shape: each chain built and fulfilled inside a job on the pool, as NIO's is
    # built inside `loop.execute` (information, no bar: see Benchmarks/README.md).
    "w1p": (("nio",), 100, 2_000, 12_000, "link"),
    # W1 against NIO in W1's shape: NIO's chain built by the caller, off the loop (information).
    "w1c": (("nio",), 100, 2_000, 12_000, "link"),
    "w2": (("nio", "nio-map"), 1_000, 100, 600, "handler"),
    "w2p": (("nio", "nio-map"), 1_000, 100, 600, "handler"),
    # W2 with `whenComplete` callbacks, which derive nothing, as NIO's `whenSuccess` reference does.
    "w2c": (("nio",), 1_000, 100, 600, "handler"),
    # W2c in NIO's shape: registered and fulfilled inside a pool job (information).
    "w2cp": (("nio",), 1_000, 100, 600, "handler"),
    "w3": (("nio",), 1, 20_000, 120_000, "promise"),
    "w4": (("nio",), 10_000, 5, 30, "input"),
    "w5": (("checked-continuation",), 1, 1_000_000, 6_000_000, "await"),
    "w5x": (("nio", "checked-continuation"), 1, 10_000, 60_000, "await"),
    "w7": (("dispatch",), 1, 20_000, 120_000, "hop"),
    # A hop to a RunLoopThread, a main-like thread that sleeps between jobs (information, no bar).
    "w7r": (("dispatch",), 1, 20_000, 120_000, "hop"),
    # Against plain Swift concurrency: a value made on DispatchQueue.global() and awaited, the
    # promise made with pending() (rt) or a body (rtb), awaited from a task (rt, rtb) or the main
    # actor (rtm, rtbm); the first peer, a checked continuation inside a cancellation handler, is
    # the bar's reference.
    "rt": (("checked-cancellable", "unsafe-cancellable", "checked", "unsafe"), 1, 20_000, 120_000, "await"),
    "rtb": (("checked-cancellable", "unsafe-cancellable", "checked", "unsafe"), 1, 20_000, 120_000, "await"),
    "rtm": (("checked-cancellable", "unsafe-cancellable", "checked", "unsafe"), 1, 10_000, 60_000, "await"),
    "rtbm": (("checked-cancellable", "unsafe-cancellable", "checked", "unsafe"), 1, 10_000, 60_000, "await"),
    # 1,000 values fanned in (then + all, against a TaskGroup) and 1,000 sequential steps (a then
    # chain, against awaited calls alternating between two actors): information, no bar.
    "fanin": (("taskgroup",), 1_000, 20, 120, "value"),
    "seq": (("actors",), 1_000, 200, 1_200, "step"),
    # The unit of wheretime.py's atomic counts: one uncontended atomic read-modify-write, against
    # a load and a store of the same word (information: the machine, not the library).
    "rmw": (("plain",), 1, 10_000_000, 60_000_000, "operation"),
}
FIELDS = ("wall", "cpu", "user", "sys", "vcsw", "ivcsw")
TIMES = ("wall", "cpu", "user", "sys")
# The bars on whole-process time (Benchmarks/README.md, "The budgets"): ratio to the
# first peer, for wall clock and CPU.
BARS = {"w1": 1.0, "w2": 1.5, "w3": 1.0, "w7": 1.0, "rt": 1.1, "rtb": 1.1, "rtm": 1.1, "rtbm": 1.1}


# The rows against plain Swift concurrency, which MeasureConcurrency runs.
CONCURRENCY = {"rt", "rtb", "rtm", "rtbm", "fanin", "seq"}


def build():
    for product in ("Measure", "MeasureConcurrency"):
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=HERE, check=True,
                       stdout=subprocess.DEVNULL)
    return os.path.join(HERE, ".build", "release", "Measure")


def run(binary, workload, library, iterations):
    """Wall seconds, user and system seconds, voluntary and involuntary switches of one run."""
    if workload in CONCURRENCY:
        binary = os.path.join(os.path.dirname(binary), "MeasureConcurrency")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([binary, workload, library, str(iterations)], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {"wall": wall, "user": user, "sys": system, "cpu": user + system,
            "vcsw": after.ru_nvcsw - before.ru_nvcsw, "ivcsw": after.ru_nivcsw - before.ru_nivcsw}


def per_unit(binary, workload, library, small=None, large=None):
    """Every field per unit of work: the difference of two sizes over the extra units."""
    _, units, default_small, default_large, _ = WORKLOADS[workload]
    small, large = small or default_small, large or default_large
    a = run(binary, workload, library, small)
    b = run(binary, workload, library, large)
    extra = (large - small) * units
    return {field: (b[field] - a[field]) / extra for field in FIELDS}


def fmt(field, value):
    if field in TIMES:
        return f"{value * 1e9:,.0f} ns"
    return f"{value:.3f}"


def cell(field, values):
    return f"{fmt(field, statistics.median(values))} ({fmt(field, min(values))}-{fmt(field, max(values))})"


def ratio(field, ours, theirs):
    """Median of the per-pair ratios; n/a over a peer figure near zero (NIO makes no system call
    per W2 handler), where a ratio says nothing and the two columns tell the story."""
    floor = 10e-9 if field in TIMES else 0.01
    ratios = [x / y for x, y in zip(ours, theirs) if y > floor]
    if statistics.median(theirs) <= floor or not ratios:
        return None
    return statistics.median(ratios)


def main():
    chosen = sys.argv[1:] or list(WORKLOADS)
    binary = build()
    print(f"per unit of work, median of {PAIRS} paired runs (min-max); ratio = ActorPromise / peer, median of the pairs")
    print(f"{'workload':12} {'measure':6} {'ActorPromise':>28} {'peer':>34} {'ratio':>7}  bar")
    verdicts = []
    for workload in chosen:
        peers, _, _, _, unit = WORKLOADS[workload]
        ours, theirs = [], {peer: [] for peer in peers}
        for _ in range(PAIRS):
            ours.append(per_unit(binary, workload, "actorpromise"))
            for peer in peers:
                theirs[peer].append(per_unit(binary, workload, peer))
        for field in FIELDS:
            a = [r[field] for r in ours]
            for index, peer in enumerate(peers):
                b = [r[field] for r in theirs[peer]]
                r = ratio(field, a, b)
                shown = f"{r:.2f}x" if r is not None else "n/a"
                bar = ""
                if index == 0 and workload in BARS and field in ("wall", "cpu") and r is not None:
                    met = r <= BARS[workload]
                    bar = f"<= {BARS[workload]}x {'pass' if met else 'FAIL'}"
                    verdicts.append(met)
                ours_cell = cell(field, a) if index == 0 else ""
                print(f"{workload + '/' + unit:12} {field:6} {ours_cell:>28} {peer[:14] + ' ' + cell(field, b):>34} {shown:>7}  {bar}")
    if verdicts:
        print(f"time bars: {sum(verdicts)} of {len(verdicts)} met")


if __name__ == "__main__":
    main()
