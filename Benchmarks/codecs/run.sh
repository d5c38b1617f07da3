#!/usr/bin/env bash
# The TIFF, BMP, ICO, AVIF, HEIC and SVG decoders against the C loop over the same libraries
# (codec_limit.c): ROUNDS interleaved rounds, each timing the C loop and `webimage decode-bench`
# on the same folder; prints each round's ms per image and the ratio C / ours (1.0: as fast as
# the C loop; the goal is at least 0.9; for heic-thumb, a 256-px thumbnail of a 4000x3000 HEIC
# through its embedded thumbnail, ours at most 1.15x the C time, a ratio of at least 0.87).
#
# Usage: Benchmarks/codecs/run.sh [ROUNDS] [REPS] [FORMAT...]
#   FORMAT: tiff bmp ico avif heic heic-thumb svg (default: all)   (after swift build -c release --product webimage)
# The AVIF and HEIC files need avifenc and heif-enc (Debian: libavif-bin, libheif-examples).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
reps=${2:-10}
shift $(($# < 2 ? $# : 2))
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(tiff bmp ico avif heic heic-thumb svg)
work=${CODEC_BENCH_DIR:-/tmp/webimage-codec-bench}
webimage=${WEBIMAGE:-.build/release/webimage}
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }
mkdir -p "$work"
cc -O2 -o "$work/codec_limit" Benchmarks/codecs/codec_limit.c \
  $(pkg-config --cflags --libs libtiff-4 gdk-pixbuf-2.0 libavif libheif librsvg-2.0) -lm
[ -d "$work/files/svg" ] || python3 Benchmarks/codecs/make_files.py "$work/files" >/dev/null
ms() { sed 's/.*"ms_per_image":\([0-9.]*\).*/\1/'; }
# Each side's command for a format (the one-file sets, the icon and the thumbnail, take ten
# times the passes: eight 0.16 ms icons would time about a millisecond, the size of one
# scheduling hiccup on a shared machine).
c_side() {
  case $1 in
    heic-thumb) "$work/codec_limit" heic-thumb "$work/files/heic-large" $((reps * 10)) 256 ;;
    ico) "$work/codec_limit" ico "$work/files/ico" $((reps * 10)) ;;
    *) "$work/codec_limit" "$1" "$work/files/$1" "$reps" ;;
  esac
}
our_side() {
  case $1 in
    heic-thumb) "$webimage" decode-bench "$work/files/heic-large" --reps $((reps * 10)) --thumbnail 256 ;;
    ico) "$webimage" decode-bench "$work/files/ico" --reps $((reps * 10)) ;;
    *) "$webimage" decode-bench "$work/files/$1" --reps "$reps" ;;
  esac
}
declare -A ratios best_c best_ours
for round in $(seq "$rounds"); do
  for format in "${formats[@]}"; do
    c=$(c_side "$format" | ms)
    ours=$(our_side "$format" | ms)
    ratio=$(echo "$c / $ours" | bc -l)
    printf 'round %s %-10s C %8.3f ms  ours %8.3f ms  ratio %.2f\n' "$round" "$format" "$c" "$ours" "$ratio"
    ratios[$format]+="$ratio "
    best_c[$format]=$(echo "$c" "${best_c[$format]:-$c}" | awk '{print ($1 < $2) ? $1 : $2}')
    best_ours[$format]=$(echo "$ours" "${best_ours[$format]:-$ours}" | awk '{print ($1 < $2) ? $1 : $2}')
  done
done
# Per format: the range and median of the rounds' ratios, and the ratio of the best round of each
# side (the least disturbed by other work on the machine).
for format in "${formats[@]}"; do
  stats=$(echo "${ratios[$format]}" | tr ' ' '\n' | grep . | sort -g |
    awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f-%.2f, median %.2f", v[1], v[NR], m}')
  printf '%-10s ratio C/ours: rounds %s, best of each %.2f (C %.3f ms, ours %.3f ms)\n' "$format" "$stats" \
    "$(echo "${best_c[$format]} / ${best_ours[$format]}" | bc -l)" "${best_c[$format]}" "${best_ours[$format]}"
done
