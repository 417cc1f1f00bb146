#!/usr/bin/env bash
# Installs everything tagop needs to build and test on Debian 12, from
# Debian's own packages. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential pkg-config meson ninja-build  # the build
  ccache                # CI: the sanitized build takes the tests' objects from the first build's
  lld                   # links the tests' executables in a quarter of GNU ld's time (tests/meson.build)
  libfmt-dev            # formatting and output
  libboost-dev          # Boost.Hana (header-only)
  librange-v3-dev       # sample pipelines
  libpfm4-dev           # PMU tables, encoding cross-checks
  libcli11-dev          # the command line
  nlohmann-json3-dev    # JSON output
  libdw-dev libelf-dev  # ELF symbols and DWARF lines (elfutils)
  libiberty-dev         # the demangler with an output callback: a crafted name is cut short
  valgrind              # tagop emulate: its tool headers and static core build tagop's Valgrind tool (lackey the fallback)
  libcapstone-dev       # tagop emulate: which traced instructions are branches
  catch2                # tests (Catch2 v2)
  clang libclang-rt-14-dev  # sanitizer and fuzzer runtimes
  linux-perf            # the peer tool, for the perf.data cross-check and benchmarks
  cmake                 # the installed CMake package is checked with find_package(tagop)
  time                  # /usr/bin/time: peak memory in bench/report_bench.sh
  libprotobuf-dev protobuf-compiler  # pprof export: profile.proto's generated C++ (gzip via its zlib)
  golang-go             # `go tool pprof`, the peer that reads and merges the pprof exports in the tests
  python3-jsonschema    # validates every command's JSON output against schemas/ in the tests
  doxygen               # the API reference (scripts/check-docs.sh, warnings fail CI)
  chromium              # headless: renders the HTML report in the tests
  libllvm15             # bench/report_bench.sh: a large library with symbols and a build-id to sample in
  clickhouse-server clickhouse-client  # the store (tagop ingest): the tests start a local server on loopback ports
)

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: installed ${#packages[@]} package groups"
