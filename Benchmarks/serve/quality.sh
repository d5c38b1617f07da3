#!/usr/bin/env bash
# What `webimage serve`'s thumbnails look like and what their filter and smart crop cost, beside
# libvips (imgproxy's engine) in the same run:
#   1. quality: the server's PNG fit-inside results of the 2K photos at 512 px and of the
#      4000×3000 photos at 256 px against a lanczos3 downscale of the full decode (the harness's
#      serve/resize_quality.py: mean luma SSIM and PSNR), for webimage and for libvips with
#      imgproxy's steps (the harness's serve/vips_server.sh), when that peer can be installed;
#   2. filter cost: `webimage decode-bench` thumbnails with lanczos3 (the default) and with the
#      area filter, interleaved (ms per image, medians);
#   3. smart crop cost: the server's CPU time per 512×512 `fill` of the 2K photos with smart
#      gravity (`g:sm`) and with the centre, alternated image by image (from /proc's utime+stime).
#
# Usage: Benchmarks/serve/quality.sh HARNESS DATA [REPEAT]
#   HARNESS  the shared bench harness (origin.sh, serve/); DATA  its dataset (jpeg-2k/, jpeg-large/)
#   WEBIMAGE=path/to/webimage (default .build/release/webimage); PORT_BASE (default 9390): the
#   origin, webimage and libvips listen on PORT_BASE+8, +9 and +10.
set -uo pipefail
cd "$(dirname "$0")/../.."
harness=${1:?usage: $0 HARNESS DATA [REPEAT]}
data=${2:?usage: $0 HARNESS DATA [REPEAT]}
repeat=${3:-3}
webimage=${WEBIMAGE:-.build/release/webimage}
base=${PORT_BASE:-9390}
origin_port=$((base + 8)) serve_port=$((base + 9)) vips_port=$((base + 10))
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }

. Benchmarks/serve/serve_steps.sh

origin="$("$harness/origin.sh" start "$data" "$origin_port" 2>/dev/null)" || { echo "(origin did not start: skipped)"; exit 0; }
setsid "$webimage" serve --port "$serve_port" --allow-private-sources --no-cache --log-level warning >/dev/null 2>&1 &
pids+=($!)
serve_pid=$!
listening "$serve_port" health || { echo "(webimage serve did not start: skipped)"; exit 0; }
servers=("webimage=http://127.0.0.1:$serve_port/insecure/rs:fit:{w}:{h}/q:80/plain/{src}@png")
if "$harness/serve/vips_server.sh" --install >/dev/null 2>&1; then
    setsid "$harness/serve/vips_server.sh" --port "$vips_port" >/dev/null 2>&1 &
    pids+=($!)
    if listening "$vips_port" ""; then
        servers+=("libvips=http://127.0.0.1:$vips_port/insecure/rs:fit:{w}:{h}/q:80/plain/{src}@png")
    else
        echo "(libvips peer did not start: webimage alone)"
    fi
else
    echo "(libvips peer could not be installed: webimage alone)"
fi

echo "-- quality: PNG fit-inside results vs lanczos3 from the full decode"
for set_box in "jpeg-2k 512" "jpeg-large 256"; do
    read -r set box <<<"$set_box"
    sources=()
    for file in $(cd "$data/$set" && ls | sort | head -12); do sources+=("$origin/$set/$file"); done
    echo "$set at $box px:"
    python3 "$harness/serve/resize_quality.py" --box "$box" "${servers[@]}" -- "${sources[@]}" | sed 's/^/  /'
done

echo "-- filter cost: decode-bench thumbnails, lanczos3 vs area (ms per image, median of $repeat)"
for set_box in "jpeg-2k 512" "jpeg-large 256"; do
    read -r set box <<<"$set_box"
    lines=$(for _ in $(seq "$repeat"); do
        for filter in lanczos3 area; do "$webimage" decode-bench "$data/$set" --thumbnail "$box" --filter "$filter" --reps 2; done
    done)
    printf '%s\n' "$lines" | python3 -c 'import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.startswith("{")]
ms = {f: statistics.median(r["ms_per_image"] for r in rows if r["filter"] == f) for f in ("lanczos3", "area")}
print("  %s at %s px: lanczos3 %.1f ms, area %.1f ms: %.2fx" % (sys.argv[1], sys.argv[2], ms["lanczos3"], ms["area"],
      ms["lanczos3"] / ms["area"]))' "$set" "$box"
done

echo "-- smart crop cost: server CPU per 512x512 fill of the 2K photos, g:sm vs centre"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$serve_pid/stat"; }
files=$(cd "$data/jpeg-2k" && ls | sort)
declare -A ticks=([sm]=0 [ce]=0)
count=0
for _ in $(seq "$repeat"); do
    for file in $files; do
        for gravity in sm ce; do
            before=$(cpu_ticks)
            curl -s -o /dev/null "http://127.0.0.1:$serve_port/insecure/rs:fill:512:512/g:$gravity/q:80/plain/$origin/jpeg-2k/$file@jpg"
            ticks[$gravity]=$((ticks[$gravity] + $(cpu_ticks) - before))
        done
        count=$((count + 1))
    done
done
hz=$(getconf CLK_TCK)
python3 -c 'import sys
sm, ce, n, hz = (float(a) for a in sys.argv[1:])
print("  g:sm %.1f ms, centre %.1f ms per image over %d images: %.2fx" % (sm * 1000 / hz / n, ce * 1000 / hz / n, n, sm / ce))' \
    "${ticks[sm]}" "${ticks[ce]}" "$count" "$hz"
