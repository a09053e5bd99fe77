#!/usr/bin/env python3
"""Checks that the folders of a target use one another in one direction only.

Each target's folders are listed in layer order (ORDER below). A file may use names declared in
its own folder and in the folders listed before it, never in a folder listed after it. A name is
a type, protocol, typealias, function or global declared at the top level of a file or in an
extension; the uses are the identifiers of a file with its comments and string literals removed.

The bridge (Sources/Bridge) is part of the ActorPromise module and its top layer; the test
runtime (Sources/Testing) is a target of its own.

It also checks where unsafe constructs are: only in the files listed in
scripts/unsafe-files.txt (the building blocks, each with its safety argument beside it), never
in the folders that describe behaviour (operators, combinators, retry, the bridge). Each listed
file records how many it holds: a count that grows fails, and so does one that shrank without the
list being lowered, and a file that holds none must leave the list — so the list only shrinks.
`assumeIsolated`, which trusts the runtime's isolation check instead of the compiler's, is
counted and reported beside them (not failed).

And it checks that a promise's state is reached only through its scopes: the state's fields
(`guardedMachine`, `guardedTree`), the gate's entry and exit (and the requirements through which
`HeldGates` enters and leaves other promises' gates) are named in the storage file and the gate's file only (GATED below), anywhere in
the sources and tests. (The compiler cannot check it: code inlined into other modules may name
only internal declarations, and the core's operations must be inlined to be specialized.)

Usage: scripts/layers.py            check; print each use that goes the wrong way
       scripts/layers.py --graph    print which folder uses which
"""
import re, sys, pathlib, collections

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Layer order per target; "." is the target's top-level folder.
ORDER = {
    "Executors": [".", "Threading", "Timers", "Pool", "Contexts"],
    "ActorPromise": ["Vocabulary", "Core", "TaskLocals", ".", "Pending", "Retry", "Operators", "Combinators", "Bridge"],
    "Testing": ["."],
}
# Folders of a module that live outside its target's folder: the bridge is the ActorPromise
# module's top layer.
EXTRA = {"ActorPromise": {"Bridge": "Sources/Bridge"}}
# Uses that go the wrong way today, as "Target/From -> To: Name". The core rebuild removes them;
# the check fails on any use not listed here, and on a listed use that is gone (so the list only shrinks).
def listed(name):
    """The entries of scripts/NAME, one per line, without blank lines and `#` comments."""
    path = ROOT / "scripts" / name
    if not path.exists():
        return set()
    return set(line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#"))

KNOWN = listed("layers-known.txt")

# The files that may hold unsafe constructs (the building blocks), each with its count.
UNSAFE_COUNTS = {line.rsplit(None, 1)[0]: int(line.rsplit(None, 1)[1]) for line in listed("unsafe-files.txt")}
UNSAFE_FILES = set(UNSAFE_COUNTS)
# Folders with no unsafe construct, and the constructs.
UNSAFE_FREE = ["Sources/ActorPromise/Operators", "Sources/ActorPromise/Combinators",
               "Sources/ActorPromise/Retry", "Sources/Bridge"]
UNSAFE = re.compile(r"@unchecked\s+Sendable|@exclusivity\(unchecked\)|nonisolated\(unsafe\)|\bUnmanaged\b|"
                    r"\bunsafe[A-Z]\w*|\bwithUnsafe\w*|\bUnsafe\w*|\.unsafelyUnwrapped|_withUnsafeGuaranteedRef|unowned\(unsafe\)")

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|"
                  r"nonisolated|static|indirect|dynamic|override|mutating|consuming|borrowing|"
                  r"@usableFromInline|@inlinable)\s+)*(?:struct|class|enum|protocol|actor|typealias|func|let|var)\s+"
                  r"([A-Za-z_][A-Za-z0-9_]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)

def folder_of(target_dir, path):
    rel = path.relative_to(target_dir)
    return rel.parts[0] if len(rel.parts) > 1 else "."

def top_level_names(text):
    """Names declared at brace depth 0, or at depth 1 inside an extension (members of other types
    are reached through their type and are not folder-level names)."""
    names, depth, in_extension = set(), 0, []
    for line in text.splitlines():
        m = DECL.match(line)
        if m and (depth == 0 or (depth == 1 and in_extension and in_extension[-1] and m.group(1)[0].isupper())):
            names.add(m.group(1))
        opens, closes = line.count("{"), line.count("}")
        for _ in range(opens):
            in_extension.append(depth == 0 and re.match(r"^\s*(?:@\w+\s+)*(?:public\s+|package\s+)?extension\b", line) is not None)
            depth += 1
        for _ in range(closes):
            depth -= 1
            if in_extension: in_extension.pop()
    return names

# Names that only the gate's file and the state's storage file may use.
GATED = re.compile(r"\bguardedMachine\b|\bguardedTree\b|\btryEnter\(|\benterOrPark\(|\bgate\.leave\(|"
                   r"(?<!func )\b(?:enterGateIfFree|leaveGate|attachChildHoldingGate|isSettledWithoutChildrenHoldingGate)\(")
GATE_FILES = {"Sources/ActorPromise/Core/AsyncGate.swift", "Sources/ActorPromise/Core/PromiseCore.swift"}


def main():
    graph_only = "--graph" in sys.argv
    problems, seen = [], set()
    for target, order in ORDER.items():
        target_dir = ROOT / "Sources" / target
        files = sorted(target_dir.rglob("*.swift"))
        folder = {f: folder_of(target_dir, f) for f in files}
        for extra, path in EXTRA.get(target, {}).items():
            for f in sorted((ROOT / path).rglob("*.swift")):
                files.append(f)
                folder[f] = extra
        texts = {f: strip(f.read_text()) for f in files}
        owner = {}
        for f in files:
            for name in top_level_names(texts[f]):
                owner.setdefault(name, set()).add(folder[f])
        graph = collections.defaultdict(set)
        for f in files:
            here = folder[f]
            if here not in order:
                problems.append(f"{target}/{here}: a folder the layer order does not list")
                continue
            for name in sorted(set(IDENT.findall(texts[f]))):
                for there in owner.get(name, ()):
                    if there == here or here in owner[name]:
                        continue
                    graph[here].add(there)
                    if order.index(there) > order.index(here):
                        entry = f"{target}/{here} -> {there}: {name}"
                        seen.add(entry)
                        if entry not in KNOWN:
                            problems.append(f"{entry}  ({f.relative_to(ROOT)})")
        if graph_only:
            for here in order:
                print(f"{target}/{here} uses {', '.join(sorted(graph[here])) or 'nothing'}")
    if graph_only:
        return 0
    holding = set()
    isolation_trust = {}
    for f in sorted((ROOT / "Sources").rglob("*.swift")):
        name = str(f.relative_to(ROOT))
        behaviour = any(name.startswith(folder + "/") for folder in UNSAFE_FREE)
        text = strip(f.read_text())
        trusted = len(re.findall(r"\bassumeIsolated\b", text))
        if trusted:
            isolation_trust[name] = trusted
        count = len(UNSAFE.findall(text))
        if name in UNSAFE_COUNTS and count > UNSAFE_COUNTS[name]:
            problems.append(f"{name}: {count} unsafe constructs, more than the {UNSAFE_COUNTS[name]} scripts/unsafe-files.txt records")
        elif name in UNSAFE_COUNTS and 0 < count < UNSAFE_COUNTS[name]:
            problems.append(f"{name}: {count} unsafe constructs, fewer than the {UNSAFE_COUNTS[name]} scripts/unsafe-files.txt records; lower it")
        for number, line in enumerate(text.splitlines(), 1):
            if not UNSAFE.search(line):
                continue
            holding.add(name)
            if behaviour:
                problems.append(f"{name}:{number}: unsafe code outside the building blocks: {line.strip()}")
            elif name not in UNSAFE_FILES:
                problems.append(f"{name}:{number}: unsafe code in a file not listed in scripts/unsafe-files.txt: {line.strip()}")
    for f in sorted(list((ROOT / "Sources").rglob("*.swift")) + list((ROOT / "Tests").rglob("*.swift"))):
        name = str(f.relative_to(ROOT))
        if name in GATE_FILES:
            continue
        for number, line in enumerate(strip(f.read_text()).splitlines(), 1):
            if GATED.search(line):
                problems.append(f"{name}:{number}: reaches a promise's state or gate outside its scopes: {line.strip()}")
    for gone in sorted(UNSAFE_FILES - holding):
        problems.append(f"{gone}: listed in scripts/unsafe-files.txt but holds no unsafe construct; remove it from the list")
    for gone in sorted(KNOWN - seen):
        problems.append(f"{gone}: listed in scripts/layers-known.txt but no longer used; remove it from the list")
    for p in sorted(set(problems)):
        print(p)
    if problems:
        print(f"layers: {len(set(problems))} problem(s); the order is in scripts/layers.py")
        return 1
    print(f"layers: ok ({len(KNOWN)} known uses against the order left to remove; unsafe constructs in {len(holding)} files, "
          f"{sum(UNSAFE_COUNTS.values())} in all; assumeIsolated {sum(isolation_trust.values())} times in {len(isolation_trust)} files: "
          + ", ".join(f"{pathlib.Path(n).name} {c}" for n, c in sorted(isolation_trust.items())) + ")")
    return 0

sys.exit(main())
