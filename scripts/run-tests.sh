#!/usr/bin/env bash
# One phase of the test suite under a watchdog:
#
#   scripts/run-tests.sh LIMIT_SECONDS PHASE_NAME swift test ...
#
# The whole suite takes about two minutes, so a phase still running after LIMIT_SECONDS
# is stuck, not slow. Then the watchdog prints the stack of every thread of the test
# process (with gdb, when it is installed) and the tests that started but never ended,
# stops the phase and exits 124: a hang costs minutes of CI and says where it is, instead
# of running into CI's own limit with nothing to show. Output is line-buffered, so the
# last line of a log is the last thing the tests printed.
set -uo pipefail

limit=$1
phase=$2
shift 2

log=$(mktemp "${TMPDIR:-/tmp}/photon-test-phase.XXXXXX")
trap 'rm -f "$log"' EXIT

# Its own process group, so the watchdog can stop swift-test and the test process at once.
setsid stdbuf -oL -eL "$@" > >(tee "$log") 2>&1 &
runner=$!

for ((waited = 0; waited < limit; waited++)); do
    if ! kill -0 "$runner" 2>/dev/null; then
        wait "$runner"
        exit $?
    fi
    sleep 1
done

echo "run-tests: the $phase tests ran past ${limit} s; they are stuck, not slow" >&2
descendants() { local child; for child in $(ps -o pid= --ppid "$1"); do echo "$child"; descendants "$child"; done; }
tests=
# The test process is the runner itself when the test binary is run directly (stdbuf execs it).
for pid in "$runner" $(descendants "$runner"); do
    case "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" in *.xctest*) tests=$pid; break ;; esac
done
echo "run-tests: tests that started and have not ended:" >&2
# A suite or a test whose start has no end line ("passed", "failed", "skipped").
grep -E '^. (Suite|Test) ' "$log" | sed -E 's/^. (Suite|Test) ([^ ]+).*(started|passed|failed|skipped).*/\3 \1 \2/' |
    awk '$3 != "run" && $1 == "started" { open[$2" "$3] = 1 } $1 != "started" { delete open[$2" "$3] } END { for (k in open) print "  " k }' >&2
if [ -n "$tests" ] && command -v gdb >/dev/null; then
    echo "run-tests: the threads of the test process $tests:" >&2
    timeout 60 gdb -p "$tests" -batch -ex 'thread apply all bt 25' 2>/dev/null | grep -E '^(Thread|#)' >&2
fi
all=$(descendants "$runner")
kill -TERM -- "-$runner" $all 2>/dev/null
sleep 2
kill -KILL -- "-$runner" $all 2>/dev/null
wait "$runner" 2>/dev/null
exit 124
