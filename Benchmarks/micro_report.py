#!/usr/bin/env python3
"""Reads package-benchmark's text tables on stdin; prints one line per benchmark: p50 time and mallocs."""
import re
import sys

name = None
rows = {}
for line in sys.stdin:
    line = line.rstrip("\n")
    if line and not line.startswith(("│", "╒", "╞", "├", "╘", "=", " ")) and "%" not in line:
        name = line.strip()
        continue
    cells = [c.strip() for c in line.split("│")[1:-1]]
    if name and len(cells) >= 4 and cells[0] and cells[0] != "Metric":
        # Columns: metric, p0, p25, p50, ...
        rows.setdefault(name, {})[cells[0]] = cells[3]

print(f"{'benchmark':<40} {'p50':>12} {'mallocs':>8}")
for bench, metrics in rows.items():
    time = next((v + " " + re.search(r"\((\w+)\)", k).group(1) for k, v in metrics.items()
                 if k.startswith("Time (wall clock)")), "-")
    mallocs = next((v for k, v in metrics.items() if k.startswith("Malloc")), "-")
    print(f"{bench:<40} {time:>12} {mallocs:>8}")
