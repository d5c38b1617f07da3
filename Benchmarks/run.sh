#!/usr/bin/env bash
# Runs WebImage's decode and thumbnail benchmarks beside the shared harness's C limits and peers,
# interleaved in one run, and prints a table of medians and ratios.
#
#   Benchmarks/run.sh [--quick] [--repeat N] [--harness DIR] [--data DIR]
#
# The harness (dataset generator, TurboJPEG decode limit, vipsthumbnail/Pillow peers) is looked for
# in $WEBIMAGE_BENCH_HARNESS, else ../shared/bench beside the repository. Without it, only the
# package-benchmark micro benchmarks (swift package benchmark) can run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
harness="${WEBIMAGE_BENCH_HARNESS:-$ROOT/../shared/bench}"
quick=0 repeat="" data=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --repeat) repeat="$2"; shift ;;
        --harness) harness="$2"; shift ;;
        --data) data="$2"; shift ;;
        *) echo "usage: $0 [--quick] [--repeat N] [--harness DIR] [--data DIR]" >&2; exit 2 ;;
    esac
    shift
done
[ -f "$harness/make_dataset.py" ] || { echo "bench harness not found at $harness (set WEBIMAGE_BENCH_HARNESS)" >&2; exit 1; }
harness="$(cd "$harness" && pwd)"
scale=full; [ "$quick" = 1 ] && scale=small
repeat="${repeat:-$([ "$quick" = 1 ] && echo 1 || echo 3)}"
data="${data:-${TMPDIR:-/tmp}/webimage-bench-data-$scale}"
bin="$ROOT/.build/release/webimage"
[ -x "$bin" ] || (cd "$ROOT" && swift build -c release --product webimage >&2)

python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q -r "$harness/requirements.txt" >&2
python3 "$harness/make_dataset.py" "$data" --scale "$scale" >&2
[ "$quick" = 1 ] && export DECODE_MIN_MB=40 THUMB_REPS=1

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
run() { echo "+ $*" >&2; "$@" | grep '^{' >>"$results" || echo "step failed: $*" >&2; }
for _ in $(seq "$repeat"); do
    for set in jpeg-medium jpeg-small; do
        run "$harness/limits/decode_limit.sh" "$data/$set" --threads 1
        run "$bin" decode-bench "$data/$set" --threads 1
    done
    run "$bin" decode-bench "$data/jpeg-medium" --threads 1 --disk-cache "${TMPDIR:-/tmp}/webimage-bench-diskhit"
    run "$harness/limits/decode_limit.sh" "$data/jpeg-large" --threads 1 --scale 1/8
    run "$bin" decode-bench "$data/jpeg-large" --threads 1 --thumbnail 256
done
run "$harness/limits/thumbnail_peers.sh" "$data/jpeg-large" 256
python3 "$ROOT/Benchmarks/report.py" "$results"
