#!/usr/bin/env bash
# What colour conversion adds to a JPEG decode: interleaved rounds of `webimage decode-bench` on one
# 1024x768 JPEG untagged, tagged sRGB and tagged Display P3 (converted to sRGB); prints each
# round's ms per image and the ratio to the untagged decode of the same round, then the best and
# median of those ratios and the ratio of each case's best round to the untagged decode's best
# round (the least disturbed by other work; the goal: P3 at most 1.25, sRGB 1.00 within noise).
#
# Usage: Benchmarks/colour/run.sh [ROUNDS] [REPS]   (after swift build -c release --product webimage)
#        WEBIMAGE=path/to/webimage ... compares another build; WEBIMAGE_BASE=other/webimage adds its P3
#        decode to each round, as "base-p3" (ratio to this build's untagged decode).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-10}
reps=${2:-40}
work=${COLOUR_BENCH_DIR:-/tmp/webimage-colour-bench}
webimage=${WEBIMAGE:-.build/release/webimage}
base=${WEBIMAGE_BASE:-}
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }
if [ ! -d "$work/p3" ]; then
  mkdir -p "$work"
  cc -O2 -o "$work/p3icc" Tests/Fixtures/tools/p3icc.c $(pkg-config --cflags --libs lcms2)
  "$work/p3icc" "$work/p3.icc" "Display P3"
  python3 Benchmarks/colour/make_files.py "$work" "$work/p3.icc" >/dev/null
fi
ms() { "$1" decode-bench "$work/$2" --reps "$reps" | sed 's/.*"ms_per_image":\([0-9.]*\).*/\1/'; }
declare -A ratios best
cases=(srgb p3)
[ -n "$base" ] && cases+=(base-p3)
for round in $(seq "$rounds"); do
  plain=$(ms "$webimage" untagged)
  best[untagged]=$(echo "$plain" "${best[untagged]:-$plain}" | awk '{print ($1 < $2) ? $1 : $2}')
  line="round $round untagged $(printf '%.3f' "$plain") ms"
  for c in "${cases[@]}"; do
    if [ "$c" = base-p3 ]; then t=$(ms "$base" p3); else t=$(ms "$webimage" "$c"); fi
    r=$(echo "$t / $plain" | bc -l)
    ratios[$c]+="$r "
    best[$c]=$(echo "$t" "${best[$c]:-$t}" | awk '{print ($1 < $2) ? $1 : $2}')
    line+=$(printf '  %s %.3f ms (x%.2f)' "$c" "$t" "$r")
  done
  echo "$line"
done
for c in "${cases[@]}"; do
  echo "${ratios[$c]}" | tr ' ' '\n' | grep . | sort -g |
    awk -v c="$c" -v t="${best[$c]}" -v u="${best[untagged]}" '{v[NR] = $1} END {printf "%-8s ratio to untagged: rounds best %.2f, median %.2f, worst %.2f (%d rounds); best rounds %.3f / %.3f ms = %.2f\n", c, v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR], NR, t, u, t / u}'
done
