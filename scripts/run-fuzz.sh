#!/usr/bin/env bash
# Fuzzes tagop's readers of untrusted input for a bounded time in all
# (default 60 s):
#
#   scripts/run-fuzz.sh [SECONDS]
#
# Four libFuzzer targets (fuzz/): the perf.data reader gets half the time,
# the predicate parser, the text reader of `decode --input` and the event
# lookup a sixth each. Configures build-fuzz with clang (libFuzzer,
# AddressSanitizer, UndefinedBehaviorSanitizer; Debian: clang,
# libclang-rt-14-dev). Each target starts from its corpus in the
# repository, fuzz/corpus/TARGET/ (the perf.data reader's is written here
# by make-ibs-example), and adds what it finds to build-fuzz/corpus/TARGET,
# not to the repository. Exits non-zero when a target finds a crash, a
# hang (10 s for one input) or a leak; the input is left in
# build-fuzz/crashes/.
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
cd "$root"
if [ ! -f "$build/build.ninja" ]; then
  # -O0: the library is compiled a third time in CI for this minute of
  # fuzzing, and at -O2 that compile cost minutes of CI's thirty.
  CXX=${CXX:-clang++} meson setup "$build" -Dfuzz=true -Dtests=false -Dtools=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
targets=(perf_data_fuzz predicate_fuzz ibs_sample_text_fuzz event_lookup_fuzz)
ninja -C "$build" "${targets[@]/#/fuzz/}" examples/make-ibs-example
mkdir -p "$build/crashes"

# The perf.data seeds are binary captures: written, not kept.
seeds=$build/seeds/perf_data
mkdir -p "$seeds"
for n in 1 3 20 60; do
  "$build/examples/make-ibs-example" "$seeds/seed-$n.data" --samples "$n"
done

run() {
  local target=$1 time=$2 max_len=$3 seed_dir=$4
  local corpus=$build/corpus/${target%_fuzz}
  mkdir -p "$corpus"
  echo "=== $target: $time s"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/fuzz/$target" "$corpus" "$seed_dir" -max_total_time="$time" -max_len="$max_len" -timeout=10 \
    -artifact_prefix="$build/crashes/$target-" -print_final_stats=1
}

half=$((seconds / 2))
sixth=$(((seconds - half) / 3))
[ "$sixth" -ge 1 ] || sixth=1
run perf_data_fuzz "$half" 16384 "$seeds"
# Past the parser's bound of 4096 characters, so that the bound is tried.
run predicate_fuzz "$sixth" 5000 fuzz/corpus/predicate
run ibs_sample_text_fuzz "$sixth" 16384 fuzz/corpus/ibs_sample_text
run event_lookup_fuzz "$sixth" 4096 fuzz/corpus/event_lookup
