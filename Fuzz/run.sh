#!/usr/bin/env bash
# Builds Photon's fuzz targets (libFuzzer + AddressSanitizer, release) and runs them.
#   Fuzz/run.sh [SECONDS] [TARGET...]
# Each target first replays every input that ever crashed it (FailCases/<target>/) and
# its checked-in corpus (Corpus/<target>/), then fuzzes for SECONDS (default 60).
# New interesting inputs go to .scratch/<target>/ (not the repository); a crash is
# written there as crash-<sha1> and the script fails. To keep one: move it into
# FailCases/<target>/ with the fix and a unit test. A past input that is merely slow fails
# the replay too (10 s per input). Options/<target>.max_len raises a target's input size
# (8192 bytes by default) where its attacks need larger inputs.
# Environment: FUZZ_RUNS=N stops each target after N executions instead of at SECONDS.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
export SWIFT_BACKTRACE=enable=no   # the Swift backtracer would hide the sanitizer's report
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld >&2
bin=$(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld --show-bin-path)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=($(ls Sources))
fi
status=0
printf '%-24s %12s %10s %8s  %s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
  mkdir -p ".scratch/$t" "FailCases/$t" "Corpus/$t"
  log=".scratch/$t.log"
  if ls "FailCases/$t/"* >/dev/null 2>&1; then
    if ! "$bin/$t" -timeout=10 "FailCases/$t/"* >".scratch/$t.replay.log" 2>&1; then
      echo "REGRESSION in $t: a past crash input crashes again"; tail -n 40 ".scratch/$t.replay.log"; status=1; continue
    fi
  fi
  dict=(); [ -f "Dictionaries/$t.dict" ] && dict=(-dict="Dictionaries/$t.dict")
  limit=(-max_total_time="$seconds"); [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  max_len=8192; [ -f "Options/$t.max_len" ] && max_len=$(cat "Options/$t.max_len")
  if "$bin/$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 "${dict[@]}" \
      -artifact_prefix=".scratch/$t/" ".scratch/$t" "Corpus/$t" >"$log" 2>&1; then
    result=ok
  else
    result=FINDING; status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  units=$(ls ".scratch/$t" "Corpus/$t" 2>/dev/null | grep -vc ':$' || true)
  printf '%-24s %12s %10s %8s  %s\n' "$t" "$runs" "$speed" "$units" "$result"
  if [ "$result" != ok ]; then tail -n 60 "$log"; ls ".scratch/$t/"crash-* ".scratch/$t/"timeout-* ".scratch/$t/"oom-* 2>/dev/null || true; fi
done
exit $status
