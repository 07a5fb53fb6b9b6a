#!/usr/bin/env bash
# Builds the libFuzzer harness and runs fuzz targets (docs/fuzzing.md).
#
#   scripts/fuzz.sh build                 build .build/fuzz/hybrid-fuzz only
#   scripts/fuzz.sh run [SECONDS] [T...]  fuzz each target (default: all) for SECONDS (default 60)
#   scripts/fuzz.sh list                  the target names
#
# The library modules are built by SwiftPM with `-sanitize=fuzzer,address` in their own scratch
# path (.build/fuzz), so the normal .build is untouched. The property checks
# (Tests/HybridFuzzTests/Checks, also compiled into the unit tests) and Fuzz/FuzzMain.swift are
# then compiled with the flags SwiftPM planned for the HybridFuzzTests target and linked once
# into one executable; FUZZ_TARGET picks the target at run time.
#
# A run uses Fuzz/corpus/<target> (seeds, read only) and Fuzz/dict/<target>.dict; new inputs go to
# .build/fuzz/corpus/<target>. A crash is minimised into Fuzz/regressions/<target>/ and the run
# fails; the unit tests replay every file there (Tests/HybridFuzzTests). Environment:
# FUZZ_JOBS (targets run at once, default 1), FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$root/.build/fuzz
binary=$scratch/hybrid-fuzz

targets() { sed -n 's/^ *case [A-Za-z]* *= *"\([a-z-]*\)"$/\1/p; s/^ *case \([a-z]*\)$/\1/p' Tests/HybridFuzzTests/Checks/FuzzTarget.swift; }

build() {
  local started=$SECONDS
  swift build --scratch-path "$scratch" --target HybridFuzzTests -Xswiftc -sanitize=fuzzer,address >&2
  local debug
  debug=$(swift build --scratch-path "$scratch" --show-bin-path)
  # What SwiftPM planned for the test target: its module maps, C flags and import paths.
  local plan=$debug/description.json
  local key
  key=$(jq -r '.swiftCommands | keys[] | select(startswith("C.HybridFuzzTests-"))' "$plan")
  mapfile -t flags < <(jq -r --arg key "$key" '.swiftCommands[$key].otherArguments[]' "$plan" | python3 -c '
import sys
drop_with_value = {"-index-store-path", "-package-name"}
drop = {"-incremental", "-enable-batch-mode", "-serialize-diagnostics", "-parseable-output", "-parse-as-library"}
args = [line.rstrip("\n") for line in sys.stdin]
skip = False
for arg in args:
    if skip: skip = False; continue
    if arg in drop_with_value: skip = True; continue
    if arg in drop: continue
    print(arg)')
  local import_path
  import_path=$(jq -r --arg key "$key" '.swiftCommands[$key].importPath' "$plan")
  # Objects and libraries of every target the test target depends on (transitively), from the manifest.
  swift package dump-package >"$scratch/package.json"
  mapfile -t link < <(python3 - "$debug" "$scratch/package.json" <<'PY'
import json, subprocess, sys, glob, os
debug = sys.argv[1]
targets = {t["name"]: t for t in json.load(open(sys.argv[2]))["targets"]}
seen, todo = set(), ["HybridFuzzTests"]
while todo:
    name = todo.pop()
    if name in seen or name not in targets: continue
    seen.add(name)
    for dep in targets[name].get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep: todo.append(dep[kind][0])
for name in sorted(seen - {"HybridFuzzTests"}):
    target = targets[name]
    if target["type"] == "system":
        if target.get("pkgConfig"):
            for flag in subprocess.run(["pkg-config", "--libs", target["pkgConfig"]], capture_output=True, text=True, check=True).stdout.split():
                print(flag)
        continue
    for obj in sorted(glob.glob(os.path.join(debug, name + ".build", "*.o"))):
        print(obj)
    for setting in target.get("settings", []):
        kind = setting.get("kind", {})
        if "linkedLibrary" in kind:
            print("-l" + kind["linkedLibrary"]["_0"])
PY
)
  # -pthread and -Wl,... from pkg-config go to the linker as swiftc spells them.
  local linkflags=()
  for flag in "${link[@]}"; do
    case $flag in
      -pthread) linkflags+=(-Xlinker -lpthread) ;;
      -Wl,*) linkflags+=(-Xlinker "${flag#-Wl,}") ;;
      *) linkflags+=("$flag") ;;
    esac
  done
  swiftc "${flags[@]}" -I "$import_path" -module-name HybridFuzz -parse-as-library \
    -module-cache-path "$scratch/ModuleCache" \
    Tests/HybridFuzzTests/Checks/*.swift Fuzz/FuzzMain.swift "${linkflags[@]}" -o "$binary" 2>&1 \
    | grep -v "Cannot export local symbol '__asan" >&2 || true
  [[ -x $binary ]] || { echo "fuzz.sh: linking $binary failed" >&2; exit 1; }
  echo "fuzz.sh: built $binary in $((SECONDS - started)) s" >&2
}

# Fuzzes one target for $1 seconds; a crash is minimised into Fuzz/regressions/<target>/.
run_one() {
  local seconds=$1 name=$2
  local work=$scratch/corpus/$name artifacts=$scratch/crashes/$name
  mkdir -p "$work" "$artifacts"
  local dict=()
  [[ -f Fuzz/dict/$name.dict ]] && dict=(-dict="Fuzz/dict/$name.dict")
  local log=$scratch/logs/$name.log
  mkdir -p "$(dirname "$log")"
  # ASan: leaks are not properties here (the runtime's caches live for the process).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
  # Swift's own crash reporter reads foreign memory, which AddressSanitizer reports in place of the real trap.
  export SWIFT_BACKTRACE=enable=no
  if FUZZ_TARGET=$name "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" ${FUZZ_ARGS:-} "$work" "Fuzz/corpus/$name" >"$log" 2>&1; then
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz $name: ${seconds}s, ${runs:-?} executions, no crash"
    return 0
  fi
  local crash
  crash=$(ls -t "$artifacts"/{crash,timeout,oom,leak}-* 2>/dev/null | head -1 || true)
  echo "fuzz $name: FAILED (log: $log)" >&2
  grep -m3 -E "Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY" "$log" >&2 || tail -20 "$log" >&2
  if [[ -n $crash ]]; then
    mkdir -p "Fuzz/regressions/$name"
    local minimised=Fuzz/regressions/$name/$(basename "$crash")
    FUZZ_TARGET=$name "$binary" -minimize_crash=1 -max_total_time=30 -runs=100000 -exact_artifact_path="$minimised" "$crash" \
      >"$log.minimise" 2>&1 || true
    [[ -f $minimised ]] || cp "$crash" "$minimised"
    echo "fuzz $name: crash input kept as $minimised (replayed by the unit tests)" >&2
  fi
  return 1
}

cmd=${1:-run}
shift || true
case $cmd in
  list) targets ;;
  build) build ;;
  run)
    seconds=${1:-${FUZZ_SECONDS:-60}}
    shift || true
    selected=("$@")
    ((${#selected[@]})) || mapfile -t selected < <(targets)
    build
    status=0
    jobs=${FUZZ_JOBS:-1}
    # Runs up to $jobs targets at once; results print as each ends.
    pids=()
    for name in "${selected[@]}"; do
      run_one "$seconds" "$name" &
      pids+=($!)
      if ((${#pids[@]} >= jobs)); then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
      fi
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    exit $status
    ;;
  *) echo "usage: scripts/fuzz.sh [build | run [SECONDS] [TARGET...] | list]" >&2; exit 2 ;;
esac
