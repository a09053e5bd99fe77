#!/usr/bin/env python3
"""Compiles every Swift snippet of README.md and the DocC articles, as written.

Each document becomes a test target of a scratch package (.build-snippets/) that depends on this
one by path: its snippets' declarations go to the top level of one file each, the statements of a
snippet into a function of their own (so `try`, `await` and locals work as in a function body),
and the stand-ins for what the snippets leave to the reader (a `User`, an `api`, a `download`)
come from scripts/snippet-helpers/<Document>.swift, which the documents point readers to. A block
right after `<!-- not compiled: … -->` (a piece of Package.swift) is skipped.

  scripts/snippets.py        # builds them all; fails on the first document that does not compile
"""
import glob, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, ".build-snippets")
DECLARATION = re.compile(
    r"^(@|import |final |class |struct |enum |actor |protocol |extension |func |nonisolated |"
    r"public |private |fileprivate |internal |///)")

def snippets(path):
    lines = open(path).read().split("\n")
    skip = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("<!-- not compiled"):
            skip = True
        elif line.strip() == "```swift":
            start = i + 1
            end = start
            while lines[end].strip() != "```":
                end += 1
            if not skip:
                yield start, lines[start:end]
            skip = False
            i = end
        elif line.strip():
            skip = skip and line.strip().startswith("<!--")
        i += 1

def split(block):
    """Top-level declarations, hoisted imports, and the statements, in order."""
    indent = min((len(l) - len(l.lstrip()) for l in block if l.strip()), default=0)
    block = [l[indent:] for l in block]
    imports, declarations, statements = [], [], []
    target = statements
    for line in block:
        if line.startswith("import "):
            imports.append(line)
            continue
        if line and not line[0].isspace() and not line.startswith("}") and not line.startswith("//"):
            target = declarations if DECLARATION.match(line) else statements
        target.append(line)
    return imports, declarations, statements

def main():
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "Sources/ActorPromise/ActorPromise.docc/*.md")))
    shutil.rmtree(os.path.join(OUT, "Sources"), ignore_errors=True)
    targets = []
    for doc in docs:
        name = os.path.splitext(os.path.basename(doc))[0].replace("-", "")
        found = list(snippets(doc))
        if not found:
            continue
        target = f"{name}Snippets"
        folder = os.path.join(OUT, "Sources", target)
        os.makedirs(folder)
        helpers = os.path.join(ROOT, "scripts", "snippet-helpers", f"{name}.swift")
        if os.path.exists(helpers):
            shutil.copy(helpers, os.path.join(folder, "Helpers.swift"))
        for line, block in found:
            imports, declarations, statements = split(block)
            body = ["import ActorPromise", "import ActorPromiseTesting", "import Foundation", "import Synchronization", "import Testing",
                    "#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif"]
            body += [i for i in imports if i not in body]
            body.append(f"// {os.path.relpath(doc, ROOT)}:{line}")
            body += declarations
            if any(s.strip() for s in statements):
                body.append(f"func snippet{line}() async throws {{")
                body += ["    " + s if s else s for s in statements]
                body.append("}")
            open(os.path.join(folder, f"Snippet{line}.swift"), "w").write("\n".join(body) + "\n")
        targets.append(target)
    manifest = f'''// swift-tools-version: 6.2
// Made by scripts/snippets.py: the documents' snippets, one test target per document.
import PackageDescription

let package = Package(
    name: "Snippets",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    dependencies: [.package(name: "ActorPromise", path: "{ROOT}")],
    targets: [
''' + "".join(
        f'''        .testTarget(name: "{t}", dependencies: [.product(name: "ActorPromise", package: "ActorPromise"), .product(name: "ActorPromiseTesting", package: "ActorPromise")], path: "Sources/{t}", swiftSettings: [.swiftLanguageMode(.v6)]),\n'''
        for t in targets) + "    ]\n)\n"
    open(os.path.join(OUT, "Package.swift"), "w").write(manifest)
    result = subprocess.run(["swift", "build", "--build-tests"], cwd=OUT)
    if result.returncode != 0:
        print("snippets: a snippet does not compile (the errors above name its document and line)")
        return 1
    count = sum(len(os.listdir(os.path.join(OUT, "Sources", t))) for t in targets)
    print(f"snippets: ok ({len(targets)} documents)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
