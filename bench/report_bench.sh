#!/usr/bin/env bash
# How fast `tagop report` reads IBS captures, next to its peers and the floor.
#
#   bench/report_bench.sh [BUILD_DIR]
#
# Writes two IBS captures of the example's model (examples/README.md) with
# make-ibs-example into a temporary directory: BENCH_SAMPLES samples
# (default 10 million, about 1.1 GB) and BENCH_PEER_SAMPLES (default 1
# million). Times, on the same machine in the same run:
#   - tagop report on both (best of 3; peak RSS of each, to show that memory
#     does not grow with the samples);
#   - perf script on the large one (best of 3, as tagop report);
#   - perf report -D on the small one (it takes minutes on the large one:
#     its time there is extrapolated per sample, and said so; BENCH_FULL=1
#     times it there too);
#   - cat FILE > /dev/null on both: the floor (best of 3);
#   - tagop report and cat on a copy of the large capture written 4 KiB at a
#     time. The tagop writer writes 4 MiB at a time, so where the kernel and
#     filesystem have large folios (here Linux 6.18 and ext4) the page cache
#     holds its captures in 2 MiB folios, which cost the reader's kernel
#     about a twentieth of 4 KiB ones to map and unmap; a file written in
#     small pieces is in 4 KiB folios. Both are shown.
# Prints wall and CPU time, samples per second and the ratios. The page
# cache is warm for everything (each file is read once before timing).
set -euo pipefail

