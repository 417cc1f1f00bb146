#!/usr/bin/env bash
# The store's speed (issue 41), in one run on the same capture: how fast
# `tagop ingest` writes an IBS capture into a local clickhouse-server
# (samples a second), and how long the store takes to answer every IBS
# derived event by function (count, total and undecided of each, the SQL of
# `tagop events show CODE --format sql`) against the local
# `tagop report --by function` of the same capture.
#
#   bench/fleet_bench.sh [BUILD_DIR]     (configured with -Dbench=true)
#
# BENCH_SAMPLES (default 2000000) samples, inside BENCH_ELF (default
# libLLVM-15.so.1) over 10000 addresses (bench/make_symbol_capture.cpp).
# The server is started here, on free loopback ports, its data in a
# temporary folder (clickhouse-server from Debian's package). Best of
# BENCH_REPEATS (3) for each query side; the ingest runs once (a second
# ingest of the same capture is skipped: it is the same capture).
# The issue's targets: ingest at 5 M samples/s or more, a report from the
# store of 100 M samples within 2x the local report's time.
set -euo pipefail

build=${1:-build}
samples=${BENCH_SAMPLES:-2000000}
elf=${BENCH_ELF:-/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1}
repeats=${BENCH_REPEATS:-3}
tagop=$build/tools/tagop
server=${CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}
client=${CLICKHOUSE_CLIENT:-/usr/bin/clickhouse-client}
for f in "$tagop" "$build/bench/make-symbol-capture" "$server" "$client"; do
  [ -x "$f" ] || { echo "fleet_bench: $f is missing (configure with -Dbench=true and build; apt-get install clickhouse-server clickhouse-client)" >&2; exit 2; }
done
[ -r "$elf" ] || { echo "fleet_bench: $elf is missing (Debian: libllvm15), or give BENCH_ELF" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagop-fleet-bench.XXXXXX")
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(free_port); tcp=$(free_port)
mkdir -p "$tmp/ch"
cat > "$tmp/ch/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$tmp/ch/server.log</log><errorlog>$tmp/ch/error.log</errorlog></logger>
  <http_port>$http</http_port><tcp_port>$tcp</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>$tmp/ch/data/</path><tmp_path>$tmp/ch/tmp/</tmp_path><user_files_path>$tmp/ch/user_files/</user_files_path>
  <users_config>users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
</yandex>
XML
cat > "$tmp/ch/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>10000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
(cd "$tmp/ch" && exec "$server" --config-file="$tmp/ch/config.xml" > /dev/null 2>&1) &
server_pid=$!
url=http://127.0.0.1:$http
for _ in $(seq 300); do "$client" --port "$tcp" --query 'SELECT 1' > /dev/null 2>&1 && break; sleep 0.1; done

now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

capture=$tmp/ibs.data
"$build/bench/make-symbol-capture" "$capture" --elf "$elf" --samples "$samples" --addresses 10000 > /dev/null
sync "$capture"; cat "$capture" > /dev/null
echo "fleet_bench: $samples IBS samples ($(du -m "$capture" | cut -f1) MiB) inside $elf; clickhouse-server $("$client" --port "$tcp" --query 'SELECT version()')"

t0=$(now)
"$tagop" ingest "$url" "$capture" > /dev/null
t1=$(now)
rows=$("$client" --port "$tcp" --query 'SELECT count() FROM tagop_samples_v1')
ingest_s=$(calc "$t1 - $t0" 3)
echo "ingest: $rows rows in $ingest_s s: $(calc "$rows / ($t1 - $t0)" 0) samples/s (target 5000000)"

# Every IBS derived event's three aggregates, by function, in one SELECT.
columns=""
i=0
codes=$("$tagop" events list --backend amd-ibs --format csv |
  python3 -c 'import csv, sys; print("\n".join(r["code"] for r in csv.DictReader(sys.stdin)))')
for code in $codes; do
  sql=$("$tagop" events show "$code" --backend amd-ibs --format sql 2> /dev/null) || continue
  part=$(printf '%s\n' "$sql" | sed -n 's/^  \(.*\) AS \(count\|total\|undecided\),\{0,1\}$/\1 AS \2_'$i'/p' | paste -sd, -)
  [ -n "$part" ] && columns="$columns${columns:+, }$part"
  i=$((i + 1))
done
query="SELECT function, $columns FROM tagop_samples_v1 WHERE capture IN (SELECT capture FROM tagop_captures_v1) GROUP BY function FORMAT Null"

best() {  # best wall time of $repeats runs of "$@"
  local best="" s e d
  for _ in $(seq "$repeats"); do
    s=$(now); "$@" > /dev/null; e=$(now)
    d=$(calc "$e - $s" 3)
    if [ -z "$best" ] || awk "BEGIN { exit !($d < $best) }"; then best=$d; fi
  done
  echo "$best"
}
# The tallies report::tally_store asks for: samples by function and
# signature, summed on the server; the engine answers every event of them.
sums=$("$client" --port "$tcp" --query "SELECT arrayStringConcat(groupArray(concat('sum(', name, ')')), ', ') FROM system.columns WHERE database = currentDatabase() AND table = 'tagop_samples_v1' AND substring(name, 1, 2) = 'm_'")
tally="SELECT function, conditions_lo, conditions_hi, observed_lo, observed_hi, measured, count(), $sums FROM tagop_samples_v1 WHERE capture IN (SELECT capture FROM tagop_captures_v1) GROUP BY function, conditions_lo, conditions_hi, observed_lo, observed_hi, measured FORMAT Null"
store_s=$(best "$client" --port "$tcp" --query "$query")
tally_s=$(best "$client" --port "$tcp" --query "$tally")
local_s=$(best "$tagop" report "$capture" --by function --format json)
echo "report by function, $i derived events: local $local_s s"
echo "  store, every event's SQL (query_sql): $store_s s: store/local $(calc "$store_s / $local_s" 2)"
echo "  store, tallies by signature (tally_store): $tally_s s: store/local $(calc "$tally_s / $local_s" 2) (target <= 2 at 100 M samples)"
