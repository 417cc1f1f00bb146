// Damaged perf.data: each kind of damage the reader must survive, with the
// message it gives, what it counts as skipped (and where), and the samples
// that survive. The damage is done to the bytes of a good file written here.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>

using namespace tagop::perf_data;

namespace {

constexpr int sample_count = 10;

struct Collect : RecordHandler {
  std::vector<std::uint64_t> ips, offsets;
  void sample(const SampleRecord& s) override {
    ips.push_back(s.ip);
    offsets.push_back(s.offset);
  }
};

// A final handler's read() calls its sample() directly, in a loop of its
// own type; any other's calls through RecordHandler. Each test reads both
// ways, and the two must agree on everything, damage included.
struct CollectDirect final : Collect {};

ReadSummary read_both(PerfDataReader& r, Collect& c) {
  CollectDirect direct;
  const ReadSummary d = r.read(direct);
  const ReadSummary sum = r.read(c);
  CHECK(direct.ips == c.ips);
  CHECK(direct.offsets == c.offsets);
  CHECK(d.records == sum.records);
  CHECK(d.samples == sum.samples);
  CHECK(d.by_type == sum.by_type);
  CHECK(d.skipped.count == sum.skipped.count);
  CHECK(d.skipped.first_offset == sum.skipped.first_offset);
  CHECK(d.skipped.first_reason == sum.skipped.first_reason);
  CHECK(d.truncated == sum.truncated);
  CHECK(d.data_bytes == sum.data_bytes);
  CHECK(d.warnings == sum.warnings);
  return sum;
}

// A good file: COMM, then samples with ip 0x1000, 0x1001, ...; `extra`
// adds records before the last sample.
std::vector<std::byte> good_file(const std::function<void(PerfDataWriter&)>& extra = {}) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-damage-" + std::to_string(::getpid()) + ".data")).string();
  {
    perf_event_attr a{};
    a.type = 9;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    PerfDataWriter w(path, {{.attr = a, .ids = {}, .name = "ibs_op//"}}, {.cpuid = "AuthenticAMD,16,4,2"});
    w.comm(1, 1, "prog");
    for (int i = 0; i < sample_count; ++i) {
      if (extra && i == sample_count - 1) extra(w);
      w.sample(0, {.ip = 0x1000u + i, .pid = 1, .tid = 1, .time = static_cast<std::uint64_t>(i)});
    }
    w.finish();
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::vector<std::uint64_t> sample_offsets(const std::vector<std::byte>& file) {
  PerfDataReader r(file, "good");
  Collect c;
  r.read(c);
  REQUIRE(c.offsets.size() == sample_count);
  return c.offsets;
}

template <typename T>
void poke(std::vector<std::byte>& file, std::uint64_t offset, T value) {
  std::memcpy(file.data() + offset, &value, sizeof value);
}

std::vector<std::uint64_t> ips_from(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t ip = first; ip <= last; ++ip) out.push_back(ip);
  return out;
}

}  // namespace

TEST_CASE("a good file reads whole", "[perfdata]") {
  const auto file = good_file();
  PerfDataReader r(file, "good");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == ips_from(0x1000, 0x1009));
  CHECK(sum.samples == 10);
  CHECK(sum.by_type[record_sample] == 10);
  CHECK(sum.by_type[record_comm] == 1);
  CHECK(sum.skipped.count == 0);
  CHECK(sum.warnings.empty());
  CHECK_FALSE(sum.truncated);
}

TEST_CASE("a truncated file: the whole records before the cut survive", "[perfdata]") {
  auto file = good_file();
  const auto at = sample_offsets(file);
  file.resize(at[4] + 12);  // inside the fifth sample (32 bytes each)
  // Through a real file, so that the mapping path is the one tested.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-trunc-" + std::to_string(::getpid()) + ".data")).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), file.size());
  PerfDataReader r(path);
  CHECK_FALSE(r.info().cpuid);  // the features were at the end
  REQUIRE(r.info().warnings.size() == 1);
  CHECK_THAT(r.info().warnings[0], Catch::Contains("feature sections are missing") && Catch::Contains("truncated"));
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == ips_from(0x1000, 0x1003));
  CHECK(sum.truncated);
  CHECK(sum.skipped.count == 1);
  CHECK(sum.skipped.first_offset == at[4]);
  CHECK_THAT(sum.skipped.first_reason, Catch::Contains("runs past the end"));
  REQUIRE_FALSE(sum.warnings.empty());
  CHECK_THAT(sum.warnings[0], Catch::Contains("the file is truncated"));
  std::filesystem::remove(path);
}

TEST_CASE("a record whose size runs past the end of the data", "[perfdata]") {
  auto file = good_file();
  const auto at = sample_offsets(file);
  poke<std::uint16_t>(file, at[9] + 6, 0xFFF0);
  PerfDataReader r(file, "past");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == ips_from(0x1000, 0x1008));
  CHECK(sum.skipped.count == 1);
  CHECK(sum.skipped.first_offset == at[9]);
  CHECK_THAT(sum.skipped.first_reason, Catch::Contains("65520 bytes runs past the end of the data"));
}

