#!/usr/bin/env python3
"""Every rule id the sources and tests use (R3, B7, E5, L1 …) is defined in the Semantics
article's *Rule ids* table, and the table defines no id nobody uses."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
pattern = re.compile(r"\b([RBEL][0-9]+b?)\b")
used = set()
for folder in ("Sources", "Tests"):
    for path in (root / folder).rglob("*.swift"):
        used.update(pattern.findall(path.read_text()))
semantics = (root / "Sources/ActorPromise/ActorPromise.docc/Semantics.md").read_text()
table = semantics.split("## Rule ids", 1)[1] if "## Rule ids" in semantics else ""
defined = set(re.findall(r"^\| ([RBEL][0-9]+b?) \|", table, re.MULTILINE))
missing = sorted(used - defined)
unused = sorted(defined - used)
if missing:
    print("rule ids used but not defined in Semantics.md's Rule ids table: " + ", ".join(missing))
if unused:
    print("rule ids defined but used nowhere: " + ", ".join(unused))
if missing or unused:
    sys.exit(1)
print(f"rule ids: {len(defined)} defined, each used")
