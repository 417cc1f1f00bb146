#!/usr/bin/env bash
# An emulated IBS capture of a real program, for the report benchmark and
# tests that want realistic captures (thousands of addresses in real
# binaries with symbols, not a generated handful): xz compressing a
# generated text file, emulated as a Zen 3, an op and a fetch sample every
# PERIOD (default 16, about one sample per 16 instructions).
#   bench/emulated_capture.sh BUILD_DIR OUTPUT [PERIOD] [INPUT_KIB]
# Then, e.g.: BUILD_DIR/tools/tagop report OUTPUT; time perf script -i OUTPUT >/dev/null
set -euo pipefail
build=${1:?usage: emulated_capture.sh BUILD_DIR OUTPUT [PERIOD] [INPUT_KIB]}
output=${2:?usage: emulated_capture.sh BUILD_DIR OUTPUT [PERIOD] [INPUT_KIB]}
period=${3:-16}
kib=${4:-128}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -c "
import random
random.seed(7)
words = [''.join(random.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(random.randint(2, 9))) for _ in range(5000)]
text = ''.join(' '.join(random.choice(words) for _ in range(12)) + '\n' for _ in range($kib * 1024 // 60))
open('$work/input.txt', 'w').write(text[:$kib * 1024])
"
"$build/tools/tagop" emulate --as zen3 --period "$period" -o "$output" -- xz -c "$work/input.txt" >/dev/null
