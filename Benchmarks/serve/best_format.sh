#!/usr/bin/env bash
# What `format:best` saves and what it costs: the 2K photos fitted into 512 px by `webimage serve`
# (no result cache, so each request makes its result), as JPEG, WebP and AVIF at the server's
# default qualities (80, 79, 63) and with f:best under a browser's Accept (AVIF, WebP, JPEG
# searched to the auto-quality target: the default SSIM 0.98, and 0.95 on a second server).
# Prints the bytes of each, what best saves against each, and the median time per request of the
# fixed JPEG and of best (requests interleaved).
#
# Usage: Benchmarks/serve/best_format.sh HARNESS DATA [REPEAT]
#   HARNESS  the shared bench harness (origin.sh); DATA  its dataset (jpeg-2k/)
#   WEBIMAGE=path/to/webimage (default .build/release/webimage); IMAGES (default 8): photos used;
#   PORT_BASE (default 9390): the origin and the two servers listen on PORT_BASE+11, +12 and +13.
set -uo pipefail
cd "$(dirname "$0")/../.."
harness=${1:?usage: $0 HARNESS DATA [REPEAT]}
data=${2:?usage: $0 HARNESS DATA [REPEAT]}
repeat=${3:-3}
webimage=${WEBIMAGE:-.build/release/webimage}
images=${IMAGES:-8}
base=${PORT_BASE:-9390}
origin_port=$((base + 11)) serve_port=$((base + 12)) low_port=$((base + 13))
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }

. Benchmarks/serve/serve_steps.sh

origin="$("$harness/origin.sh" start "$data" "$origin_port" 2>/dev/null)" || { echo "(origin did not start: skipped)"; exit 0; }
setsid "$webimage" serve --port "$serve_port" --allow-private-sources --no-cache --log-level warning >/dev/null 2>&1 &
pids+=($!)
setsid "$webimage" serve --port "$low_port" --allow-private-sources --no-cache --log-level warning \
    --autoquality-target 0.95 >/dev/null 2>&1 &
pids+=($!)
listening "$serve_port" health && listening "$low_port" health || { echo "(webimage serve did not start: skipped)"; exit 0; }

accept="image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
server="http://127.0.0.1:$serve_port/insecure/rs:fit:512:512"
files=$(cd "$data/jpeg-2k" && ls | sort | head -"$images")
# One line per request: variant, file, bytes, seconds.
for round in $(seq "$repeat"); do
    for file in $files; do
        src="$origin/jpeg-2k/$file"
        for variant in jpeg webp avif best best95; do
            # Sizes are the same every round: only the first round's are kept.
            case "$variant" in
                best) url="$server/f:best/plain/$src" ;;
                best95) url="http://127.0.0.1:$low_port/insecure/rs:fit:512:512/f:best/plain/$src" ;;
                *) url="$server/plain/$src@$variant" ;;
            esac
            out=$(curl -s -o /dev/null -H "Accept: $accept" -w '%{http_code} %{size_download} %{time_total}' "$url")
            echo "$round $variant $file $out"
        done
    done
done | python3 -c 'import collections, statistics, sys
sizes, times, failed = collections.defaultdict(dict), collections.defaultdict(list), 0
for line in sys.stdin:
    round_, variant, name, status, size, seconds = line.split()
    if status != "200":
        failed += 1
        continue
    sizes[variant][name] = int(size)
    times[variant].append(float(seconds) * 1000)
if failed: print("  (%d requests failed)" % failed)
names = sorted(set.intersection(*(set(v) for v in sizes.values()))) if len(sizes) == 5 else []
if not names: sys.exit("  no image answered in every variant")
total = {v: sum(sizes[v][n] for n in names) for v in sizes}
print("  %d photos at 512 px: JPEG q80 %d KB, WebP q79 %d KB, AVIF q63 %d KB; best %d KB at SSIM 0.98, %d KB at 0.95"
      % (len(names), total["jpeg"] / 1024, total["webp"] / 1024, total["avif"] / 1024, total["best"] / 1024,
         total["best95"] / 1024))
for variant, target in (("best", "0.98"), ("best95", "0.95")):
    print("  best at SSIM %s saves %.0f%% against JPEG, %.0f%% against WebP, %.0f%% against AVIF at their default qualities"
          % ((target,) + tuple(100 * (1 - total[variant] / total[v]) for v in ("jpeg", "webp", "avif"))))
median = {v: statistics.median(times[v]) for v in ("jpeg", "best", "best95")}
print("  time per request (median): JPEG %.0f ms, best %.0f ms (%.1fx), best at 0.95 %.0f ms (%.1fx)"
      % (median["jpeg"], median["best"], median["best"] / median["jpeg"], median["best95"], median["best95"] / median["jpeg"]))'
