#!/usr/bin/env bash
# How fast tagop reads `perf record -g` captures, against perf on the same
# files in the same run (issue 38). Not run by CI or meson test: perf must
# be able to record this user's own processes (perf_event_paranoid <= 2).
#
#   bench/callgraph_bench.sh [BUILD_DIR]
#
# Three real captures, made here with perf record -g:
#   deep   bench/callgraph/deep.c (frame pointers, chains ~30 frames of
#          mutual recursion), cpu-clock at BENCH_FREQ (25 kHz) for
#          BENCH_CPU_SECONDS (3.6) of its CPU time: ~90k samples;
#   build  a multi-process build: make -j2 of BENCH_UNITS (8) C files with
#          cc -O2, under perf record -g (every process of the build);
#   two    the deep program under two events (-e cpu-clock,task-clock).
# and a second deep capture, for tagop diff against perf diff. With
# BENCH_DIR the captures are kept there and made once (BENCH_RECORD=1: made
# again); BENCH_CAPTURE_ONLY=1 makes them and stops.
# Each pair (tagop, its peer) runs alternated, BENCH_REPEATS (5) times;
# the medians of wall time (bash's EPOCHREALTIME) and of peak RSS (GNU
# time's %M) are printed, and their ratios. The targets of issue 38 are
# printed beside them: the ratio is what counts, never the seconds alone.
set -euo pipefail

build=${1:-build}
repeats=${BENCH_REPEATS:-5}
freq=${BENCH_FREQ:-25000}
cpu_seconds=${BENCH_CPU_SECONDS:-3.6}
units=${BENCH_UNITS:-8}
here=$(cd "$(dirname "$0")" && pwd)
tagop=$(cd "$build" && pwd)/tools/tagop
[ -x "$tagop" ] || [ -n "${BENCH_CAPTURE_ONLY:-}" ] ||
  { echo "callgraph_bench: $tagop is missing: build first (ninja -C $build tools/tagop)" >&2; exit 2; }
for tool in perf cc make /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "callgraph_bench: $tool is missing" >&2; exit 2; }
done
dir=${BENCH_DIR:-$(mktemp -d)}
[ -z "${BENCH_DIR:-}" ] && trap 'rm -rf "$dir"' EXIT
cd "$dir"

