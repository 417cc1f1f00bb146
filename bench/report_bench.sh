#!/usr/bin/env bash
# How fast `tagop report` reads captures, next to its peers and the floor,
# on the bundled example's model and on captures of a program that spends
# its time inside a real library with symbols.
#
#   bench/report_bench.sh [BUILD_DIR]
#
# In one run, on the same files (the page cache warm for all):
#   - the floor: bench/walk-records, a plain mmap walk of the record headers;
#   - tagop report (its default threads: two on 2 CPUs, else one per CPU
#     but one, up to three; and --threads 1), with its peak RSS;
#   - perf script, and perf report --stdio --sort sym (the question a perf
#     user asks of the same file);
#   - on captures whose IBS samples fall on K distinct addresses inside
#     BENCH_ELF (default libLLVM-15.so.1, 35k functions, a build-id, Zipf
#     over functions: bench/make_symbol_capture.cpp), for K in
#     BENCH_ADDRESSES (10000 100000 1000000);
#   - --by line against perf report --sort srcline, on a capture inside an
#     ELF with DWARF lines (BENCH_LINE_ELF, default BUILD_DIR/tools/tagop),
#     perf's time capped at BENCH_SRCLINE_CAP seconds (default 120);
#   - whether the function names agree with perf's (--no-demangle in both):
#     the top 20 rows, and how many of all.
# Best of BENCH_REPEATS (5) for the walk and tagop, of BENCH_PEER_REPEATS
# (3) for perf: on a shared host the same command's time moves by a third
# from minute to minute (perf script on one file: 7.1 to 12.3 s), so each
# side gets its best of a few. BENCH_SAMPLES (10 M) samples a capture
# (about 1.1 GB).
set -euo pipefail

build=${1:-build}
samples=${BENCH_SAMPLES:-10000000}
addresses=${BENCH_ADDRESSES:-10000 100000 1000000}
elf=${BENCH_ELF:-/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1}
line_elf=${BENCH_LINE_ELF:-$build/tools/tagop}
line_samples=${BENCH_LINE_SAMPLES:-1000000}
repeats=${BENCH_REPEATS:-5}
peer_repeats=${BENCH_PEER_REPEATS:-3}
srcline_cap=${BENCH_SRCLINE_CAP:-120}
tagop=$build/tools/tagop
for f in "$tagop" "$build/examples/make-ibs-example" "$build/bench/make-symbol-capture" "$build/bench/walk-records"; do
  [ -x "$f" ] || { echo "report_bench: $f is missing: configure with -Dbench=true and build first" >&2; exit 2; }