build=${1:-build}
big=${BENCH_SAMPLES:-10000000}
small=${BENCH_PEER_SAMPLES:-1000000}
tagop=$build/tools/tagop
gen=$build/examples/make-ibs-example
for f in "$tagop" "$gen"; do
  [ -x "$f" ] || { echo "report_bench: $f is missing: build first (ninja -C $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "report_bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagop-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "writing $big and $small IBS samples into $tmp ..."
"$gen" "$tmp/big.data" --samples "$big"
"$gen" "$tmp/small.data" --samples "$small"
dd if="$tmp/big.data" of="$tmp/big-4k.data" bs=4k status=none
# Written back before timing: the disk's writeback of 2.3 GB otherwise
# overlaps the first runs (those of cat and tagop, not perf's).
sync
cat "$tmp/big.data" "$tmp/small.data" "$tmp/big-4k.data" > /dev/null

calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

# run VAR LABEL SAMPLES REPEATS COMMAND...: the best wall time of REPEATS
# runs, with its CPU time and peak RSS, into VAR_wall, VAR_cpu, VAR_rss;
# the median wall time into VAR_median.
run() {
  local var=$1 label=$2 samples=$3 repeats=$4
  shift 4
  local best_wall="" best_cpu="" best_rss="" walls=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" ||
      { echo "report_bench: failed: $*" >&2; tail -5 "$tmp/err" >&2; exit 1; }
    read -r wall user sys rss < "$tmp/time"
    walls+="$wall"$'\n'
    if [ -z "$best_wall" ] || [ "$(calc "$wall < $best_wall" 0)" = 1 ]; then
      best_wall=$wall best_cpu=$(calc "$user + $sys") best_rss=$rss
    fi
  done
  local median
  median=$(printf %s "$walls" | sort -n | sed -n "$(( (repeats + 1) / 2 ))p")
  printf -v "${var}_wall" %s "$best_wall"
  printf -v "${var}_median" %s "$median"
  printf -v "${var}_cpu" %s "$best_cpu"
  printf -v "${var}_rss" %s "$best_rss"
  printf '%-22s %9s samples  wall %6.2f s (median %6.2f)  cpu %6.2f s  %10s samples/s (wall)  %10s samples/s (cpu)  peak RSS %6s MiB\n' \
    "$label" "$samples" "$best_wall" "$median" "$best_cpu" "$(calc "$samples / ($best_wall + 0.005)" 0)" \
    "$(calc "$samples / ($best_cpu + 0.005)" 0)" "$(calc "$best_rss / 1024" 1)"
}

echo
echo "file sizes: $(du -h "$tmp/big.data" | cut -f1) ($big samples), $(du -h "$tmp/small.data" | cut -f1) ($small samples)"
run cat_big "cat" "$big" 3 cat "$tmp/big.data"
run tagop_big "tagop report" "$big" 3 "$tagop" report "$tmp/big.data"
run one_big "tagop report -t1" "$big" 3 "$tagop" report --threads 1 "$tmp/big.data"
run cat_small "cat" "$small" 3 cat "$tmp/small.data"
run tagop_small "tagop report" "$small" 3 "$tagop" report "$tmp/small.data"
run cat_4k "cat (4 KiB folios)" "$big" 3 cat "$tmp/big-4k.data"
run tagop_4k "tagop (4 KiB folios)" "$big" 3 "$tagop" report "$tmp/big-4k.data"
have_perf=0
if command -v perf > /dev/null; then
  have_perf=1
  run script_big "perf script" "$big" 3 perf script -i "$tmp/big.data"
  run dump_small "perf report -D" "$small" 1 perf report -D -i "$tmp/small.data"
  [ "${BENCH_FULL:-0}" = 1 ] && run dump_big "perf report -D" "$big" 1 perf report -D -i "$tmp/big.data"
else
  echo "perf is not installed: the peers are not timed"
fi

# Ratios; the + 0.005 keeps a time that rounds to 0.00 from dividing by 0.
ratio() { calc "($1 + 0.005) / ($2 + 0.005)" 1; }
echo
cpus=$(nproc)
echo "tagop report vs the floor (cat), same file ($cpus CPUs; tagop report uses one thread per CPU):"
echo "  $big samples: $(ratio "$tagop_big_wall" "$cat_big_wall")x the wall time of cat, $(ratio "$tagop_big_cpu" "$cat_big_cpu")x its CPU time" \
     "(--threads 1: $(ratio "$one_big_wall" "$cat_big_wall")x wall)"
echo "  $small samples: $(ratio "$tagop_small_wall" "$cat_small_wall")x wall, $(ratio "$tagop_small_cpu" "$cat_small_cpu")x CPU"
echo "  $big samples in 4 KiB page-cache folios: $(ratio "$tagop_4k_wall" "$cat_4k_wall")x wall, $(ratio "$tagop_4k_cpu" "$cat_4k_cpu")x CPU" \
     "(tagop report $tagop_4k_wall s there, $tagop_big_wall s in the writer's folios)"
if [ "$have_perf" = 1 ]; then
  echo "peers vs tagop report, same file:"
  echo "  perf script ($big samples): $(ratio "$script_big_wall" "$tagop_big_wall")x the wall time of tagop report" \
       "(best to best; median to median $(ratio "$script_big_median" "$tagop_big_median")x)," \
       "$(ratio "$script_big_cpu" "$tagop_big_cpu")x its CPU time; $(ratio "$script_big_wall" "$one_big_wall")x the wall time of --threads 1;" \
       "$(ratio "$script_big_wall" "$tagop_4k_wall")x tagop report's on the copy in 4 KiB folios"
  echo "  perf report -D ($small samples): $(ratio "$dump_small_wall" "$tagop_small_wall")x wall, $(ratio "$dump_small_cpu" "$tagop_small_cpu")x CPU"
  if [ "${BENCH_FULL:-0}" = 1 ]; then
    echo "  perf report -D ($big samples): $(ratio "$dump_big_wall" "$tagop_big_wall")x wall, $(ratio "$dump_big_cpu" "$tagop_big_cpu")x CPU"
  else
    scale=$(calc "$big / $small" 4)
    echo "  perf report -D on $big samples, extrapolated from $small (x$(calc "$scale" 0)): ~$(calc "$dump_small_wall * $scale" 0) s," \
         "$(ratio "$(calc "$dump_small_wall * $scale")" "$tagop_big_wall")x tagop report's $tagop_big_wall s (measured)"
  fi
fi
echo "peak RSS of tagop report: $(calc "$tagop_small_rss / 1024" 1) MiB at $small samples, $(calc "$tagop_big_rss / 1024" 1) MiB at $big samples"
# (Parenthesised: in awk's printf a bare > is a redirection.)
verdict() { [ "$(calc "($1)" 0)" = 1 ] && echo met || echo "not met"; }
targets() {  # tagop's and cat's wall times
  local t="within 3x of cat: $(verdict "($1 + 0.005) / ($2 + 0.005) <= 3")"
  [ "$have_perf" = 1 ] && t+="; 50x perf script: $(verdict "($script_big_wall + 0.005) / ($1 + 0.005) >= 50")"
  echo "$t"
}
echo "targets of issue 3 in this run: $(targets "$tagop_big_wall" "$cat_big_wall") (in 4 KiB folios:" \
     "$(targets "$tagop_4k_wall" "$cat_4k_wall"))"
