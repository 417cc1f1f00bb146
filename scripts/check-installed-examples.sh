#!/usr/bin/env bash
# The proof that the installed library is enough for a tool writer: installs
# tagop from a build directory into a temporary root, then builds each
# program of examples/tool-writers outside the tree with nothing but
# `g++ -std=c++20 $(pkg-config --cflags --libs tagop)`, and runs those that
# can run on any Linux machine (no PMU needed).
#
#   scripts/check-installed-examples.sh [BUILD_DIR]   (default: build; built already: ninja -C BUILD_DIR)
#
# Also compiles every installed header alone (-Wall -Wextra -Werror), so a
# header that needs another it does not include, or that is not installed,
# fails here. Prints "N passed, N failed" and exits non-zero on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
source_root=$PWD
build=${1:-build}
[ -f "$build/build.ninja" ] || { echo "check-installed-examples: $build is not a meson build directory" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tagop-installed.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
check() {  # check WHAT COMMAND...: runs it, counts it, shows its output when it fails
  local what=$1; shift
  if "$@" >"$work/out" 2>&1; then
    passed=$((passed + 1)); echo "ok   $what"
  else
    failed=$((failed + 1)); echo "FAIL $what"; sed 's/^/     /' "$work/out" | head -40
  fi
}

if ! meson install -C "$build" --no-rebuild --destdir "$work/root" --quiet >"$work/install.log" 2>&1; then
  cat "$work/install.log"; echo "0 passed, 1 failed"; exit 1
fi
pc=$(find "$work/root" -name tagop.pc | head -1)
[ -n "$pc" ] || { echo "FAIL no tagop.pc installed"; echo "0 passed, 1 failed"; exit 1; }
# The .pc names the prefix it was configured with; here it lives under the
# temporary root, as a relocated package would.
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$work/root$prefix|" "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
read -r -a flags <<<"$(pkg-config --cflags --libs tagop)"
libdir=$(pkg-config --variable=libdir tagop)
includedir=$(pkg-config --variable=includedir tagop)
echo "pkg-config --cflags --libs tagop: ${flags[*]}"
echo "installed $(basename "$(readlink -f "$libdir/libtagop.so")"): $(stat -c %s "$(readlink -f "$libdir/libtagop.so")") bytes"

# Every installed header compiles alone.
headers=0
while IFS= read -r header; do
  headers=$((headers + 1))
  echo "#include <${header#"$includedir"/}>" >"$work/one.cpp"
  if ! g++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only "${flags[@]}" "$work/one.cpp" >"$work/out" 2>&1; then
    failed=$((failed + 1)); echo "FAIL header ${header#"$includedir"/} does not compile alone"; head -20 "$work/out"
  fi
done < <(find "$includedir/tagop" -name '*.hpp' | sort)
[ "$headers" -gt 0 ] && passed=$((passed + 1)) && echo "ok   $headers installed headers compile alone"

for source in "$source_root"/examples/tool-writers/*.cpp; do
  name=$(basename "$source" .cpp)
  check "build $name" g++ -std=c++20 -Wall -Wextra -Werror -o "$work/$name" "$source" "${flags[@]}"
done

run() { LD_LIBRARY_PATH="$libdir" "$work/$1" "${@:2}"; }
expect() {  # expect PATTERN EXAMPLE ARGS...: it runs, and its output has PATTERN
  local pattern=$1; shift
  run "$@" >"$work/ran" 2>&1 || { cat "$work/ran"; return 1; }
  grep -Eq -- "$pattern" "$work/ran" || { echo "expected /$pattern/ in:"; cat "$work/ran"; return 1; }
}
example=$source_root/examples/ibs-example.perf.data
# IbsOpData3 = 0x81: bit 0 (IbsLdOp) and bit 7 (IbsDcMiss), by the manual.
check "run decode_registers" expect 'load & dc.miss\? yes' decode_registers 'load & dc.miss'
# IbsOpData3's bit 2 (IbsDcL1TlbMiss) is 0: a decided no. The data source is
# in IbsOpData2, which the example does not give: neither yes nor no.
check "run decode_registers (a bit that is 0)" expect 'dtlb.l1_miss\? no' decode_registers 'dtlb.l1_miss'
check "run decode_registers (a register not given)" expect 'src.dram\? unknown' decode_registers 'src.dram'
# The library's count is the command's: tagop report --where on the same file.
kept=$(LD_LIBRARY_PATH="$libdir" "$work/root$prefix/bin/tagop" report "$example" --where 'load & dc.miss' --json |
       python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"]["op"])')
check "run function_counts on the example ($kept op samples, as tagop report --where says)" \
  expect "^[^ ]+: $kept op samples meet" function_counts "$example" 'load & dc.miss'
# SDM: IA32_PERFEVTSEL0 = event 0x04, umask 0x01, USR (bit 16), OS (17), EN (22); Registry::program
# counts (no period, so no INT, bit 20).
check "run lookup_and_program (Silvermont)" expect 'IA32_PERFEVTSEL0 += 0x0000000000430104' \
  lookup_and_program MEM_UOPS_RETIRED.L1_MISS_LOADS
check "run lookup_and_program (IBS)" expect 'IbsOpCtl' lookup_and_program 'IBS DC miss'
# (load | store) & dc.miss is wider than load & dc.miss.
check "run compare_vendors" expect 'the first is wider' compare_vendors 0xF206 MEM_UOPS_RETIRED.L1_MISS_LOADS
# cpu-clock needs perf_event_open for software events (perf_event_paranoid <= 2).
check "run live_sampling on cpu-clock" expect '^[1-9][0-9]* cpu-clock samples' live_sampling

# The library's pprof export is the command's: the same bytes from the same
# capture, a gzip whose profile.proto starts with field 1 (sample_type, tag 0x0a).
same_pprof() {
  run export_pprof "$example" "$work/library.pb.gz" || return 1
  LD_LIBRARY_PATH="$libdir" "$work/root$prefix/bin/tagop" report "$example" --format pprof -o "$work/command.pb.gz" ||
    return 1
  cmp "$work/library.pb.gz" "$work/command.pb.gz" || return 1
  python3 -c 'import gzip, sys; sys.exit(gzip.open(sys.argv[1]).read(1) != b"\x0a")' "$work/library.pb.gz"
}
check "run export_pprof on the example (the bytes of tagop report --format pprof)" same_pprof

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
