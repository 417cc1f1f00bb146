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
# Only tagop's .pc is visible: a machine with none of tagop's build
# dependencies (no fmt.pc, libdw.pc...) must be enough.
export PKG_CONFIG_LIBDIR=$(dirname "$pc") PKG_CONFIG_PATH=
check "pkg-config --cflags --libs tagop with no other package's .pc" pkg-config --cflags --libs tagop
read -r -a flags <<<"$(pkg-config --cflags --libs tagop)"
libdir=$(pkg-config --variable=libdir tagop)
includedir=$(pkg-config --variable=includedir tagop)
echo "pkg-config --cflags --libs tagop: ${flags[*]}"
echo "installed $(basename "$(readlink -f "$libdir/libtagop.so")"): $(stat -c %s "$(readlink -f "$libdir/libtagop.so")") bytes"

# The shared library exports the installed headers' API and nothing else
# (tagop/api.hpp): every dynamic symbol it defines is tagop's, none is a
# JSON, protobuf or {fmt} instantiation from inside it.
shared=$(readlink -f "$libdir/libtagop.so")
nm -DC --defined-only "$shared" | cut -c20- >"$work/exported"
check "libtagop.so exports only tagop's API ($(wc -l <"$work/exported") symbols)" \
  sh -c '! grep -Ev "$1" "$2"' _ '^(typeinfo for |typeinfo name for |vtable for |VTT for |(non-)?virtual thunk to |guard variable for )?tagop::' "$work/exported"
check "the soname says the ABI: $(readelf -d "$shared" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" \
  sh -c 'readelf -d "$1" | grep -q "(SONAME).*\[libtagop\.so\.$2\]"' _ "$shared" \
  "$(pkg-config --modversion tagop | awk -F. '{ print ($1 == 0) ? $1 "." $2 : $1 }')"
# meson install strips static libraries too (an install script): no debug info.
static=$libdir/libtagop.a
check "libtagop.a is stripped of debug info ($(stat -c %s "$static") bytes)" \
  sh -c '! objdump -h "$1" | grep -q "\.debug_info"' _ "$static"

# What the headers include besides the standard library and each other:
# the kernel's and libc's interfaces (linux-libc-dev, libc6-dev, there with
# any compiler), and range-v3 in the two range headers (README). Another
# library's header would need its -dev package on the tool writer's machine.
foreign=$(grep -rhoE '^#include <[^>]+>' "$includedir/tagop" | sed 's/#include <\(.*\)>/\1/' | sort -u |
  grep -vE '^(tagop/|linux/perf_event\.h$|sys/types\.h$|range/v3/)' | grep -E '/|\.h$')
check "the installed headers include no other library's header (but range-v3's)" \
  sh -c '[ -z "$1" ] || { echo "foreign includes: $1"; exit 1; }' _ "$foreign"
check "only tagop/samples_range.hpp and tagop/live_samples.hpp include range-v3" \
  sh -c '[ "$(grep -rlE "^#include <range/v3/" "$1/tagop" | sed "s|^$1/||" | sort | tr "\n" " ")" = "tagop/live_samples.hpp tagop/samples_range.hpp " ]' _ "$includedir"

