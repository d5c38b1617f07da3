#!/usr/bin/env bash
# What `format:best` saves and what it costs: the 2K photos fitted into 512 px by `webimage serve`
# (no result cache, so each request makes its result), as JPEG, WebP and AVIF at the server's
# default qualities (80, 79, 63) and with f:best under a browser's Accept (AVIF, WebP, JPEG
# searched to the auto-quality target). Prints the bytes of each, what best saves against each,
# and the median time per request of the fixed JPEG and of best (requests interleaved).
#
# Usage: Benchmarks/serve/best_format.sh HARNESS DATA [REPEAT]
#   HARNESS  the shared bench harness (origin.sh); DATA  its dataset (jpeg-2k/)
#   WEBIMAGE=path/to/webimage (default .build/release/webimage); IMAGES (default 8): photos used;
#   PORT_BASE (default 9390): the origin and webimage listen on PORT_BASE+11 and +12.
set -uo pipefail
cd "$(dirname "$0")/../.."
harness=${1:?usage: $0 HARNESS DATA [REPEAT]}
data=${2:?usage: $0 HARNESS DATA [REPEAT]}
repeat=${3:-3}
webimage=${WEBIMAGE:-.build/release/webimage}
images=${IMAGES:-8}
base=${PORT_BASE:-9390}
origin_port=$((base + 11)) serve_port=$((base + 12))
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }

serve_pid=""
cleanup() {
    [ -n "$serve_pid" ] && { kill -TERM -- "-$serve_pid" 2>/dev/null || kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; }
    "$harness/origin.sh" stop "$origin_port" >/dev/null 2>&1 || true
}
trap cleanup EXIT
listening() { for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$1/$2" && return 0; sleep 0.1; done; return 1; }

origin="$("$harness/origin.sh" start "$data" "$origin_port" 2>/dev/null)" || { echo "(origin did not start: skipped)"; exit 0; }
setsid "$webimage" serve --port "$serve_port" --allow-private-sources --no-cache --log-level warning >/dev/null 2>&1 &
serve_pid=$!
listening "$serve_port" health || { echo "(webimage serve did not start: skipped)"; exit 0; }

accept="image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
server="http://127.0.0.1:$serve_port/insecure/rs:fit:512:512"
files=$(cd "$data/jpeg-2k" && ls | sort | head -"$images")
# One line per request: variant, file, bytes, seconds.
for round in $(seq "$repeat"); do
    for file in $files; do
        src="$origin/jpeg-2k/$file"
        for variant in jpeg webp avif best; do
            # Sizes are the same every round: only the first round's are kept.
            if [ "$variant" = best ]; then url="$server/f:best/plain/$src"; else url="$server/plain/$src@$variant"; fi
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
names = sorted(set.intersection(*(set(v) for v in sizes.values()))) if len(sizes) == 4 else []
if not names: sys.exit("  no image answered in every variant")
total = {v: sum(sizes[v][n] for n in names) for v in sizes}
print("  %d photos at 512 px: JPEG q80 %d KB, WebP q79 %d KB, AVIF q63 %d KB, best %d KB"
      % (len(names), total["jpeg"] / 1024, total["webp"] / 1024, total["avif"] / 1024, total["best"] / 1024))
print("  best saves %.0f%% against JPEG, %.0f%% against WebP, %.0f%% against AVIF at their default qualities"
      % tuple(100 * (1 - total["best"] / total[v]) for v in ("jpeg", "webp", "avif")))
jpeg, best = statistics.median(times["jpeg"]), statistics.median(times["best"])
print("  time per request (median): JPEG %.0f ms, best %.0f ms: %.1fx" % (jpeg, best, best / jpeg))'
