#!/usr/bin/env bash
# How fast tagop answers "which instruction, which data", next to perf on
# the same files in the same run. Not run by CI or meson test.
#
#   bench/memory_views_bench.sh [BUILD_DIR]
#
# - Data views: a `perf mem record` capture of BENCH_SAMPLES (default 2 M)
#   loads inside a real ELF (BENCH_ELF, default libLLVM-15.so.1: its data
#   objects, the heap and the stack; bench/make_mem_capture.cpp): tagop
#   report --by data and --by cacheline against --by address (the speed
#   they should have) and perf mem report --sort symbol_daddr (the peer).
# - annotate: a `perf record` capture (cpu-clock, BENCH_HZ 20 kHz, for
#   BENCH_SECONDS 5 s) of tagop itself (optimised, with DWARF lines)
#   reporting the capture above, annotated at its hottest function: tagop
#   annotate against perf annotate --stdio.
# Wall seconds and peak RSS (GNU time), best of BENCH_REPEATS (3), the
# page cache warm.
set -euo pipefail

build=${1:-build}
samples=${BENCH_SAMPLES:-2000000}
repeats=${BENCH_REPEATS:-3}
elf=${BENCH_ELF:-/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1}
hz=${BENCH_HZ:-20000}
seconds=${BENCH_SECONDS:-5}
tagop=$build/tools/tagop
make=$build/bench/make-mem-capture
for f in "$tagop" "$make"; do
  [ -x "$f" ] || { echo "memory_views_bench: $f is missing: configure with -Dbench=true and build first" >&2; exit 2; }
done
for t in /usr/bin/time perf; do
  command -v "$t" > /dev/null || { echo "memory_views_bench: needs $t (Debian: time, linux-perf)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# best "seconds peak_kib" of $repeats runs of "$@"
best() {
  local best_s="" best_k=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2> "$dir/err" ||
      { echo "memory_views_bench: failed: $*" >&2; tail -3 "$dir/err" >&2; exit 1; }
    read -r s k < "$dir/time"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s best_k=$k; fi
  done
  echo "$best_s $best_k"
}
row() {
  local name=$1; shift
  read -r s k < <(best "$@")
  printf "  %-66s %6s s %6s MiB\n" "$name" "$s" "$((k / 1024))"
}

echo "host: $(nproc) CPUs, $(uname -r), perf $(perf version | awk '{print $3}')"
mem=$dir/mem.data
"$make" "$mem" --elf "$elf" --samples "$samples" > /dev/null
cat "$mem" > /dev/null
printf "perf mem capture: %s loads, %s MiB\n" "$samples" "$(( $(stat -c %s "$mem") >> 20 ))"
row "tagop report --by address" "$tagop" report "$mem" --by address
row "tagop report --by data" "$tagop" report "$mem" --by data
row "tagop report --by cacheline" "$tagop" report "$mem" --by cacheline
row "perf mem report --sort symbol_daddr (peer)" perf mem report -i "$mem" --stdio --sort symbol_daddr

# A real program's capture: tagop reporting the capture above, again and again.
rec=$dir/tagop.data
perf record -q -e cpu-clock -F "$hz" -o "$rec" -- timeout "$seconds" sh -c \
  'while :; do "$1" report "$2" --threads 1 > /dev/null; done' sh "$tagop" "$mem" > /dev/null 2>&1 || true
hot=$(perf report -i "$rec" --stdio --sort sym -g none --no-children 2> /dev/null |
  awk '/^ +[0-9.]+%/ && $2 == "[.]" && !found { sub(/^ +[0-9.]+% +\[\.\] /, ""); print; found = 1 }')
printf "perf record capture: %s samples, hottest function %s\n" \
  "$(perf report -i "$rec" --stdio --sort sym -g none 2> /dev/null | awk '/^# Samples:/ && !found { print $3; found = 1 }')" "$hot"
row "tagop annotate $hot" "$tagop" annotate "$rec" "$hot"
row "perf annotate --stdio $hot (peer)" perf annotate -i "$rec" --stdio "$hot"
row "tagop report (the whole capture)" "$tagop" report "$rec"
