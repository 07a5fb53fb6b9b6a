#!/usr/bin/env python3
"""The package's target graph as Mermaid, from `swift package dump-package` (docs/architecture.md).

    scripts/module-graph.py            prints the graph
    scripts/module-graph.py --check    fails when docs/architecture.md's generated block differs
    scripts/module-graph.py --write    rewrites that block

Test targets, the Apple stand-ins and the Apple example are left out: the picture is what an
app links and what the tools link. Edges to a C module are drawn dotted."""
import json, pathlib, subprocess, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- module-graph: begin (scripts/module-graph.py --write) -->", "<!-- module-graph: end -->"
LEFT_OUT = {"FoundationAppleOnly", "UIKit", "WebKit", "HybridAppleExample", "hybrid-engine-tests"}


def graph() -> str:
    dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                     capture_output=True, text=True).stdout)
    targets = {t["name"]: t for t in dump["targets"] if t["type"] != "test" and t["name"] not in LEFT_OUT}
    products = {p["name"] for p in dump["products"] if "library" in p["type"]}
    lines = ["```mermaid", "graph BT"]
    node = lambda name: name.replace("-", "_")
    is_c = lambda name: targets[name]["type"] == "system" or name.startswith("C")
    for name in sorted(targets):
        if is_c(name):
            lines.append(f'  {node(name)}[("{name}")]')
        elif targets[name]["type"] == "executable":
            lines.append(f'  {node(name)}[["{name}"]]')
        else:
            lines.append(f'  {node(name)}["{name}{" (product)" if name in products else ""}"]')
    for name in sorted(targets):
        for dependency in targets[name].get("dependencies", []):
            (kind, value), = dependency.items()
            other = value[0]
            if other not in targets:
                continue
            lines.append(f"  {node(name)} {'-.->' if is_c(other) else '-->'} {node(other)}")
    lines.append("```")
    return "\n".join(lines)


def main() -> int:
    text = graph()
    if len(sys.argv) == 1:
        print(text)
        return 0
    doc = DOC.read_text()
    start, stop = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    current = doc[start:stop].strip()
    if sys.argv[1] == "--check":
        if current != text:
            print("module-graph: docs/architecture.md's graph is not Package.swift's: run scripts/module-graph.py --write", file=sys.stderr)
            return 1
        print("module-graph: docs/architecture.md matches Package.swift")
        return 0
    DOC.write_text(doc[:start] + "\n" + text + "\n" + doc[stop:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
