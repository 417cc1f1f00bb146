#!/bin/sh
# Times `tagop events show EVENT` against `perf list EVENT` and libpfm4's
# showevtinfo for the same event, in one run, and prints the ratios.
#   bench/events_bench.sh [TAGOP] [RUNS]
# TAGOP defaults to build/tools/tagop, RUNS to 50. Uses hyperfine when it is
# installed, else a loop timed with date +%s%N.
set -eu

tagop=${1:-build/tools/tagop}
runs=${2:-50}
[ -x "$tagop" ] || { echo "no tagop binary at $tagop (build first: ninja -C build)" >&2; exit 1; }

# The same event in each tool's spelling: tagop's SDM name, perf's and
# libpfm4's name (perf list takes a glob over its own event names).
tagop_event=BACLEARS.ALL
perf_event=baclears
pfm_event='slm::BACLEARS'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# showevtinfo is shipped as source; it includes libpfm4's private
# perfmon/err.h, which is glibc's <err.h>.
showevtinfo=""
example=/usr/share/doc/libpfm4-dev/examples/showevtinfo.c
if [ -f "$example" ]; then
  mkdir -p "$tmp/inc/perfmon"
  echo '#include <err.h>' > "$tmp/inc/perfmon/err.h"
  if cc -O2 -I"$tmp/inc" -o "$tmp/showevtinfo" "$example" -lpfm 2>"$tmp/cc.log"; then
    showevtinfo="$tmp/showevtinfo"
  else
    echo "showevtinfo could not be built (see below); timing without it" >&2
    cat "$tmp/cc.log" >&2
  fi
else
  echo "showevtinfo.c not found at $example (libpfm4-dev examples); timing without it" >&2
fi
export LIBPFM_ENCODE_INACTIVE=1  # showevtinfo: the Silvermont PMU on any machine

now_ns() { date +%s%N; }

# mean milliseconds of RUNS runs of "$@", output discarded
time_ms() {
  start=$(now_ns)
  i=0
  while [ "$i" -lt "$runs" ]; do
    "$@" >/dev/null 2>&1 || true
    i=$((i + 1))
  done
  end=$(now_ns)
  echo "$start $end $runs" | awk '{ printf "%.3f", ($2 - $1) / 1e6 / $3 }'
}

if command -v hyperfine >/dev/null 2>&1; then
  set -- "$tagop events show $tagop_event" "perf list $perf_event"
  [ -n "$showevtinfo" ] && set -- "$@" "$showevtinfo $pfm_event"
  exec hyperfine --warmup 3 --runs "$runs" -N "$@"
fi

"$tagop" events show "$tagop_event" >/dev/null  # warm the page cache
t_tagop=$(time_ms "$tagop" events show "$tagop_event")
t_perf=$(time_ms perf list "$perf_event")
echo "runs: $runs each (mean wall time per run, process start included)"
printf '  tagop events show %-14s %8s ms\n' "$tagop_event" "$t_tagop"
printf '  perf list %-22s %8s ms  (%sx tagop)\n' "$perf_event" "$t_perf" \
  "$(echo "$t_perf $t_tagop" | awk '{ printf "%.1f", $1 / $2 }')"
if [ -n "$showevtinfo" ]; then
  t_pfm=$(time_ms "$showevtinfo" "$pfm_event")
  printf '  showevtinfo %-20s %8s ms  (%sx tagop)\n' "$pfm_event" "$t_pfm" \
    "$(echo "$t_pfm $t_tagop" | awk '{ printf "%.1f", $1 / $2 }')"
fi