done
[ -r "$elf" ] || { echo "report_bench: $elf is missing (Debian: libllvm15), or give BENCH_ELF" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "report_bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
have_perf=0
command -v perf > /dev/null && have_perf=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagop-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A capture just written is written back to disk for some seconds after:
# the kernel's flusher threads then take a CPU from whatever runs, so each
# capture is synced (and read once, into the page cache) before it is timed.
settle() { sync "$1" && cat "$1" > /dev/null; }

calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
ratio() { calc "$1 / $2" 1; }

# Wall times to the microsecond (bash's EPOCHREALTIME), not /usr/bin/time's
# hundredths, which are truncated: the walk takes some 0.03 s, where a
# hundredth is a third of it. /usr/bin/time still gives the CPU time and
# peak RSS; its own start (best of 5, against starting true alone) is
# taken off every wall time.
best_of_5() {
  local best="" t0 t1 d
  for _ in 1 2 3 4 5; do
    t0=$EPOCHREALTIME; "$@" > /dev/null 2>&1; t1=$EPOCHREALTIME
    d=$(calc "$t1 - $t0" 6)
    if [ -z "$best" ] || [ "$(calc "$d < $best" 0)" = 1 ]; then best=$d; fi
  done
  echo "$best"
}
time_start=$(calc "$(best_of_5 /usr/bin/time -o /dev/null true) - $(best_of_5 true)" 6)

# run VAR LABEL REPEATS COMMAND...: the best wall time of REPEATS runs and
# its CPU time and peak RSS, into VAR_wall, VAR_cpu, VAR_rss (KiB).
run() {
  local var=$1 label=$2 n=$3
  shift 3
  local best="" cpu="" rss="" t0 t1 wall user sys peak
  for _ in $(seq "$n"); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" ||
      { echo "report_bench: failed: $*" >&2; tail -5 "$tmp/err" >&2; exit 1; }
    t1=$EPOCHREALTIME
    read -r user sys peak < "$tmp/time"
    wall=$(calc "$t1 - $t0 - $time_start" 6)
    wall=$(calc "($wall > 0.0001) ? $wall : 0.0001" 4)  # a divisor
    if [ -z "$best" ] || [ "$(calc "$wall < $best" 0)" = 1 ]; then best=$wall cpu=$(calc "$user + $sys") rss=$peak; fi
  done
  printf -v "${var}_wall" %s "$best"
  printf -v "${var}_cpu" %s "$cpu"
  printf -v "${var}_rss" %s "$rss"
  printf '  %-34s wall %7.3f s  cpu %7.2f s  peak RSS %7.1f MiB\n' "$label" "$best" "$cpu" "$(calc "$rss / 1024" 1)"
}

# The same, for a peer that may be cut off after CAP seconds: VAR_wall is
# then the cap, and VAR_capped 1.
run_capped() {
  local var=$1 label=$2 cap=$3
  shift 3
  local start end status=0
  start=$EPOCHREALTIME
  timeout "$cap" "$@" > /dev/null 2> "$tmp/err" || status=$?
  end=$EPOCHREALTIME
  printf -v "${var}_wall" %s "$(calc "$end - $start" 4)"
  if [ "$status" = 124 ]; then
    printf -v "${var}_capped" 1
    printf '  %-34s did not finish in %s s\n' "$label" "$cap"
  else
    printf -v "${var}_capped" 0
    printf '  %-34s wall %7.3f s\n' "$label" "$(calc "$end - $start" 4)"
  fi
}

# (Parenthesised: in awk's printf a bare > is a redirection.)
verdict() { [ "$(calc "(($1) ? 1 : 0)" 0)" = 1 ] && echo met || echo "NOT met"; }

# Functions by name and op samples, as each tool counts them.
perf_functions() {  # FILE -> "count name" of the op event
  perf report -i "$1" --no-demangle --stdio --sort sym -n -g none 2> /dev/null |
    awk '/^# Samples: .* of event .ibs_op/ { on = 1; next } /^# Samples:/ { on = 0 }
         on && /^ +[0-9.]+%/ { name = $0; sub(/^ +[0-9.]+% +[0-9]+ +\[\.\] /, "", name); sub(/ +$/, "", name);
                               print $2, name }'
}
tagop_functions() {  # FILE -> "count name"
  "$tagop" report "$1" --no-demangle --events 0xF100 --top 0 --format csv |
    awk -F, 'NR > 1 && $1 != "[total]" && $3 > 0 { print $3, $1 }'
}
agreement() {  # FILE: top 20 equal?, and how many functions agree
  perf_functions "$1" | sort -k2 > "$tmp/perf.fn"
  tagop_functions "$1" | sort -k2 > "$tmp/tagop.fn"
  local top_perf top_tagop
  top_perf=$(sort -k1,1nr -k2 "$tmp/perf.fn" | head -20 | awk '{ print $2 }')
  top_tagop=$(sort -k1,1nr -k2 "$tmp/tagop.fn" | head -20 | awk '{ print $2 }')
  local same all
  same=$(comm -12 "$tmp/perf.fn" "$tmp/tagop.fn" | wc -l)
  all=$(wc -l < "$tmp/perf.fn")
  if [ "$top_perf" = "$top_tagop" ]; then echo "top 20 the same; $same of $all functions with the same name and count"
  else echo "top 20 DIFFER; $same of $all functions with the same name and count"; fi
}

echo "tagop report bench: $samples samples a capture, $(nproc) CPUs, $(uname -r)"
echo

# 1. The example's model: 19 addresses.
f=$tmp/example.data
"$build/examples/make-ibs-example" "$f" --samples "$samples"
settle "$f"
echo "the example's model ($(du -h "$f" | cut -f1), 19 distinct addresses):"
run ex_walk "walk of the records (floor)" "$repeats" "$build/bench/walk-records" "$f"
run ex_tagop "tagop report" "$repeats" "$tagop" report "$f"
run ex_one "tagop report --threads 1" "$repeats" "$tagop" report --threads 1 "$f"
if [ "$have_perf" = 1 ]; then
  run ex_script "perf script" "$peer_repeats" perf script -i "$f"
  echo "  tagop: $(ratio "$ex_script_wall" "$ex_tagop_wall")x faster than perf script, $(ratio "$ex_tagop_wall" "$ex_walk_wall")x the walk"
fi
rm -f "$f"
echo

# 2. Captures inside a real library, by distinct addresses.
summary=()
for k in $addresses; do
  f=$tmp/symbols-$k.data
  made=$("$build/bench/make-symbol-capture" "$f" --elf "$elf" --samples "$samples" --addresses "$k")
  settle "$f"
  echo "$made; $(du -h "$f" | cut -f1):"
  run walk "walk of the records (floor)" "$repeats" "$build/bench/walk-records" "$f"
  run t "tagop report --by function" "$repeats" "$tagop" report "$f"
  run t1 "tagop report --threads 1" "$repeats" "$tagop" report --threads 1 "$f"
  line="$k addresses: tagop ${t_wall} s, $(ratio "$t_wall" "$walk_wall")x the walk (--threads 1: $(ratio "$t1_wall" "$walk_wall")x), peak $(calc "$t_rss / 1024" 1) MiB (--threads 1: $(calc "$t1_rss / 1024" 1) MiB)"
  if [ "$have_perf" = 1 ]; then
    run script "perf script" "$peer_repeats" perf script -i "$f"
    run sym "perf report --stdio --sort sym" "$peer_repeats" perf report -i "$f" --stdio --sort sym
    echo "  names: $(agreement "$f")"
    line+="; perf script $(ratio "$script_wall" "$t_wall")x, perf report --sort sym $(ratio "$sym_wall" "$t_wall")x"
    if [ "$k" = 10000 ]; then
      targets="10 k addresses: >= 50x perf script: $(verdict "$script_wall / $t_wall >= 50");"
      targets+=" >= 20x perf report --sort sym: $(verdict "$sym_wall / $t_wall >= 20");"
    fi
  fi
  if [ "$k" = 10000 ]; then
    targets+=" within 3x the walk: $(verdict "$t_wall / $walk_wall <= 3")"
    rss_10k=$t_rss rss_10k_1=$t1_rss
    # The same bytes written 4 KiB at a time, as a file written in small
    # pieces is: the page cache then holds them in 4 KiB folios, which cost
    # any reader's kernel more to map than the writer's 2 MiB ones.
    dd if="$f" of="$tmp/small-folios.data" bs=4k status=none
    settle "$tmp/small-folios.data"
    echo "  the same capture in 4 KiB page-cache folios:"
    run walk4k "walk of the records (floor)" "$repeats" "$build/bench/walk-records" "$tmp/small-folios.data"
    run t4k "tagop report --by function" "$repeats" "$tagop" report "$tmp/small-folios.data"
    rm -f "$tmp/small-folios.data"
    targets+=" (in 4 KiB folios: $(ratio "$t4k_wall" "$walk4k_wall")x the walk: $(verdict "$t4k_wall / $walk4k_wall <= 3"))"
  fi
  [ "$k" = 100000 ] && targets100k="100 k addresses: within 5x the walk: $(verdict "$t_wall / $walk_wall <= 5")"
  [ "$k" = 1000000 ] && rss_1m=$t_rss rss_1m_1=$t1_rss
  summary+=("$line")
  rm -f "$f"
  echo
done

# Memory: flat in samples (10 k addresses, a tenth of the samples), and per
# distinct address (1 M against 10 k).
f=$tmp/symbols-small.data
"$build/bench/make-symbol-capture" "$f" --elf "$elf" --samples "$((samples / 10))" --addresses 10000 > /dev/null
echo "memory, 10 k addresses at $((samples / 10)) samples:"
run small "tagop report --by function" "$repeats" "$tagop" report "$f"
rm -f "$f"
echo

# 3. Source lines: a capture inside an ELF with DWARF.
f=$tmp/lines.data
"$build/bench/make-symbol-capture" "$f" --elf "$line_elf" --samples "$line_samples" --addresses 10000 > /dev/null
echo "--by line, $line_samples samples at 10 k addresses in $line_elf:"
run line "tagop report --by line" "$repeats" "$tagop" report --by line "$f"
if [ "$have_perf" = 1 ]; then
  run_capped srcline "perf report --sort srcline" "$srcline_cap" perf report -i "$f" --stdio --sort srcline
  if [ "$srcline_capped" = 1 ]; then
    line_target="--by line >= 10x perf report --sort srcline: at least $(ratio "$srcline_wall" "$line_wall")x (perf cut off): $(verdict "$srcline_wall / $line_wall >= 10")"
  else
    line_target="--by line >= 10x perf report --sort srcline: $(ratio "$srcline_wall" "$line_wall")x: $(verdict "$srcline_wall / $line_wall >= 10")"
  fi
fi
rm -f "$f"
echo

echo "summary (wall time, best of runs; ratios of wall times):"
for s in "${summary[@]}"; do echo "  $s"; done
echo "  peak RSS at 10 k addresses: $(calc "$small_rss / 1024" 1) MiB with $((samples / 10)) samples, $(calc "${rss_10k:-0} / 1024" 1) MiB with $samples"
if [ -n "${rss_1m:-}" ] && [ -n "${rss_10k:-}" ]; then
  per=$(calc "(${rss_1m} - ${rss_10k}) * 1024 / 990000" 0)
  per1=$(calc "(${rss_1m_1} - ${rss_10k_1}) * 1024 / 990000" 0)
  echo "  memory per distinct address (1 M against 10 k): $per B ($per1 B with --threads 1): <= ~200 B: $(verdict "$per <= 220")"
fi
echo "targets in this run:"
echo "  ${targets:-}"
echo "  ${targets100k:-}"
echo "  ${line_target:-}"
