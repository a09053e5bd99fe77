#!/usr/bin/env python3
"""Where the time goes, per unit of work, for the rows measured against SwiftNIO in time: W1 (a
link), W2 against NIO's `map` and `whenSuccess` (a handler), W2c (a callback).

For each library and workload it prints, per unit (the difference of two sizes over the extra
units, so start-up cancels out):
  - instructions, and the share of them spent in the allocator (malloc, free and their helpers),
    from valgrind's callgrind;
  - atomic read-modify-writes (x86 instructions with a `lock` prefix, and `xchg` with memory),
    counted from callgrind's per-instruction counts: all of them, and those in the libraries' own
    code (the rest are the runtime's reference counting and the C allocator's). Each costs tens of
    cycles however few instructions surround it, which instruction counts do not show;
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
    """Total instructions, those of allocator functions (self cost), atomic read-modify-writes, and
    those of them in the measured binary (the libraries' own code, linked into it)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}", binary,
                        workload, library, str(iterations)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        report = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True).stdout
        atomics = executed_atomics(out)
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
    return total, allocator, sum(atomics.values()), atomics.get(binary, 0)


_LOCKED = {}


def locked_instructions(path):
    """Addresses of the atomic read-modify-writes in an object file, as callgrind names them."""
    if path not in _LOCKED:
        listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True).stdout
        found = set()
        for line in listing.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
            if m and (m.group(2).startswith("lock ") or (m.group(2).startswith("xchg") and "(" in m.group(2))):
                found.add(int(m.group(1), 16))
        _LOCKED[path] = found
    return _LOCKED[path]


def executed_atomics(profile):
    """How many atomic read-modify-writes ran, per object file, from a `--dump-instr=yes` profile:
    its cost lines give an address (absolute, or relative to the previous line's) and the count
    of the instruction there; the lines after `calls=` are a call's inclusive cost, not its own."""
    names, obj, address, after_call, counts = {}, None, 0, False, {}
    for line in open(profile):
        m = re.match(r"(c?)ob=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3).strip()
            if not m.group(1):
                obj = names[m.group(2)]
            continue
        if line.startswith("calls="):
            after_call = True
            continue
        if line[:1] not in "0123456789+-*" or not line.strip():
            continue
        parts = line.split()
        position = parts[0]
        if position.startswith("0x"):
            address = int(position, 16)
        elif position[0] in "+-":
            address += int(position)
        if after_call:
            after_call = False
        elif len(parts) >= 3 and obj and address in locked_instructions(obj):
            counts[obj] = counts.get(obj, 0) + int(parts[2])
    return counts


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
    print("| row | library | instructions | allocator share | atomic RMWs (own code) | D1 misses | LL misses | "
          "context switches | migrations | voluntary switches (getrusage) | wall | CPU |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for workload in workloads:
        _, units, small, large, unit = wallclock.WORKLOADS[workload]
        for library, _ in ROWS[workload]:
            s, l = SIM[workload]
            total, allocator, atomics, own = per_unit(callgrind, exe, workload, library, s, l, units)
            d1, ll = per_unit(cachegrind, exe, workload, library, s, l, units)
            switches, migrations = per_unit(perf_stat, exe, workload, library, small, large, units)
            timed = wallclock.per_unit(exe, workload, library, small, large)
            print(f"| {workload} per {unit} | {library} | {total:,.0f} | {allocator / total:.0%} | {atomics:.1f} ({own:.1f}) | {d1:.1f} | {ll:.2f} | "
                  f"{switches:.3f} | {migrations:.3f} | {timed['vcsw']:.3f} | {timed['wall'] * 1e9:,.0f} ns | "
                  f"{timed['cpu'] * 1e9:,.0f} ns |", flush=True)


if __name__ == "__main__":
    main()
