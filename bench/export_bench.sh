#!/usr/bin/env bash
# How fast `tagop report` exports, next to `tagop report` itself on the same
# file in the same run: --format jsonl (every sample decoded and written,
# one line each), pprof and folded (the report's rows, as profiles), and
# --html. Not run by CI or meson test.
#
#   bench/export_bench.sh [BUILD_DIR]
#
# The capture is the bundled example's model, BENCH_SAMPLES (default 2 M)
# samples (examples/make-ibs-example). Wall seconds and peak RSS (GNU
# time), best of BENCH_REPEATS (3), the page cache warm; JSON lines go to
# a file in BENCH_DIR (default a temporary folder), since that is where an
# engine reads them from. Beside them, in the same run: perf script (the
# peer that writes every sample as text) and the floor of writing the
# lines' bytes.
set -euo pipefail

build=${1:-build}
samples=${BENCH_SAMPLES:-2000000}
repeats=${BENCH_REPEATS:-3}
tagop=$build/tools/tagop
make=$build/examples/make-ibs-example
for f in "$tagop" "$make"; do
  [ -x "$f" ] || { echo "export_bench: $f is missing: build first (ninja -C $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "export_bench: /usr/bin/time is missing (Debian: time)" >&2; exit 2; }
dir=${BENCH_DIR:-$(mktemp -d)}
trap '[ -z "${BENCH_DIR:-}" ] && rm -rf "$dir"' EXIT
capture=$dir/bench.data
"$make" "$capture" --samples "$samples" > /dev/null
cat "$capture" > /dev/null  # warm

# best "seconds peak_kib" of $repeats runs of "$@"
best() {
  local best_s="" best_k=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2> /dev/null
    read -r s k < "$dir/time"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s best_k=$k; fi
  done
  echo "$best_s $best_k"
}

printf "capture: %s samples, %s MiB\n" "$samples" "$(( $(stat -c %s "$capture") >> 20 ))"
printf "%-36s %9s %12s\n" "command" "seconds" "peak RSS MiB"
row() {
  local name=$1; shift
  read -r s k < <(best "$@")
  printf "%-36s %9s %12s\n" "$name" "$s" "$((k / 1024))"
}
row "tagop report" "$tagop" report "$capture"
row "tagop report --format jsonl -o F" "$tagop" report "$capture" --format jsonl -o "$dir/samples.jsonl"
row "tagop report --format pprof -o F" "$tagop" report "$capture" --format pprof -o "$dir/prof.pb.gz"
row "tagop report --format folded" "$tagop" report "$capture" --format folded
row "tagop report --html F" "$tagop" report "$capture" --html "$dir/report.html"
# Peers in the same run: perf script's text of every sample (when perf is
# here), and the floor of writing as many bytes (cat of the lines).
if command -v perf > /dev/null; then
  row "perf script (peer: every sample)" perf script -i "$capture" -F comm,tid,cpu,time,ip,sym,dso
fi
row "cat jsonl > F (floor: the bytes)" sh -c 'cat "$1" > "$2"' sh "$dir/samples.jsonl" "$dir/copy.jsonl"
printf "jsonl: %s lines, %s MiB\n" "$(wc -l < "$dir/samples.jsonl")" "$(( $(stat -c %s "$dir/samples.jsonl") >> 20 ))"
