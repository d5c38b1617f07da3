#!/usr/bin/env bash
# `make bench`: every published number in one go, each beside its peer or limit from the same run.
#   1. decode and thumbnail: `webimage decode-bench` interleaved with the harness's C limits and
#      thumbnail peers (table of medians and ratios);
#   2. the machine: what a never-touched page of memory costs (fresh-pages/) and what writing one
#      disk-cache entry costs (file-create/), both built with gcc;
#   2b. the packed disk layout at scale: a million 8 KB entries, its open, index memory and trim;
#   3. pipeline: the harness's run_all.sh with `webimage bench` as the subject (cold, warm-disk,
#      warm-memory, 256-px thumbnails; the Python peer and the ceiling in the same table), then
#      the steady state and cold loads with and without the disk writes (--memory-only);
#   4. thumbnails: the server's resize quality (SSIM) beside libvips, what lanczos3 costs against
#      the area filter, what a smart crop costs against a centre one (Benchmarks/serve/quality.sh);
#   5. format:best: the bytes it saves against JPEG, WebP and AVIF at their default qualities and
#      its time per request (Benchmarks/serve/best_format.sh);
#   6. memory hits: package-benchmark micro benchmarks (MemoryCache, ImageManager completion and
#      async APIs), unless --no-micro.
#
#   Benchmarks/run.sh [--quick] [--repeat N] [--harness DIR] [--data DIR] [--no-micro] [--no-pipeline]
#
# The harness (dataset generator, TurboJPEG decode limit, vipsthumbnail/Pillow peers) is looked for
# in $WEBIMAGE_BENCH_HARNESS, else ../shared/bench beside the repository. Without it, only the
# package-benchmark micro benchmarks (swift package benchmark) can run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
harness="${WEBIMAGE_BENCH_HARNESS:-$ROOT/../shared/bench}"
quick=0 repeat="" data="" micro=1 pipeline=1
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --no-micro) micro=0 ;;
        --no-pipeline) pipeline=0 ;;
        --repeat) repeat="$2"; shift ;;
        --harness) harness="$2"; shift ;;
        --data) data="$2"; shift ;;
        *) echo "usage: $0 [--quick] [--repeat N] [--harness DIR] [--data DIR] [--no-micro] [--no-pipeline]" >&2; exit 2 ;;
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
echo
echo "== Decode and thumbnail (webimage decode-bench vs the harness's C limits)"
python3 "$ROOT/Benchmarks/report.py" "$results"

echo
echo "== Memory: a page never touched before vs one already mapped (Benchmarks/fresh-pages)"
fresh="$(mktemp)"
trap 'rm -f "$results" "$fresh"' EXIT
if gcc -O2 -o "$fresh" "$ROOT/Benchmarks/fresh-pages/fresh_pages.c" 2>/dev/null; then
    for shape in "3072 200" "256 500"; do
        # shellcheck disable=SC2086  # two arguments on purpose
        "$fresh" $shape | python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print("%5d KiB buffers: fresh %8.1f us (%.2f us/page), rewritten %6.1f us (%.3f us/page)" % (r["buffer_kib"],
      r["us_per_buffer_fresh"], r["us_per_page_fresh"], r["us_per_buffer_reused"], r["us_per_page_reused"]))'
    done
else
    echo "(gcc not found: skipped)"
fi

echo
echo "== Disk cache entries: writing one 15 KB entry as the disk cache does (Benchmarks/file-create)"
create="$(mktemp)"
trap 'rm -f "$results" "$fresh" "$create"' EXIT
if ! command -v gcc >/dev/null; then
    echo "(gcc not found: skipped)"
elif ! gcc -O2 -o "$create" "$ROOT/Benchmarks/file-create/file_create.c"; then
    echo "(file_create.c did not compile: skipped)"
else
    for dir in "${TMPDIR:-/tmp}/webimage-bench-files" /dev/shm/webimage-bench-files; do
        [ -d "$(dirname "$dir")" ] || continue
        if line="$("$create" "$dir" 300 15000)"; then
            printf '%s\n' "$line" | python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print("%-34s create %6.1f us, write+dates+close %6.1f us, rename %5.1f us per entry" % (sys.argv[1],
      r["us_create"], r["us_write_dates_close"], r["us_rename"]))' "$dir" || echo "(unreadable result in $dir)"
        else
            echo "(writing entries in $dir failed)"
        fi
        rmdir "$dir" 2>/dev/null || true
    done
fi

echo
echo "== Packed disk layout at scale (webimage store-bench: fill, open, trim to half; goals: open < 1 s, trim < 2 s, index < 100 MB)"
entries=1000000; [ "$quick" = 1 ] && entries=100000
if line="$("$bin" store-bench --entries "$entries" --entry-size 8192 | grep '^{')"; then
    printf '%s\n' "$line" | python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print("%d entries of %d B: fill %.1f s (%.0f entries/s); open %.3f s; index %.0f MB resident; trim to half %.3f s (%d entries left), its files deleted %.3f s after it began" % (
      r["entries"], r["entry_size"], r["fill_seconds"], r["fill_entries_per_s"], r["open_seconds"], r["index_rss_mb"],
      r["trim_seconds"], r["entries_after_trim"], r["trim_deleted_seconds"]))'
else
    echo "(store-bench failed)"
fi

if [ "$pipeline" = 1 ]; then
    echo
    echo "== Pipeline through ImageManager (run_all.sh --subject 'webimage bench'; ceiling and Python peer from the same run)"
    quickflag=""; [ "$quick" = 1 ] && quickflag="--quick"
    "$harness/run_all.sh" $quickflag --subject "$bin bench" || echo "(some pipeline steps failed; see above)"
    echo
    echo "== The same, with the packed disk layout (run_all.sh --subject 'webimage bench --disk-layout packed')"
    "$harness/run_all.sh" $quickflag --subject "$bin bench --disk-layout packed" || echo "(some pipeline steps failed; see above)"
