#!/usr/bin/env bash
# The real-peer tests as shards that run at the same time, each one test at a time under
# the watchdog of scripts/run-tests.sh:
#
#   scripts/run-shards.sh LIMIT_SECONDS TEST_BINARY NAME FILTERS SKIPS [NAME FILTERS SKIPS ...]
#
# FILTERS and SKIPS are space-separated regular expressions matched against test ids
# ("Target.Suite/test()"), as `swift test --filter/--skip` take them; "-" is none. The
# Makefile defines the shards so that together they are every real-peer test exactly once
# (one shard's filter is another's skip) and so that shards share no fixed port, system
# daemon or global file: every suite makes its own temporary home, ports and peers, and
# the suites that use the one avahi-daemon are all in one shard.
#
# The test binary is run directly, not through `swift test`, which holds a lock on .build
# for as long as it runs. Every suite uses Swift Testing (a suite written with XCTest would
# not be run here, so this refuses to start when one exists). Each line of output carries
# its shard's name; the end says how long each shard took and which tests failed.
set -uo pipefail

limit=$1
binary=$2
shift 2
cd "$(dirname "$0")/.."

if grep -rlq --include='*.swift' '^import XCTest' Tests; then
    echo "run-shards: a test imports XCTest; Photon's suites use Swift Testing, which is what the shards run:" >&2
    grep -rl --include='*.swift' '^import XCTest' Tests >&2
    exit 2
fi
if [ ! -x "$binary" ]; then
    echo "run-shards: no test binary at $binary (run \`swift build --build-tests\` first)" >&2
    exit 2
fi

names=()
pids=()
logs=()
while [ $# -ge 3 ]; do
    name=$1 filters=$2 skips=$3
    shift 3
    arguments=(--testing-library swift-testing --no-parallel)
    if [ "$filters" != - ]; then for regex in $filters; do arguments+=(--filter "$regex"); done; fi
    if [ "$skips" != - ]; then for regex in $skips; do arguments+=(--skip "$regex"); done; fi
    log=$(mktemp "${TMPDIR:-/tmp}/photon-shard-$name.XXXXXX")
    (
        start=$SECONDS
        NO_COLOR=1 scripts/run-tests.sh "$limit" "real-peer shard $name" "$binary" "${arguments[@]}" 2>&1 |
            tee "$log" | sed -u "s/^/[$name] /"
        status=${PIPESTATUS[0]}
        echo "[$name] shard ended ($status) after $((SECONDS - start)) s"
        exit "$status"
    ) &
    names+=("$name")
    pids+=($!)
    logs+=("$log")
done
if [ $# -ne 0 ]; then
    echo "run-shards: each shard is NAME FILTERS SKIPS; left over: $*" >&2
    exit 2
fi

failed=0
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
        failed=1
        echo "run-shards: shard ${names[$i]} failed; its failures:" >&2
        grep -E '^[^ ]+ (Test|Suite) .*(failed|recorded an issue)' "${logs[$i]}" | head -40 | sed 's/^/  /' >&2
    fi
    summary=$(grep -E '^[^ ]+ Test run with' "${logs[$i]}" | tail -1)
    echo "run-shards: ${names[$i]}: ${summary:-no summary (the test process did not finish)}"
    rm -f "${logs[$i]}"
done
exit "$failed"