# --- the captures -----------------------------------------------------------
if [ ! -s deep.data ] || [ -n "${BENCH_RECORD:-}" ]; then
  cc -O1 -g -fno-omit-frame-pointer "$here/callgraph/deep.c" -o deep
  perf record -q -g -F "$freq" -e cpu-clock -o deep.data ./deep "$cpu_seconds" > /dev/null 2>&1
  perf record -q -g -F "$freq" -e cpu-clock -o deep2.data ./deep "$cpu_seconds" > /dev/null 2>&1
  perf record -q -g -F "$freq" -e cpu-clock,task-clock -o two.data ./deep "$(awk "BEGIN{print $cpu_seconds/2}")" \
    > /dev/null 2>&1
  mkdir -p units
  for i in $(seq "$units"); do
    # Each unit a few hundred functions, so that cc1 has work to sample.
    awk -v u="$i" 'BEGIN{for (f = 0; f < 400; ++f) {
      printf "static int u%d_f%d(int x) { int s = 0; for (int i = 0; i < x; ++i) s += i * %d ^ (s >> 3); return s; }\n", u, f, f;
      printf "int u%d_g%d(int x) { return u%d_f%d(x) + %d; }\n", u, f, u, f, f }}' > "units/u$i.c"
  done
  printf 'OBJS := %s\nall: $(OBJS)\n%%.o: %%.c\n\tcc -O2 -g -c $< -o $@\n' \
    "$(for i in $(seq "$units"); do printf 'units/u%s.o ' "$i"; done)" > Makefile
  rm -f units/*.o
  perf record -q -g -F "$((freq / 5))" -o build.data -- make -s -j2 > /dev/null 2>&1
  sync
fi
[ -z "${BENCH_CAPTURE_ONLY:-}" ] || exit 0
for f in deep.data deep2.data two.data build.data; do cat "$f" > /dev/null; done

samples() { perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}'; }
printf "captures (%s): deep %s samples, build %s, two events %s, deep2 %s; host %s CPUs, load %s\n" \
  "$(date -u +%F)" "$(samples deep.data)" "$(samples build.data)" "$(samples two.data)" \
  "$(samples deep2.data)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"

# --- timing -----------------------------------------------------------------
# one run: prints "seconds peak_kib"
# The exports' files of the run before are removed first, untimed: ext4
# took 3-12 ms to free an 18 MB file's pages when the next run's rename
# replaced it (strace -T), the file system's cost of replacing a file, not
# the export's; the export's own writing is timed.
once() {
  local t0 t1
  rm -f samples.jsonl report.html prof.pb.gz
  t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o time.out "$@" > out.txt 2> err.txt || {
    echo "callgraph_bench: failed: $*" >&2; cat err.txt >&2; exit 1; }
  t1=$EPOCHREALTIME
  echo "$(awk "BEGIN{printf \"%.4f\", $t1 - $t0}") $(tail -1 time.out)"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# pair NAME TARGET -- A... -- B...: runs A and B alternated, prints their
# medians and the ratio A/B of time and memory, and the target (a bound on
# the time ratio: "<= 0.5", or "none").
printf "%-44s %8s %8s %7s %8s %8s %7s  %s\n" "tagop (A) against peer (B)" "A s" "B s" "A/B" "A MiB" "B MiB" "A/B" "target (time A/B)"
pair() {
  local name=$1 target=$2; shift 2
  local a=() b=(); while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift; b=("$@")
  : > a.runs; : > b.runs
  for _ in $(seq "$repeats"); do once "${a[@]}" >> a.runs; once "${b[@]}" >> b.runs; done
  local as bs am bm
  as=$(cut -d' ' -f1 a.runs | median); bs=$(cut -d' ' -f1 b.runs | median)
  am=$(cut -d' ' -f2 a.runs | median); bm=$(cut -d' ' -f2 b.runs | median)
  local verdict=""
  if [ "$target" != none ]; then
    if awk "BEGIN{exit !($as / $bs $target)}"; then verdict="met"; else verdict="MISSED"; fi
  fi
  printf "%-44s %8.3f %8.3f %7.2f %8.1f %8.1f %7.2f  %s %s\n" "$name" "$as" "$bs" "$(awk "BEGIN{print $as / $bs}")" \
    "$(awk "BEGIN{print $am / 1024}")" "$(awk "BEGIN{print $bm / 1024}")" "$(awk "BEGIN{print $am / $bm}")" \
    "$target" "$verdict"
}

for c in deep build two; do
  f=$c.data
  pair "$c: report --by function / perf --no-children" "<= 0.5" \
    "$tagop" report "$f" --by function -- perf report -i "$f" --no-children -g none --sort sym --stdio
  pair "$c: report --children / perf --children" "<= 0.25" \
    "$tagop" report "$f" --by function --children -- perf report -i "$f" --children -g none --sort sym --stdio
  pair "$c: report --by callchain / perf --children" "<= 0.25" \
    "$tagop" report "$f" --by callchain -- perf report -i "$f" --children -g none --sort sym --stdio
done
f=deep.data
pair "deep: --format folded / tagop --children" "<= 1.5" \
  "$tagop" report "$f" --format folded -- "$tagop" report "$f" --by function --children
pair "deep: --format pprof / tagop --children" "<= 1.5" \
  "$tagop" report "$f" --format pprof -o prof.pb.gz -- "$tagop" report "$f" --by function --children
pair "deep: --format jsonl / tagop report" "<= 1.5" \
  "$tagop" report "$f" --format jsonl -o samples.jsonl -- "$tagop" report "$f" --by function
pair "deep: --html / tagop --children" "<= 1.5" \
  "$tagop" report "$f" --html report.html -- "$tagop" report "$f" --by function --children
pair "deep: tagop diff / perf diff" "<= 0.25" \
  "$tagop" diff deep.data deep2.data -- perf diff deep.data deep2.data
# The default against one thread (a noise of a few percent where the
# default is one thread), and what a second would give.
for c in deep build; do
  pair "$c: --by function, --threads 2 / --threads 1" none \
    "$tagop" report "$c.data" --by function --threads 2 -- "$tagop" report "$c.data" --by function --threads 1
  pair "$c: --by function, default / --threads 1" "<= 1.0" \
    "$tagop" report "$c.data" --by function -- "$tagop" report "$c.data" --by function --threads 1
  pair "$c: --children, default / --threads 1" "<= 1.0" \
    "$tagop" report "$c.data" --by function --children -- "$tagop" report "$c.data" --by function --children --threads 1
done