fi

if [ "$pipeline" = 1 ]; then
    echo
    echo "== Steady state: warm-disk jpeg-medium through a memory cache of 1/4 of the set (bitmap pool on), beside the reused-buffer C limit"
    port=8097 steady="$(mktemp -d)"
    if url="$("$harness/origin.sh" start "$data" "$port" 2>/dev/null)"; then
        quarter="$(python3 -c 'import sys, glob
from PIL import Image
print(sum(w * h * 4 for w, h in (Image.open(f).size for f in glob.glob(sys.argv[1] + "/*"))) // 4)' "$data/jpeg-medium")"
        "$bin" bench --base "$url" --set jpeg-medium --mode cold --cache-dir "$steady/cache" >/dev/null
        : >"$steady/lines"
        for _ in $(seq "$repeat"); do
            "$harness/limits/decode_limit.sh" "$data/jpeg-medium" --threads "$(nproc)" | grep '^{' >>"$steady/lines"
            "$bin" bench --base "$url" --set jpeg-medium --mode warm-disk --cache-dir "$steady/cache" \
                --memory-limit "$quarter" | grep '^{' >>"$steady/lines"
        done
        "$harness/origin.sh" stop "$port" >/dev/null 2>&1 || true
        python3 - "$steady/lines" "$quarter" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
limit = [l["images_per_s"] for l in lines if "peer" not in l]
ours = [l for l in lines if l.get("peer") == "webimage"]
rate = statistics.median(l["images_per_s"] for l in ours)
print("memory limit %d bytes; C limit (one reused buffer, all cores) %.1f img/s; webimage %.1f img/s = %.2fx; "
      "pool hit ratio %.2f; peak RSS %.0f MB" % (int(sys.argv[2]), statistics.median(limit), rate,
      rate / statistics.median(limit), statistics.median(l["pool_hit_ratio"] for l in ours),
      max(l["peak_rss_mb"] for l in ours)))
PY
    else
        echo "(origin did not start: skipped)"
    fi
    rm -rf "$steady"
fi

if [ "$pipeline" = 1 ]; then
    echo
    echo "== Cold loads with and without the disk cache's writes (webimage bench, default beside --memory-only, interleaved)"
    port=8098 plain="$(mktemp -d)"
    if url="$("$harness/origin.sh" start "$data" "$port" 2>/dev/null)"; then
        : >"$plain/lines"
        # Each scenario and variant has its own cache directory; the variants alternate in order.
        order="disk memory"
        for _ in $(seq "$repeat"); do
            for variant in $order; do
                only=""; [ "$variant" = memory ] && only="--memory-only"
                # shellcheck disable=SC2086  # $only is one flag or nothing
                "$bin" bench --base "$url" --set jpeg-small --mode cold --cache-dir "$plain/small-$variant" \
                    --name "small-$variant" $only | grep '^{' >>"$plain/lines" || echo "step failed: small $variant" >&2
                # shellcheck disable=SC2086
                "$bin" bench --base "$url" --set jpeg-large --mode cold --thumbnail 256 \
                    --cache-dir "$plain/thumbnails-$variant" --name "thumbnails-$variant" $only |
                    grep '^{' >>"$plain/lines" || echo "step failed: thumbnails $variant" >&2
            done
            [ "$order" = "disk memory" ] && order="memory disk" || order="disk memory"
        done
        "$harness/origin.sh" stop "$port" >/dev/null 2>&1 || true
        python3 - "$plain/lines" <<'PY' || echo "(no summary)"
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for scenario in ("small", "thumbnails"):
    runs = {v: [l for l in lines if l["peer"] == scenario + "-" + v] for v in ("disk", "memory")}
    if not runs["disk"] or not runs["memory"]:
        print("%-10s (a variant has no successful run)" % scenario)
        continue
    def median(variant, key):
        return statistics.median(l[key] for l in runs[variant])
    disk, memory = median("disk", "images_per_s"), median("memory", "images_per_s")
    print("%-10s with disk writes %8.1f img/s (%.2f ms CPU/img), memory only %8.1f img/s (%.2f ms CPU/img): %.2fx"
          % (scenario, disk, median("disk", "cpu_ms_per_image"), memory, median("memory", "cpu_ms_per_image"),
             memory / disk))
PY
    else
        echo "(origin did not start: skipped)"
    fi
    rm -rf "$plain"
fi

echo
echo "== Thumbnail quality and cost (Benchmarks/serve/quality.sh: SSIM beside libvips, lanczos3 vs area, g:sm vs centre)"
WEBIMAGE="$bin" "$ROOT/Benchmarks/serve/quality.sh" "$harness" "$data" "$repeat" || echo "(some quality steps failed; see above)"

echo
echo "== format:best (Benchmarks/serve/best_format.sh: bytes against fixed default qualities, time per request)"
WEBIMAGE="$bin" "$ROOT/Benchmarks/serve/best_format.sh" "$harness" "$data" "$repeat" || echo "(the format:best step failed; see above)"

if [ "$micro" = 1 ]; then
    echo
    echo "== Memory hits (package-benchmark, p50 per hit)"
    (cd "$ROOT/Benchmarks" && swift package --allow-writing-to-package-directory benchmark \
        --filter 'ImageManager.*' --filter 'MemoryCache hit.*' 2>/dev/null) |
        python3 "$ROOT/Benchmarks/micro_report.py"
fi
