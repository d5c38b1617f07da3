# Sourced by the serve benchmark scripts once `harness` and `origin_port` are set: the process
# groups they start (`pids+=($!)` after a `setsid … &`), stopped on exit with the harness's origin,
# and `listening PORT PATH`, which waits up to a minute for a local server to answer.
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
    "$harness/origin.sh" stop "$origin_port" >/dev/null 2>&1 || true
}
trap cleanup EXIT
listening() { for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$1/$2" && return 0; sleep 0.1; done; return 1; }
