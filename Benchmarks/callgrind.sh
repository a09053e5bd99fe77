# Shared by compare.sh and guard.sh (sourced, from the Benchmarks folder): builds `Measure` in
# release, strips a copy for valgrind, and counts instructions and mallocs per unit of work with
# callgrind. Sets OUT (a temporary folder, removed on exit) and BIN.
swift build -c release --product Measure >/dev/null
swift build -c release --product MeasureConcurrency >/dev/null
swift build -c release --product MeasurePending >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# valgrind 3.19 cannot read the DWARF 5 debug info swiftc emits: measure stripped copies.
BIN="$OUT/Measure"
strip -o "$BIN" .build/release/Measure
# The rows against plain Swift concurrency: `MEASURE=$CONCURRENCY_BIN per_unit …` runs them.
CONCURRENCY_BIN="$OUT/MeasureConcurrency"
strip -o "$CONCURRENCY_BIN" .build/release/MeasureConcurrency
# The rows of pending tracking, on against off: `MEASURE=$PENDING_BIN per_unit on|off w1 100`.
PENDING_BIN="$OUT/MeasurePending"
strip -o "$PENDING_BIN" .build/release/MeasurePending

# count LIB WORKLOAD ITERATIONS -> "instructions mallocs"
count() {
    local file="$OUT/$1.$2.$3.cg"
    valgrind --tool=callgrind --callgrind-out-file="$file" "${MEASURE:-$BIN}" "$2" "$1" "$3" >/dev/null 2>&1
    python3 - "$file" <<'PY'
import re, sys
total = 0; mallocs = 0; fn_names = {}; pending_cfn = None
for line in open(sys.argv[1]):
    if line.startswith("summary:") or line.startswith("totals:"):
        total = int(line.split()[1])
    m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(2): fn_names[m.group(1)] = m.group(2).strip()
        pending_cfn = fn_names.get(m.group(1), "")
        continue
    if line.startswith("calls=") and pending_cfn is not None:
        if pending_cfn in ("malloc", "posix_memalign", "calloc", "realloc", "aligned_alloc"):
            mallocs += int(line.split()[0][6:])
        pending_cfn = None
    m = re.match(r"fn=\((\d+)\)(?: (.*))?", line)
    if m and m.group(2): fn_names[m.group(1)] = m.group(2).strip()
print(total, mallocs)
PY
}

# per_unit_sized LIB WORKLOAD UNITS_PER_ITERATION SMALL LARGE
#   -> "instructions_per_unit allocs_per_unit": the workload at two sizes, the difference divided
#   by the extra work, so start-up (threads, event loop, dynamic linking) cancels out.
per_unit_sized() {
    read -r i1 m1 < <(count "$1" "$2" "$4")
    read -r i2 m2 < <(count "$1" "$2" "$5")
    python3 -c "u=($5-$4)*$3; print(round(($i2-$i1)/u), round(($m2-$m1)/u, 2))"
}
