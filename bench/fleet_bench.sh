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
# The ingest is measured in halves and whole, TabSeparated (what ingest
# sent before) against Native (what it sends now), alternated, medians:
# tagop's own work (bench/ingest_rows.cpp, rows to a file), the server's
# alone (those files sent by curl; its CPU seconds from /proc), the whole.
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
for f in "$tagop" "$build/bench/make-symbol-capture" "$build/bench/ingest-rows" "$server" "$client"; do
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

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# The server's CPU seconds (user + system, all threads) so far.
server_cpu() { awk -v k="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / k }' "/proc/$server_pid/stat"; }
echo "host load before: $(uptime | sed 's/.*load average: //')"

# 1. tagop's own work: the rows written to a file, nothing sent
# (ingest-rows: read, decode, symbolize with lines and data objects,
# format), TabSeparated (what ingest sent before) and Native, alternated.
for f in tsv native; do : > "$tmp/own.$f"; done
for _ in $(seq "$repeats"); do
  for f in tsv native; do
    s=$(now); "$build/bench/ingest-rows" "$capture" --format "$f" > "$tmp/rows.$f" 2> /dev/null; e=$(now)
    calc "$e - $s" 3 >> "$tmp/own.$f"; echo >> "$tmp/own.$f"
  done
done
for f in tsv native; do
  own=$(median < "$tmp/own.$f")
  echo "tagop's side ($f, no server): $own s: $(calc "$samples / $own" 0) samples/s, $(du -m "$tmp/rows.$f" | cut -f1) MiB"
done

# 2. The server's work alone: the same rows from those files, by curl
# (HTTP, as tagop sends them), into a table of the store's layout; and
# INSERT ... SELECT of rows the server holds (no parsing at all).
"$client" --port "$tcp" --query "CREATE DATABASE alone"
"$build/bench/ingest-rows" "$capture" --url "$url/?database=alone" 2> /dev/null
"$client" --port "$tcp" --query "CREATE TABLE alone.sink AS alone.tagop_samples_v2"
for f in tsv native; do : > "$tmp/server.$f"; : > "$tmp/server_cpu.$f"; done
for _ in $(seq "$repeats"); do
  for f in tsv native; do
    format=$([ "$f" = tsv ] && echo TabSeparated || echo Native)
    "$client" --port "$tcp" --query "TRUNCATE TABLE alone.sink"
    c0=$(server_cpu); s=$(now)
    curl -sS -T - "$url/?query=INSERT%20INTO%20alone.sink%20FORMAT%20$format" < "$tmp/rows.$f"
    e=$(now); c1=$(server_cpu)
    calc "$e - $s" 3 >> "$tmp/server.$f"; echo >> "$tmp/server.$f"
    calc "$c1 - $c0" 2 >> "$tmp/server_cpu.$f"; echo >> "$tmp/server_cpu.$f"
  done
done
for f in tsv native; do
  wall=$(median < "$tmp/server.$f")
  echo "server's side ($f by curl): $wall s: $(calc "$samples / $wall" 0) samples/s, server CPU $(median < "$tmp/server_cpu.$f") s"
done
"$client" --port "$tcp" --query "TRUNCATE TABLE alone.sink"
c0=$(server_cpu); s=$(now)
"$client" --port "$tcp" --query "INSERT INTO alone.sink SELECT * FROM alone.tagop_samples_v2"
e=$(now); c1=$(server_cpu)
echo "server's side (INSERT SELECT, no parsing): $(calc "$e - $s" 3) s: $(calc "$samples / ($e - $s)" 0) samples/s, server CPU $(calc "$c1 - $c0" 2) s"
rm -f "$tmp"/rows.*

# 3. The whole ingest, before (TabSeparated) and now (tagop ingest:
# Native), alternated, each into a database of its own.
for f in tsv native; do : > "$tmp/ingest.$f"; done
run=0
for _ in $(seq "$repeats"); do
  for f in tsv native; do
    run=$((run + 1))
    "$client" --port "$tcp" --query "CREATE DATABASE run$run"
    s=$(now)
    if [ "$f" = native ]; then "$tagop" ingest "$url/?database=run$run" "$capture" > /dev/null
    else "$build/bench/ingest-rows" "$capture" --format tsv --url "$url/?database=run$run" 2> /dev/null; fi
    e=$(now)
    calc "$e - $s" 3 >> "$tmp/ingest.$f"; echo >> "$tmp/ingest.$f"
    "$client" --port "$tcp" --query "DROP DATABASE run$run"
  done
done
"$tagop" ingest "$url" "$capture" > /dev/null
rows=$("$client" --port "$tcp" --query 'SELECT count() FROM tagop_samples_v2')
for f in tsv native; do
  wall=$(median < "$tmp/ingest.$f")
  echo "ingest ($f): $rows rows in $wall s: $(calc "$rows / $wall" 0) samples/s (target 5000000)"
done
echo "host load after the ingests: $(uptime | sed 's/.*load average: //')"

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
query="SELECT function, $columns FROM tagop_samples_v2 WHERE capture IN (SELECT capture FROM tagop_captures_v2) GROUP BY function FORMAT Null"

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
sums=$("$client" --port "$tcp" --query "SELECT arrayStringConcat(groupArray(concat('sum(', name, ')')), ', ') FROM system.columns WHERE database = currentDatabase() AND table = 'tagop_samples_v2' AND substring(name, 1, 2) = 'm_'")
tally="SELECT function, conditions_lo, conditions_hi, observed_lo, observed_hi, measured, count(), $sums FROM tagop_samples_v2 WHERE capture IN (SELECT capture FROM tagop_captures_v2) GROUP BY function, conditions_lo, conditions_hi, observed_lo, observed_hi, measured FORMAT Null"
store_s=$(best "$client" --port "$tcp" --query "$query")
tally_s=$(best "$client" --port "$tcp" --query "$tally")
local_s=$(best "$tagop" report "$capture" --by function --format json)
echo "report by function, $i derived events: local $local_s s"
echo "  store, every event's SQL (query_sql): $store_s s: store/local $(calc "$store_s / $local_s" 2)"
echo "  store, tallies by signature (tally_store): $tally_s s: store/local $(calc "$tally_s / $local_s" 2) (target <= 2 at 100 M samples)"
