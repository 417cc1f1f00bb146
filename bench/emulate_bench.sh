#!/usr/bin/env bash
# The speed of `tagop emulate` against Valgrind's Cachegrind and the
# program alone, in the same run: a real program (gzip of a generated text
# file) run
#   1. plainly,
#   2. under Cachegrind with its cache and branch simulations
#      (--cache-sim=yes --branch-sim=yes: the work closest to the model's),
#   3. under `tagop emulate --as zen3` (tagop's Valgrind tool, the binary
#      trace through a pipe, the model, the capture),
#   4. the same through Lackey's text trace (TAGOP_VALGRIND_TOOL=lackey, the
#      engine before tagop's own tool; only with LACKEY=1, it is slow),
# best of N (default 3) wall-clock seconds each, with the median beside it,
# and the CPU seconds (user + system, the command and its children) of the
# best run. The target: (3) at most 3 times (2), median to median.
#   bench/emulate_bench.sh BUILD_DIR [RUNS] [INPUT_KIB]
set -euo pipefail
build=${1:?usage: emulate_bench.sh BUILD_DIR [RUNS] [INPUT_KIB]}
runs=${2:-3}
kib=${3:-256}
tagop="$build/tools/tagop"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Text that compresses like text: words from a fixed seed.
python3 - "$work/input.txt" "$kib" <<'PY'
import random, sys
random.seed(7)
words = [''.join(random.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(random.randint(2, 9))) for _ in range(5000)]
out, size = [], int(sys.argv[2]) * 1024
while sum(map(len, out)) < size:
    out.append(' '.join(random.choice(words) for _ in range(12)) + '\n')
open(sys.argv[1], 'w').write(''.join(out)[:size])
PY

seconds() {  # "wall cpu" seconds of one run of "$@" (GNU time: %e, %U + %S)
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
stats() {  # best and median wall, and the CPU of the best, of the "wall cpu" lines on stdin
  sort -g | awk '{w[NR]=$1; c[NR]=$2} END {printf "%.3f %.3f %.2f\n", w[1], w[int((NR+1)/2)], c[1]}'
}

program=(gzip -c "$work/input.txt")
plain=() engine=() emulate=() lackey=()
for ((i = 0; i < runs; i++)); do
  plain+=("$(seconds "${program[@]}")")
  engine+=("$(seconds valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes \
    --cachegrind-out-file=/dev/null "${program[@]}")")
  emulate+=("$(seconds "$tagop" emulate --as zen3 -o "$work/x.data" -- "${program[@]}")")
  if [[ ${LACKEY:-0} == 1 ]]; then
    lackey+=("$(seconds env TAGOP_VALGRIND_TOOL=lackey "$tagop" emulate --as zen3 -o "$work/y.data" -- "${program[@]}")")
  fi
done
read -r plain_best plain_median plain_cpu < <(printf '%s\n' "${plain[@]}" | stats)
read -r engine_best engine_median engine_cpu < <(printf '%s\n' "${engine[@]}" | stats)
read -r emulate_best emulate_median emulate_cpu < <(printf '%s\n' "${emulate[@]}" | stats)
"$tagop" emulate --as zen3 -o "$work/x.data" --counts "$work/counts.json" -- "${program[@]}" >/dev/null 2>&1
instructions=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instructions"])' "$work/counts.json")

echo "tagop emulate bench: ${program[0]} -c of ${kib} KiB of text, $instructions instructions; best of $runs (median)"
printf '%-40s %9s s wall (median %s s), %s s CPU\n' "plain run" "$plain_best" "$plain_median" "$plain_cpu"
printf '%-44s %9s s wall (median %s s), %s s CPU\n' "cachegrind --cache-sim=yes --branch-sim=yes" \
  "$engine_best" "$engine_median" "$engine_cpu"
printf '%-44s %9s s wall (median %s s), %s s CPU\n' "tagop emulate --as zen3" "$emulate_best" "$emulate_median" \
  "$emulate_cpu"
if ((${#lackey[@]})); then
  read -r lackey_best lackey_median lackey_cpu < <(printf '%s\n' "${lackey[@]}" | stats)
  printf '%-44s %9s s wall (median %s s), %s s CPU\n' "tagop emulate --as zen3, Lackey's trace" "$lackey_best" \
    "$lackey_median" "$lackey_cpu"
fi
printf 'tagop emulate / cachegrind: %.2fx median to median, %.2fx best to best (target: at most 3x)\n' \
  "$(python3 -c "print($emulate_median / $engine_median)")" "$(python3 -c "print($emulate_best / $engine_best)")"
printf 'tagop emulate / plain run: %.0fx median to median\n' "$(python3 -c "print($emulate_median / $plain_median)")"
printf 'in CPU time (Valgrind and tagop together against Cachegrind): %.2fx\n' \
  "$(python3 -c "print($emulate_cpu / $engine_cpu)")"