TEST_CASE("a record of size zero stops the walk, with what was lost", "[perfdata]") {
  auto file = good_file();
  const auto at = sample_offsets(file);
  poke<std::uint16_t>(file, at[5] + 6, 0);
  PerfDataReader r(file, "zero");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == ips_from(0x1000, 0x1004));
  CHECK(sum.skipped.count == 1);
  CHECK(sum.skipped.first_offset == at[5]);
  CHECK_THAT(sum.skipped.first_reason, Catch::Contains("size 0, less than its own header"));
  REQUIRE(sum.warnings.size() == 1);
  // Five samples of 32 bytes, the last one included, were not read.
  CHECK_THAT(sum.warnings[0], Catch::Contains("160 bytes of data after it were not read"));
}

TEST_CASE("an unknown record type is skipped by its size", "[perfdata]") {
  auto file = good_file();
  const auto at = sample_offsets(file);
  poke<std::uint32_t>(file, at[3], 200);
  poke<std::uint32_t>(file, at[6], 30);  // past the kernel's last type, below perf's 64
  PerfDataReader r(file, "unknown");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == std::vector<std::uint64_t>{0x1000, 0x1001, 0x1002, 0x1004, 0x1005, 0x1007, 0x1008, 0x1009});
  CHECK(sum.skipped.count == 2);
  CHECK(sum.skipped.first_offset == at[3]);
  CHECK_THAT(sum.skipped.first_reason, Catch::Contains("unknown record type 200 (32 bytes)"));
}

TEST_CASE("a sample shorter than its fields", "[perfdata]") {
  const std::vector<std::byte> ip_only(8, std::byte{0x11});
  auto file = good_file([&](PerfDataWriter& w) { w.record(record_sample, 0, ip_only); });
  PerfDataReader r(file, "short");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips == ips_from(0x1000, 0x1009));
  CHECK(sum.samples == 10);
  CHECK(sum.skipped.count == 1);
  CHECK_THAT(sum.skipped.first_reason, Catch::Contains("sample field TID runs past the end of its 16-byte record"));
}

TEST_CASE("compressed records are skipped with what to do", "[perfdata]") {
  const std::vector<std::byte> blob(24, std::byte{0x28});
  auto file = good_file([&](PerfDataWriter& w) { w.record(record_compressed, 0, blob); });
  PerfDataReader r(file, "zstd");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips.size() == 10);
  CHECK(sum.skipped.count == 1);
  REQUIRE(sum.warnings.size() == 1);
  CHECK_THAT(sum.warnings[0], Catch::Contains("decompress with 'perf inject -i IN -o OUT'"));
}

TEST_CASE("an unfinished recording (data size 0, no features) reads to the end", "[perfdata]") {
  auto file = good_file();
  const auto at = sample_offsets(file);
  file.resize(at[9] + 32);                                   // drop the features
  poke<std::uint64_t>(file, offsetof(FileHeader, data) + 8, 0);  // data.size
  for (int i = 0; i < 4; ++i) poke<std::uint64_t>(file, offsetof(FileHeader, features) + 8 * i, 0);
  PerfDataReader r(file, "unfinished");
  Collect c;
  const ReadSummary sum = read_both(r, c);
  CHECK(c.ips.size() == 10);
  REQUIRE(sum.warnings.size() == 1);
  CHECK_THAT(sum.warnings[0], Catch::Contains("perf record did not finish"));
}

TEST_CASE("files that cannot be read at all are refused with the reason", "[perfdata]") {
  const auto good = good_file();
  SECTION("big-endian") {
    auto file = good;
    std::reverse(file.begin(), file.begin() + 8);
    CHECK_THROWS_WITH(PerfDataReader(file, "be"), Catch::Contains("big-endian") && Catch::Contains("byte-swapped"));
  }
  SECTION("piped") {
    auto file = good;
    poke<std::uint64_t>(file, 8, 16);
    CHECK_THROWS_WITH(PerfDataReader(file, "pipe"),
                      Catch::Contains("piped perf.data is not supported: record to a file, or 'perf inject -i - -o FILE'"));
  }
  SECTION("compressed (HEADER_COMPRESSED)") {
    auto file = good;
    std::uint64_t features = 0;
    std::memcpy(&features, file.data() + offsetof(FileHeader, features), 8);
    poke<std::uint64_t>(file, offsetof(FileHeader, features), features | std::uint64_t{1} << 27);
    CHECK_THROWS_WITH(PerfDataReader(file, "z"), Catch::Contains("decompress with 'perf inject -i IN -o OUT'"));
  }
  SECTION("not perf.data") {
    std::vector<std::byte> file(200, std::byte{'x'});
    CHECK_THROWS_WITH(PerfDataReader(file, "x"), Catch::Contains("not a perf.data file"));
    file.resize(7);
    CHECK_THROWS_WITH(PerfDataReader(file, "x"), Catch::Contains("too short"));
  }
  SECTION("perf.data version 1") {
    auto file = good;
    std::memcpy(file.data(), "PERFFILE", 8);
    CHECK_THROWS_WITH(PerfDataReader(file, "v1"), Catch::Contains("version 1"));
  }
  SECTION("attributes outside the file") {
    auto file = good;
    poke<std::uint64_t>(file, offsetof(FileHeader, attrs), 1 << 30);
    CHECK_THROWS_WITH(PerfDataReader(file, "attrs"), Catch::Contains("attribute section") && Catch::Contains("truncated"));
  }
  SECTION("a missing file") {
    CHECK_THROWS_WITH(PerfDataReader("/nonexistent/perf.data"), Catch::Contains("cannot open"));
  }
}
