#!/usr/bin/env bash
# The speed of `tagop emulate` against its trace engine alone, in the same
# run: a real program (gzip of a generated text file) run
#   1. plainly,
#   2. under Valgrind lackey with its trace written to /dev/null (the engine alone),
#   3. under `tagop emulate --as zen3` (the engine, the trace through a pipe, the model, the capture),
# best of N (default 3) wall-clock seconds each, with the median beside it,
# and the CPU seconds (user + system, the command and its children) of the
# best run. The target: (3) at most 1.5 times (2).
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
plain=() engine=() emulate=()
for ((i = 0; i < runs; i++)); do
  plain+=("$(seconds "${program[@]}")")
  engine+=("$(seconds sh -c 'exec valgrind -q --tool=lackey --trace-mem=yes --log-fd=9 "$@" 9>/dev/null' sh "${program[@]}")")
  emulate+=("$(seconds "$tagop" emulate --as zen3 -o "$work/x.data" -- "${program[@]}")")
done
read -r plain_best plain_median plain_cpu < <(printf '%s\n' "${plain[@]}" | stats)
read -r engine_best engine_median engine_cpu < <(printf '%s\n' "${engine[@]}" | stats)
read -r emulate_best emulate_median emulate_cpu < <(printf '%s\n' "${emulate[@]}" | stats)
"$tagop" emulate --as zen3 -o "$work/x.data" --counts "$work/counts.json" -- "${program[@]}" >/dev/null 2>&1
instructions=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instructions"])' "$work/counts.json")

echo "tagop emulate bench: ${program[0]} -c of ${kib} KiB of text, $instructions instructions; best of $runs (median)"
printf '%-40s %9s s wall (median %s s), %s s CPU\n' "plain run" "$plain_best" "$plain_median" "$plain_cpu"
printf '%-40s %9s s wall (median %s s), %s s CPU\n' "valgrind lackey, trace to /dev/null" "$engine_best" \
  "$engine_median" "$engine_cpu"
printf '%-40s %9s s wall (median %s s), %s s CPU\n' "tagop emulate --as zen3" "$emulate_best" "$emulate_median" \
  "$emulate_cpu"
printf 'tagop emulate / trace engine alone: %.2fx best to best, %.2fx median to median (target: at most 1.5x)\n' \
  "$(python3 -c "print($emulate_best / $engine_best)")" "$(python3 -c "print($emulate_median / $engine_median)")"
printf 'in CPU time (Valgrind and tagop together against Valgrind alone): %.2fx\n' \
  "$(python3 -c "print($emulate_cpu / $engine_cpu)")"
