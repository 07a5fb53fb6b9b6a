#!/usr/bin/env bash
# The unit suite under a sanitizer (`make tsan`, `make asan`; docs/sanitizers.md).
#
#   scripts/sanitize.sh tsan                 build + run `swift test` under ThreadSanitizer
#   scripts/sanitize.sh asan                 the same under AddressSanitizer (+ UBSan for the C shims)
#   scripts/sanitize.sh tsan-engine ARGS...  the end-to-end suite from the TSan build (not in make tsan)
#
# Each sanitizer builds in a scratch path of its own (.build/tsan, .build/asan), so the normal
# .build is untouched. Reports are written to .build/<san>/reports-<mode>/ and any report fails the run:
# TSan and UBSan report and go on (so one run lists them all), ASan stops at its first error.
# Suppressions, each with its reason, are in scripts/sanitizers/.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/sanitize.sh tsan|asan|tsan-engine [args]}
shift
supp=$PWD/scripts/sanitizers

case "$mode" in
  tsan|tsan-engine)
    scratch=.build/tsan
    flags=(--sanitize=thread --scratch-path "$scratch")
    ;;
  asan)
    scratch=.build/asan
    # swiftc has no -sanitize=undefined on Linux; clang does, and the ASan runtime carries the
    # UBSan handlers, so the C targets (the shims) get UBSan and the whole program ASan.
    flags=(--sanitize=address -Xcc -fsanitize=undefined --scratch-path "$scratch")
    ;;
  *) echo "sanitize.sh: unknown mode $mode (tsan, asan, tsan-engine)" >&2; exit 2 ;;
esac

reports=$PWD/$scratch/reports-$mode
rm -rf "$reports"
mkdir -p "$reports"

start=$(date +%s)
if [ "$mode" != tsan-engine ]; then
  swift build --build-tests "${flags[@]}" || exit 1
fi
built=$(date +%s)

# Swift's own crash reporter reads memory the sanitizers do not know about: leave crashes to them.
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="suppressions=$supp/tsan.supp log_path=$reports/tsan second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="suppressions=$supp/asan.supp log_path=$reports/asan detect_leaks=0 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="suppressions=$supp/ubsan.supp log_path=$reports/ubsan print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"

case "$mode" in
  tsan|asan)
    xvfb-run -a swift test --skip-build "${flags[@]}" --no-parallel "$@"
    status=$?
    ;;
  tsan-engine)
    xvfb-run -a "$scratch/debug/hybrid-engine-tests" --no-parallel "$@"
    status=$?
    ;;
esac
end=$(date +%s)

found=$(find "$reports" -type f | sort)
echo "sanitize.sh $mode: build $((built - start)) s, run $((end - built)) s, exit $status"
if [ -n "$found" ]; then
  echo "sanitize.sh $mode: reports in $reports:" >&2
  for file in $found; do
    grep -a -h -E '^(SUMMARY|WARNING):' "$file" | sort | uniq -c >&2
  done
  exit 1
fi
exit "$status"
