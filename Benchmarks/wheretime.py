#!/usr/bin/env python3
"""Where the time goes, per unit of work, for the rows measured against SwiftNIO in time: W1 (a
link), W2 against NIO's `map` and `whenSuccess` (a handler), W2c (a callback).

For each library and workload it prints, per unit (the difference of two sizes over the extra
units, so start-up cancels out):
  - instructions, and the share of them spent in the allocator (malloc, free and their helpers),
    from valgrind's callgrind;
  - simulated first-level data-cache misses (reads + writes) and last-level misses, from
    valgrind's cachegrind (its model of this machine's caches, one thread at a time: it says where
    misses come from, not what the hardware's prefetchers hide);
  - context switches and CPU migrations, from `perf stat`'s software events (this machine exposes
    no hardware counters), and the process's voluntary switches from getrusage;
  - wall and CPU time of the whole process (one pair; wallclock.py is the measuring tool).

  Benchmarks/wheretime.py            # every row
  Benchmarks/wheretime.py w2         # one workload
"""
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wallclock

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = {
    "w1": [("actorpromise", 100), ("nio", 100)],
    "w2": [("actorpromise", 1000), ("nio-map", 1000), ("nio", 1000)],
    "w2c": [("actorpromise", 1000), ("nio", 1000)],
}
# Sizes for the simulators (slow): iterations at two sizes.
SIM = {"w1": (10, 40), "w2": (2, 8), "w2c": (2, 8)}
ALLOCATOR = re.compile(r"malloc|_int_free|\bfree\b|cfree|swift_slowAlloc|swift_slowDealloc|unlink_chunk|malloc_consolidate|tcache")


def binary():
    """The release build of Measure, without its debug information, which valgrind cannot read."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "Measure"], cwd=HERE, check=True,
                   stdout=subprocess.DEVNULL)
    stripped = os.path.join(tempfile.mkdtemp(), "Measure")
    subprocess.run(["strip", "--strip-debug", "-o", stripped, os.path.join(HERE, ".build", "release", "Measure")],
                   check=True)
    return stripped


def callgrind(binary, workload, library, iterations):
    """Total instructions, and those of allocator functions (self cost)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, workload, library,
                        str(iterations)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True).stdout
    total, allocator = 0, 0
    for line in report.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+)", line)
        if not m:
            continue
        count, name = int(m.group(1).replace(",", "")), m.group(2)
        if name == "PROGRAM":
            total = count
        elif ALLOCATOR.search(name):
            allocator += count
    return total, allocator


def cachegrind(binary, workload, library, iterations):
    """First-level data misses (reads + writes) and last-level misses (reads + writes)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cache")
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={out}", binary,
                        workload, library, str(iterations)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        events, summary = None, None
        for line in open(out):
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
    counts = dict(zip(events, summary))
    d1 = counts.get("D1mr", 0) + counts.get("D1mw", 0)
    ll = counts.get("DLmr", 0) + counts.get("DLmw", 0)
    return d1, ll


def perf_stat(binary, workload, library, iterations):
    """Context switches and CPU migrations of one run (software events)."""
    result = subprocess.run(["perf", "stat", "-x", ",", "-e", "context-switches,cpu-migrations", binary, workload,
                             library, str(iterations)], capture_output=True, text=True, check=True)
    values = {}
    for line in result.stderr.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[0].strip().isdigit():
            values[parts[2]] = int(parts[0])
    return values.get("context-switches", 0), values.get("cpu-migrations", 0)


def per_unit(measure, binary, workload, library, small, large, units):
    a, b = measure(binary, workload, library, small), measure(binary, workload, library, large)
    return [(y - x) / ((large - small) * units) for x, y in zip(a, b)]


def main():
    workloads = [w for w in sys.argv[1:] if w in ROWS] or list(ROWS)
    exe = binary()
    print("| row | library | instructions | allocator share | D1 misses | LL misses | context switches | migrations | "
          "voluntary switches (getrusage) | wall | CPU |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for workload in workloads:
        _, units, small, large, unit = wallclock.WORKLOADS[workload]
        for library, _ in ROWS[workload]:
            s, l = SIM[workload]
            total, allocator = per_unit(callgrind, exe, workload, library, s, l, units)
            d1, ll = per_unit(cachegrind, exe, workload, library, s, l, units)
            switches, migrations = per_unit(perf_stat, exe, workload, library, small, large, units)
            timed = wallclock.per_unit(exe, workload, library, small, large)
            print(f"| {workload} per {unit} | {library} | {total:,.0f} | {allocator / total:.0%} | {d1:.1f} | {ll:.2f} | "
                  f"{switches:.3f} | {migrations:.3f} | {timed['vcsw']:.3f} | {timed['wall'] * 1e9:,.0f} ns | "
                  f"{timed['cpu'] * 1e9:,.0f} ns |", flush=True)


if __name__ == "__main__":
    main()
