#!/usr/bin/env bash
# Fuzzes tagop's readers of untrusted input for a bounded time in all
# (default 60 s):
#
#   scripts/run-fuzz.sh [SECONDS]
#   scripts/run-fuzz.sh build    # only configure and build the targets
#
# Six libFuzzer targets (fuzz/): the perf.data reader gets half the time,
# the predicate parser, the text reader of `decode --input`, the event
# lookup, the symbol files (ELF, vmlinux, kallsyms) and the exporters
# (pprof, folded, HTML) a tenth each. Configures build-fuzz with clang (libFuzzer,
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
  # -O0: for a run of a minute or two, the compile is most of the time.
  CXX=${CXX:-clang++} meson setup "$build" -Dfuzz=true -Dtests=false -Dtools=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
targets=(perf_data_fuzz predicate_fuzz ibs_sample_text_fuzz event_lookup_fuzz symbol_file_fuzz export_fuzz)
ninja -C "$build" "${targets[@]/#/fuzz/}" examples/make-ibs-example
[ "$seconds" != build ] || exit 0
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

# The symbol files' seeds: a small ELF program of this machine (its
# symbol table, notes and program headers) and kallsyms lines.
symbol_seeds=$build/seeds/symbol_file
mkdir -p "$symbol_seeds"
cp /bin/true "$symbol_seeds/true.elf"
cp fuzz/corpus/symbol_file/kallsyms "$symbol_seeds/kallsyms"

half=$((seconds / 2))
tenth=$(((seconds - half) / 5))
[ "$tenth" -ge 1 ] || tenth=1
run perf_data_fuzz "$half" 16384 "$seeds"
# Past the parser's bound of 4096 characters, so that the bound is tried.
run predicate_fuzz "$tenth" 5000 fuzz/corpus/predicate
run ibs_sample_text_fuzz "$tenth" 16384 fuzz/corpus/ibs_sample_text
run event_lookup_fuzz "$tenth" 4096 fuzz/corpus/event_lookup
run symbol_file_fuzz "$tenth" 65536 "$symbol_seeds"
mkdir -p "$build/seeds/export"
run export_fuzz "$tenth" 4096 "$build/seeds/export"
