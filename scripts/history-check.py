#!/usr/bin/env python3
"""Fails when the reference docs carry history: a commit id, a date, or "this machine" / "today".

The DocC articles, the README files and the Benchmarks README say what is true of the code now,
with the commands that reproduce each figure; what changed and when belongs in git log and, by
version, in CHANGELOG.md (whose version headings are the only dates it allows).

  scripts/history-check.py     # prints each offending line; exit 1 if any
"""
import glob, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = (glob.glob(os.path.join(ROOT, "Sources/*/*.docc/*.md")) + glob.glob(os.path.join(ROOT, "**/README.md"), recursive=True))
# A commit id: 7 to 40 hex digits with at least one letter and one digit, so that a figure such
# as 10000000 does not match.
COMMIT = re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
DATE = re.compile(r"\b(19|20)\d\d-\d\d-\d\d\b")
WORDS = re.compile(r"\b(this machine|today|yesterday|later the same day)\b", re.IGNORECASE)
CHANGELOG_HEADING = re.compile(r"^## \[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d$")


def offences(path):
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        for pattern, what in ((COMMIT, "a commit id"), (DATE, "a date"), (WORDS, "a word of the moment")):
            match = pattern.search(line)
            if match:
                yield number, what, match.group(0), line.rstrip()


def main():
    found = 0
    skipped = ("/.build", "/Benchmarks/.build")
    for path in sorted(set(DOCS)):
        if any(part in path for part in skipped):
            continue
        for number, what, text, line in offences(path):
            found += 1
            print(f"{os.path.relpath(path, ROOT)}:{number}: {what} ({text}): {line}")
    changelog = os.path.join(ROOT, "CHANGELOG.md")
    for number, line in enumerate(open(changelog, encoding="utf-8"), 1):
        if DATE.search(line) and not CHANGELOG_HEADING.match(line.rstrip()):
            found += 1
            print(f"CHANGELOG.md:{number}: a date outside a version heading: {line.rstrip()}")
    if found:
        print(f"history-check: {found} line(s) carry history; the docs say what is true now (git log keeps the rest)")
        sys.exit(1)
    print("history-check: ok")


if __name__ == "__main__":
    main()
