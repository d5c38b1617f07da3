#!/usr/bin/env bash
# Result-cache hits of `webimage serve`: one URL made once, then asked again and again by wrk
# (2 threads, 4 connections) on the same machine; prints each run's requests/s and p50/p99.
#
# Usage: Benchmarks/serve/cache_hits.sh SOURCE_URL [RUNS] [SECONDS]
#        (after swift build -c release --product webimage; needs wrk)
#   SOURCE_URL  any image over http(s), e.g. http://127.0.0.1:8089/jpeg-2k/0001.jpg from
#               ../shared/bench/origin.sh; the result asked for is rs:fit:512:512 at q80 as JPEG.
#   WEBIMAGE=path/to/webimage compares another build; PORT (default 9390) is the server's port.
set -euo pipefail
cd "$(dirname "$0")/../.."
source_url=${1:?usage: $0 SOURCE_URL [RUNS] [SECONDS]}
runs=${2:-3}
seconds=${3:-8}
webimage=${WEBIMAGE:-.build/release/webimage}
port=${PORT:-9390}
[ -x "$webimage" ] || { echo "build first: swift build -c release --product webimage" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is needed (apt install wrk)" >&2; exit 2; }
cache=$(mktemp -d)
"$webimage" serve --port "$port" --allow-private-sources --cache-dir "$cache" --log-level warning >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$cache"' EXIT
url="http://127.0.0.1:$port/insecure/rs:fit:512:512/q:80/plain/$source_url@jpg"
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
status=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "$url")
echo "made once: HTTP $status bytes"
for run in $(seq "$runs"); do
  wrk -t2 -c4 -d"${seconds}s" --latency "$url" |
    awk -v run="$run" '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Requests\/sec/ {rps=$2}
                       END {printf "run %d: %.0f req/s, p50 %s, p99 %s\n", run, rps, p50, p99}'
done