# Every installed header compiles alone (two at a time: CI's machine has
# two CPUs, and this loop was a minute of its thirty).
compile_alone() {  # compile_alone INCLUDEDIR HEADER FLAGS...: prints the header and its errors when it fails
  local includedir=$1 header=$2; shift 2
  local name=${header#"$includedir"/} errors
  errors=$(g++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only "$@" -x c++ - <<<"#include <$name>" 2>&1) ||
    printf 'FAIL header %s does not compile alone\n%s\n' "$name" "$(head -20 <<<"$errors")"
}
export -f compile_alone
headers=$(find "$includedir/tagop" -name '*.hpp' | wc -l)
find "$includedir/tagop" -name '*.hpp' -print0 | sort -z |
  xargs -0 -P "$(nproc)" -I{} bash -c 'compile_alone "$@"' _ "$includedir" {} "${flags[@]}" >"$work/alone"
cat "$work/alone"
failed=$((failed + $(grep -c '^FAIL' "$work/alone")))
[ "$headers" -gt 0 ] && ! grep -q '^FAIL' "$work/alone" && passed=$((passed + 1)) && echo "ok   $headers installed headers compile alone"

# The examples compile two at a time too, each into its program and its
# log; then each is counted, in order.
build_example() {  # build_example WORK SOURCE FLAGS...: $WORK/NAME, and $WORK/NAME.build with the compiler's output and status
  local work=$1 source=$2 name
  name=$(basename "$source" .cpp); shift 2
  g++ -std=c++20 -Wall -Wextra -Werror -o "$work/$name" "$source" "$@" >"$work/$name.build" 2>&1
  echo "exit $?" >>"$work/$name.build"
}
export -f build_example
printf '%s\0' "$source_root"/examples/tool-writers/*.cpp |
  xargs -0 -P "$(nproc)" -I{} bash -c 'build_example "$@"' _ "$work" {} "${flags[@]}"
built() { grep -v '^exit ' "$1"; tail -n 1 "$1" | grep -qx 'exit 0'; }
for source in "$source_root"/examples/tool-writers/*.cpp; do
  name=$(basename "$source" .cpp)
  check "build $name" built "$work/$name.build"
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
# Zen 4 (Family 25 model 17), every 131072 ops: IbsOpMaxCnt = 131072 / 16 = 0x2000, IbsOpEn (bit 17).
check "run lookup_and_program (IBS, for a Zen 4)" expect 'IbsOpCtl += 0x0000000000022000' \
  lookup_and_program 'IBS DC miss' AuthenticAMD,25,17,1 131072
# (load | store) & dc.miss is wider than load & dc.miss.
check "run compare_vendors" expect 'the first is wider' compare_vendors 0xF206 MEM_UOPS_RETIRED.L1_MISS_LOADS
# Silvermont's MEM_UOPS_RETIRED.L1_MISS_LOADS (event 0x04, umask 0x01) is
# load & dc.miss exactly (its predicate in the table); IBS's op
# samples observe both conditions, and IBS is programmed for the Zen 4 given.
check "run nearest_events (Silvermont: the same ops)" \
  expect 'silvermont: MEM_UOPS_RETIRED.L1_MISS_LOADS counts the same ops' nearest_events 'load & dc.miss' AuthenticAMD,25,17,1
check "run nearest_events (IBS: the samples tell, programmed for a Zen 4)" \
  expect 'IbsOpCtl += 0x0000000000021000' nearest_events 'load & dc.miss' AuthenticAMD,25,17,1
# cpu-clock needs perf_event_open for software events (perf_event_paranoid <= 2).
check "run live_sampling on cpu-clock" expect '^[1-9][0-9]* cpu-clock samples' live_sampling

# The version the headers say is the library's at run time.
cat >"$work/version.cpp" <<'CPP'
#include <cstdio>
#include <tagop/version.hpp>
int main() {
  const tagop::Version v = tagop::version();
  std::printf("%d.%d.%d %s\n", v.major, v.minor, v.patch, TAGOP_VERSION_STRING);
  return v == tagop::header_version() ? 0 : 1;
}
CPP
check "build a program that reads tagop::version()" g++ -std=c++20 -Wall -Wextra -Werror -o "$work/version" "$work/version.cpp" "${flags[@]}"
version=$(pkg-config --modversion tagop)
check "tagop::version() is $version, as the headers and the .pc say" expect "^$version $version\$" version

# CMake: find_package(tagop CONFIG) and tagop::tagop, nothing else.
mkdir -p "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(tool_writer CXX)
find_package(tagop $version CONFIG REQUIRED)
add_executable(function_counts "$source_root/examples/tool-writers/function_counts.cpp")
target_link_libraries(function_counts PRIVATE tagop::tagop)
CMAKE
check "cmake: find_package(tagop CONFIG) and build function_counts against tagop::tagop" \
  sh -c 'cmake -S "$1" -B "$1/build" -DCMAKE_PREFIX_PATH="$2" -DCMAKE_BUILD_TYPE=Release && cmake --build "$1/build"' \
  _ "$work/cmake" "$work/root$prefix"
check "run the CMake-built function_counts (the same $kept op samples)" \
  expect "^[^ ]+: $kept op samples meet" cmake/build/function_counts "$example" 'load & dc.miss'

# top_callers on a `perf record -g` capture of the call-graph fixture (leaf,
# called by middle_a twice a loop and by middle_b once): every caller's
# count must be the one perf script's own chains give (the frame after
# leaf's, by the symbol perf names).
callers_of_leaf() {  # callers_of_leaf CAPTURE: "caller count" lines, sorted, by top_callers and by perf script
  run top_callers "$1" leaf >"$work/ran" 2>&1 || { cat "$work/ran"; return 1; }
  sed -nE 's/^ *([0-9]+) +[0-9.]+% +(.*)$/\2 \1/p' "$work/ran" | sort >"$work/callers.tagop"
  perf script -i "$1" -F ip,sym 2>/dev/null |
    awk 'NF == 0 { n = 0; next } { n++; if (n == 1) inleaf = ($2 == "leaf"); else if (n == 2 && inleaf) c[$2]++ }
         END { for (k in c) print k, c[k] }' | sort >"$work/callers.perf"
  grep -q '^middle_a [1-9]' "$work/callers.perf" || { echo "perf script found no caller middle_a:"; cat "$work/callers.perf"; return 1; }
  diff "$work/callers.perf" "$work/callers.tagop" || { cat "$work/ran"; return 1; }
}
fixture=$build/tests/tagop_callchain_fixture
if command -v perf >/dev/null && [ -x "$fixture" ] &&
   perf record -q -o "$work/callchain.data" -e cpu-clock:u -c 100000 -g -- "$fixture" 300 >/dev/null 2>&1; then
  check "run top_callers (the callers of leaf, as perf script's chains count them)" callers_of_leaf "$work/callchain.data"
else
  echo "skip run top_callers: no perf, no $fixture, or perf record -g cannot sample cpu-clock here"
fi

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
