#!/usr/bin/env bash
# Runs each fuzz target for FUZZ_SECONDS (default 60) under `nice`, one after another, on its
# corpus in Fuzz/corpus/<target>/ (seeded by Fuzz/build/seed-corpus the first time). Findings go
# to Fuzz/artifacts/<target>/, full logs to Fuzz/logs/<target>.log; a summary line per target
# (executions, exec/s, cov, ft) is printed at the end. Exits non-zero when any target found
# something.
#
# Usage: Fuzz/run.sh [target...]   (default: sniff jpeg png gif webp svg avif heif jxl tiff bmpico incremental icc filename request)
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
NICE=${FUZZ_NICE:-10}
# Wall-clock seconds per input; raise it on a machine so loaded that `nice` leaves the target a
# few percent of a core (then check each timeout artifact's CPU time by re-running it).
TIMEOUT=${FUZZ_TIMEOUT:-10}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(sniff jpeg png gif webp svg avif heif jxl tiff bmpico incremental icc filename request)

# libFuzzer's options: bounded memory (so an over-allocation is a finding, not a swap storm)
# and a per-input timeout (so a hang is a finding).
LIBFUZZER_OPTIONS=(-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout="$TIMEOUT" -print_final_stats=1)

# Leaks inside third-party libraries, each with its reason.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

if [ ! -x Fuzz/build/seed-corpus ]; then Fuzz/build.sh seeds; fi
mkdir -p Fuzz/logs
summary=()
failed=0
for target in "${targets[@]}"; do
  binary=Fuzz/build/fuzz-$target
  [ -x "$binary" ] || { echo "fuzz: $binary is missing; run Fuzz/build.sh $target" >&2; exit 2; }
  corpus=Fuzz/corpus/$target
  [ -d "$corpus" ] || Fuzz/build/seed-corpus Fuzz/corpus >/dev/null
  mkdir -p "Fuzz/artifacts/$target"
  log=Fuzz/logs/$target.log
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s (log: $log)" >&2
  nice -n "$NICE" "$binary" "${LIBFUZZER_OPTIONS[@]}" -max_total_time="$SECONDS_PER_TARGET" \
    -artifact_prefix="Fuzz/artifacts/$target/" "$corpus" >"$log" 2>&1
  status=$?
  last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p' <<<"$last")
  if [ $status -eq 0 ]; then outcome="clean"; else outcome="FINDING (exit $status, see $log)"; failed=1; fi
  summary+=("$target: ${runs:-?} executions, ${speed:-?} exec/s, ${cov:-no coverage line}: $outcome")
done
printf 'fuzz summary (%ss per target):\n' "$SECONDS_PER_TARGET"
printf '  %s\n' "${summary[@]}"
exit $failed
