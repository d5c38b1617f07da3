#!/usr/bin/env bash
# The TIFF, BMP and ICO decoders against the C loop over the same libraries (codec_limit.c):
# ROUNDS interleaved rounds, each timing the C loop and `webimage decode-bench` on the same
# folder; prints each round's ms per image and the ratio C / ours (1.0: as fast as the C loop;
# the goal is at least 0.9).
#
# Usage: Benchmarks/codecs/run.sh [ROUNDS] [REPS]   (after swift build -c release --product webimage)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
reps=${2:-10}
work=${CODEC_BENCH_DIR:-/tmp/webimage-codec-bench}
webimage=${WEBIMAGE:-.build/release/webimage}
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }
mkdir -p "$work"
cc -O2 -o "$work/codec_limit" Benchmarks/codecs/codec_limit.c $(pkg-config --cflags --libs libtiff-4 gdk-pixbuf-2.0)
[ -d "$work/files/tiff" ] || python3 Benchmarks/codecs/make_files.py "$work/files" >/dev/null
ms() { sed 's/.*"ms_per_image":\([0-9.]*\).*/\1/'; }
declare -A ratios best_c best_ours
for round in $(seq "$rounds"); do
  for format in tiff bmp ico; do
    c=$("$work/codec_limit" "$format" "$work/files/$format" "$reps" | ms)
    ours=$("$webimage" decode-bench "$work/files/$format" --reps "$reps" | ms)
    ratio=$(echo "$c / $ours" | bc -l)
    printf 'round %s %-4s C %7.3f ms  ours %7.3f ms  ratio %.2f\n' "$round" "$format" "$c" "$ours" "$ratio"
    ratios[$format]+="$ratio "
    best_c[$format]=$(echo "$c" "${best_c[$format]:-$c}" | awk '{print ($1 < $2) ? $1 : $2}')
    best_ours[$format]=$(echo "$ours" "${best_ours[$format]:-$ours}" | awk '{print ($1 < $2) ? $1 : $2}')
  done
done
# Per format: the range of the rounds' ratios, and the ratio of the best round of each side (the
# least disturbed by other work on the machine).
for format in tiff bmp ico; do
  range=$(echo "${ratios[$format]}" | tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f-%.2f", lo, hi}')
  printf '%-4s ratio C/ours: rounds %s, best of each %.2f (C %.3f ms, ours %.3f ms)\n' "$format" "$range" \
    "$(echo "${best_c[$format]} / ${best_ours[$format]}" | bc -l)" "${best_c[$format]}" "${best_ours[$format]}"
done
