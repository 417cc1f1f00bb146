#!/usr/bin/env bash
# Fuzzes the perf.data reader for a bounded time (default 60 s):
#
#   scripts/run-fuzz.sh [SECONDS]
#
# Configures build-fuzz with clang (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer; Debian: clang, libclang-rt-14-dev), writes a
# seed corpus of small IBS captures with make-ibs-example, and runs the
# target. Exits non-zero when the fuzzer finds a crash (the input is left
# in build-fuzz/crashes/).
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
cd "$root"
if [ ! -f "$build/build.ninja" ]; then
  CXX=${CXX:-clang++} meson setup "$build" -Dfuzz=true -Dtests=false -Dtools=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
fi
ninja -C "$build" fuzz/perf_data_fuzz examples/make-ibs-example
corpus=$build/corpus
mkdir -p "$corpus" "$build/crashes"
for n in 1 3 20 60; do
  "$build/examples/make-ibs-example" "$corpus/seed-$n.data" --samples "$n"
done
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$build/fuzz/perf_data_fuzz" "$corpus" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -artifact_prefix="$build/crashes/" -print_final_stats=1
