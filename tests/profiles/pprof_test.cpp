// The pprof writer against the real client: Debian's `go tool pprof` reads
// the file, and its numbers are the generator's own tallies.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include <tagop/error.hpp>
#include <tagop/profiles/pprof.hpp>

#include <google/protobuf/io/gzip_stream.h>         // GzipInputStream
#include <google/protobuf/io/zero_copy_stream_impl.h>  // IstreamInputStream

#include "profile.pb.h"  // the generated reader, protobuf's peer

#include "peer_tools.hpp"
#include "synthetic_profile.hpp"

using namespace tagop::profiles;

namespace {

const char* type_names[] = {"samples", "ibs_op", "ibs_dc_miss", "dc_miss_latency"};

std::string write_machine(const synthetic::Machine& m, const std::string& name) {
  const std::string path = (peers::scratch() / name).string();
  write_pprof(m.profile, path);
  return path;
}

void require_go() {
  if (!peers::have_go())
    FAIL("go is not installed: `go tool pprof` is the peer these tests need (Debian's golang-go; "
         "scripts/install-deps.sh installs it)");
}

void check_top(const std::string& file, std::size_t type, const std::int64_t total,
               const std::map<std::string, std::int64_t>& flat, const std::map<std::string, std::int64_t>& cum) {
  const RunResult r = peers::pprof("-top -nodecount=1000 -sample_index=" + std::string(type_names[type]) + " " + file);
  INFO("pprof said:\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const peers::Top top = peers::parse_top(r.out);
  CHECK(top.total == total);
  for (const auto& [name, value] : cum) {
    INFO(type_names[type] << " " << name);
    REQUIRE(top.rows.count(name) == 1);
    CHECK(top.rows.at(name).cum == value);
    CHECK(top.rows.at(name).flat == (flat.count(name) ? flat.at(name) : 0));
  }
  CHECK(top.rows.size() == cum.size());
}

}  // namespace

TEST_CASE("go tool pprof -top gives the generator's totals for every sample type", "[profiles][pprof]") {
  require_go();
  const synthetic::Machine m = synthetic::make_machine(1, 2000);
  const std::string file = write_machine(m, "one.pb.gz");
  for (std::size_t t = 0; t < synthetic::type_count; ++t)
    check_top(file, t, m.expected.total[t], m.expected.flat[t], m.expected.cum[t]);

  // The estimates are samples x period: an op sample stands for 65536 ops.
  CHECK(m.expected.total[synthetic::ops] == 2000 * synthetic::op_period);
}

TEST_CASE("pprof shows the header: comments, period, duration, build-id", "[profiles][pprof]") {
  require_go();
  const synthetic::Machine m = synthetic::make_machine(3, 200);
  const std::string file = write_machine(m, "header.pb.gz");
  const RunResult comments = peers::pprof("-comments " + file);
  REQUIRE(comments.exit_code == 0);
  CHECK(comments.out == "emulated (model: zen3)\ntagop test machine 3\n");

  // -raw prints the decoded profile: period, sample types, mappings.
  const RunResult raw = peers::pprof("-raw " + file);
  INFO(raw.out << raw.err);
  REQUIRE(raw.exit_code == 0);
  CHECK(raw.out.find("PeriodType: ops count") != std::string::npos);
  CHECK(raw.out.find("Period: 65536") != std::string::npos);
  CHECK(raw.out.find("samples/count ibs_op/count ibs_dc_miss/count dc_miss_latency/cycles") != std::string::npos);
  CHECK(raw.out.find("/usr/bin/prog 3f9a1c0e5b7d2a4c6e8f0a1b2c3d4e5f60718293") != std::string::npos);
  CHECK(raw.out.find("/usr/lib/x86_64-linux-gnu/libc.so.6 0123456789abcdef0123456789abcdef01234567") !=
        std::string::npos);
  // The inlined frame: bucket_of inside hash_join at one address, with files and lines.
  CHECK(raw.out.find("bucket_of join.hpp:17") != std::string::npos);
  CHECK(raw.out.find("hash_join join.cpp:91") != std::string::npos);
  const RunResult top = peers::pprof("-top " + file);
  CHECK(top.out.find("Duration: 2.50s") != std::string::npos);
  CHECK(top.out.find("Build ID: 3f9a1c0e5b7d2a4c6e8f0a1b2c3d4e5f60718293") != std::string::npos);
}

TEST_CASE("two machines' profiles merge with pprof -proto and the totals add up", "[profiles][pprof]") {
  require_go();
  const synthetic::Machine a = synthetic::make_machine(1, 2000), b = synthetic::make_machine(2, 3000);
  const std::string fa = write_machine(a, "machine-a.pb.gz"), fb = write_machine(b, "machine-b.pb.gz");
  const std::string merged = (peers::scratch() / "merged.pb.gz").string();
  const RunResult r = peers::pprof("-proto " + fa + " " + fb + " > " + merged);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (std::size_t t = 0; t < synthetic::type_count; ++t) {
    std::map<std::string, std::int64_t> flat = a.expected.flat[t], cum = a.expected.cum[t];
    for (const auto& [k, v] : b.expected.flat[t]) flat[k] += v;
    for (const auto& [k, v] : b.expected.cum[t]) cum[k] += v;
    check_top(merged, t, a.expected.total[t] + b.expected.total[t], flat, cum);
  }
  // Both machines' notes survive the merge.
  const RunResult comments = peers::pprof("-comments " + merged);
  CHECK(comments.out.find("tagop test machine 1") != std::string::npos);
  CHECK(comments.out.find("tagop test machine 2") != std::string::npos);
}

TEST_CASE("pprof -traces shows each sample's stack, leaf first, with its labels", "[profiles][pprof]") {
  require_go();
  const synthetic::Machine m = synthetic::make_machine(4, 300);
  const std::string file = write_machine(m, "traces.pb.gz");
  const RunResult r = peers::pprof("-traces -sample_index=samples " + file);
  REQUIRE(r.exit_code == 0);
  // Blocks are separated by "-----------+---...": labels, then "VALUE  leaf", then callers.
  std::set<std::string> stacks;
  std::size_t blocks = 0, labelled = 0;
  std::istringstream in(r.out);
  std::string line, stack;
  bool in_block = false, has_comm = false, has_pid = false;
  auto close_block = [&] {
    if (!in_block || stack.empty()) return;  // the closing rule has no block after it
    ++blocks;
    labelled += has_comm && has_pid;
    stacks.insert(stack);
    stack.clear();
    has_comm = has_pid = false;
  };
  while (std::getline(in, line)) {
    if (line.rfind("-----------+", 0) == 0) {
      close_block();
      in_block = true;
      continue;
    }
    if (!in_block) continue;
    static const std::regex label(R"(^\s+(\w+):  .*)");
    std::smatch match;
    if (std::regex_match(line, match, label)) {
      has_comm |= match[1] == "comm";
      has_pid |= match[1] == "pid";
    } else if (line.find_first_not_of(' ') != std::string::npos) {
      // "      1   bucket_of (inline)" or "             hash_join": the frame is the last column.
      std::string frame = line.substr(line.find_first_not_of(" 0123456789"));
      if (frame.size() > 9 && frame.ends_with(" (inline)")) frame.resize(frame.size() - 9);
      stack = stack.empty() ? frame : frame + ";" + stack;  // leaf first in, root first out
    }
  }
  close_block();
  CHECK(blocks >= 6);
  CHECK(labelled == blocks);
  std::set<std::string> expected;
  for (const auto& [folded, total] : m.expected.folded[synthetic::samples]) expected.insert(folded);
  CHECK(stacks == expected);
}

TEST_CASE("pprof -tags totals by comm and pid; -tagfocus selects one process and cpu 0", "[profiles][pprof]") {
  require_go();
  const synthetic::Machine m = synthetic::make_machine(5, 1500);
  const std::string file = write_machine(m, "labels.pb.gz");
  const RunResult tags = peers::pprof("-tags -sample_index=samples " + file);
  REQUIRE(tags.exit_code == 0);
  for (const auto& [comm, n] : m.expected.samples_by_comm) {
    INFO(tags.out);
    CHECK(tags.out.find(" " + std::to_string(n) + ".0 (") != std::string::npos);
    CHECK(tags.out.find("): " + comm + "\n") != std::string::npos);
  }
  const RunResult db = peers::pprof("-top -tagfocus=comm=db -sample_index=samples " + file);
  CHECK(peers::parse_top(db.out).rows.at("main").cum == m.expected.samples_by_comm.at("db;server"));
  const RunResult pid = peers::pprof("-top -tagfocus=pid=4243 -sample_index=samples " + file);
  CHECK(peers::parse_top(pid.out).rows.at("main").cum == m.expected.samples_by_pid.at(4243));
  // cpu 0 is a label too (proto3 drops zeros; the unit keeps it).
  const RunResult cpus = peers::pprof("-tags -tagfocus=cpu=0 -sample_index=samples " + file);
  CHECK(cpus.out.find("cpu: Total") != std::string::npos);
  CHECK(cpus.out.find("100%): 0\n") != std::string::npos);
}

TEST_CASE("a report's rows fit as aggregated samples: one per row, no addresses or labels", "[profiles][pprof]") {
  require_go();
  // What `tagop report --by function` gives: per row, sample counts of two
  // columns; the estimates are counts x period.
  Profile p({{"ibs_op", "count", 65536}, {"ibs_dc_miss", "count", 65536}});
  const MappingId libc = p.add_mapping({0, 0, 0, "libc.so.6", ""});
  struct Row {
    const char* name;
    std::int64_t ops, misses;
  };
  const Row rows[] = {{"memcpy", 812, 97}, {"strlen", 77, 3}, {"malloc", 5, 0}};
  for (const Row& row : rows) {
    const LocationId l = p.add_location({0, libc, {{row.name, "", "", 0}}});
    const std::int64_t values[] = {row.ops, row.misses};
    p.add_sample(values, {&l, 1});
  }
  const std::string file = (peers::scratch() / "rows.pb.gz").string();
  write_pprof(p, file);
  const peers::Top top = peers::parse_top(peers::pprof("-top -sample_index=ibs_dc_miss " + file).out);
  CHECK(top.total == (97 + 3) * 65536);
  CHECK(top.rows.at("memcpy").flat == 97 * 65536);
  CHECK(top.rows.at("strlen").flat == 3 * 65536);
  CHECK(top.rows.count("malloc") == 0);  // no misses: pprof leaves it out
  const peers::Top ops = peers::parse_top(peers::pprof("-top -sample_index=ibs_op " + file).out);
  CHECK(ops.rows.at("malloc").flat == 5 * 65536);
}

TEST_CASE("pprof's files are gzip with string_table[0] empty; writing to a bad path names it", "[profiles][pprof]") {
  const synthetic::Machine m = synthetic::make_machine(6, 10);
  std::ostringstream bytes;
  write_pprof(m.profile, bytes);
  const std::string s = bytes.str();
  REQUIRE(s.size() > 20);
  CHECK(static_cast<unsigned char>(s[0]) == 0x1f);  // gzip magic (RFC 1952)
  CHECK(static_cast<unsigned char>(s[1]) == 0x8b);
  CHECK(s[2] == 8);  // deflate
  try {
    write_pprof(m.profile, std::string("/nonexistent-dir/x.pb.gz"));
    FAIL("no error");
  } catch (const tagop::Error& e) {
    CHECK(std::string(e.what()).find("/nonexistent-dir/x.pb.gz") != std::string::npos);
  }
}

TEST_CASE("names that are not UTF-8 are written with U+FFFD for the bad bytes as pprof and protobuf read them",
          "[profiles][pprof][hostile]") {
  require_go();
  // A capture's names are bytes: a module path, a comm and a symbol that
  // are not UTF-8 (protobuf's string fields must be, and pprof's reader
  // refuses the file otherwise).
  Profile p({{"samples", "count", 1}});
  Mapping mapping;
  mapping.start = 0x400000;
  mapping.limit = 0x500000;
  mapping.path = "/tmp/bin\xff";
  Location at;
  at.mapping = p.add_mapping(mapping);
  at.address = 0x401000;
  Frame frame;
  frame.function = "f\xc3(\xc3\xa9)";
  frame.file = "a\x80.c";
  frame.line = 3;
  at.frames.push_back(frame);
  const LocationId l = p.add_location(at);
  const std::int64_t one = 1;
  Labels labels;
  labels.pid = 1;
  labels.comm = "x\xfe";
  p.add_sample({&one, 1}, {&l, 1}, labels);
  const std::string file = (peers::scratch() / "utf8.pb.gz").string();
  write_pprof(p, file);
  const RunResult r = peers::pprof("-traces " + file);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("f\xef\xbf\xbd(\xc3\xa9)") && Catch::Contains("x\xef\xbf\xbd"));
  // protobuf's own parser of profile.proto (proto3) checks UTF-8, as
  // Python's and Java's do: Go's pprof reads the bytes as they are.
  std::ifstream in(file, std::ios::binary);
  google::protobuf::io::IstreamInputStream raw(&in);
  google::protobuf::io::GzipInputStream unzipped(&raw);
  perftools::profiles::Profile parsed;
  CHECK(parsed.ParseFromZeroCopyStream(&unzipped));
}
