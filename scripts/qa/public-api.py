#!/usr/bin/env python3
"""Lists MediaPrep's public top-level types from the compiler's symbol graph (SPI excluded) and fails
when there are more than the budget: the library shows a Swift programmer only the few it needs.
usage: scripts/qa/public-api.py [BUDGET]   (default 20; run from anywhere)"""
import json, os, subprocess, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
budget = int(sys.argv[1]) if len(sys.argv) > 1 else 20
subprocess.run(["swift", "package", "--package-path", root, "dump-symbol-graph", "--minimum-access-level", "public"],
               check=True, capture_output=True)
graph = None
for d, _, files in os.walk(os.path.join(root, ".build")):
    if "MediaPrep.symbols.json" in files and d.endswith("symbolgraph"):
        graph = os.path.join(d, "MediaPrep.symbols.json")
kinds = {"swift.struct", "swift.enum", "swift.class", "swift.actor", "swift.protocol", "swift.typealias"}
symbols = json.load(open(graph))["symbols"]
top = sorted(s["pathComponents"][0] for s in symbols
             if len(s["pathComponents"]) == 1 and s["kind"]["identifier"] in kinds and s["accessLevel"] == "public" and not s.get("spi"))
print(f"{len(top)} public top-level types (budget {budget}): " + ", ".join(top))
sys.exit(0 if len(top) <= budget else 1)
