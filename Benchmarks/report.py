#!/usr/bin/env python3
"""Prints the decode/thumbnail table from the JSON lines Benchmarks/run.sh collected."""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]


def median(values):
    return statistics.median(values) if values else None


def ours(set_name, thumbnail, subject="webimage-decode"):
    return median([r["images_per_s"] for r in rows
                   if r.get("subject") == subject and r["set"] == set_name
                   and r.get("thumbnail", 0) == thumbnail])


def limit(set_name, scale):
    return median([r["images_per_s"] for r in rows
                   if r.get("limit") and r["set"] == set_name and r.get("scale") == scale])


def peer(name):
    return median([r["ms_per_image"] for r in rows if r.get("peer") == name])


print(f"{'scenario':<38} {'webimage':>10} {'limit':>10} {'ratio':>7}")
for label, set_name, thumb, scale, subject in [
    ("decode jpeg-medium (1 thread), img/s", "jpeg-medium", 0, "1/1", "webimage-decode"),
    ("decode jpeg-small (1 thread), img/s", "jpeg-small", 0, "1/1", "webimage-decode"),
    ("thumbnail 256 jpeg-large, img/s", "jpeg-large", 256, "1/8", "webimage-decode"),
    ("disk hit + decode jpeg-medium, img/s", "jpeg-medium", 0, "1/1", "webimage-disk-hit"),
]:
    a, b = ours(set_name, thumb, subject), limit(set_name, scale)
    ratio = f"{a / b:.2f}x" if a and b else "-"
    fa = f"{a:.1f}" if a else "-"
    fb = f"{b:.1f}" if b else "-"
    print(f"{label:<38} {fa:>10} {fb:>10} {ratio:>7}")

thumb = ours("jpeg-large", 256)
if thumb:
    ms = 1000 / thumb
    print(f"\nthumbnail 256 of jpeg-large: webimage {ms:.1f} ms/image")
    for name in ("vipsthumbnail", "pillow-draft-thumbnail"):
        p = peer(name)
        if p:
            print(f"  {name:<24} {p:.1f} ms/image  (webimage is {p / ms:.2f}x faster)")
