// Damaged perf.data: each kind of damage the reader must survive, with the
// message it gives, what it counts as skipped (and where), and the samples
// that survive. The damage is done to the bytes of a good file written here.

#include <catch2/catch.hpp>

#include <sys/resource.h>  // setrlimit
#include <sys/wait.h>      // waitpid
#include <unistd.h>        // fork, truncate

#include <algorithm>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

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
  CHECK(d.unread_bytes == sum.unread_bytes);
  CHECK(d.resyncs == sum.resyncs);
  CHECK(d.warnings == sum.warnings);
  return sum;
}

// The bytes of a file that `write` writes at the path it is given.
std::vector<std::byte> written(const std::function<void(const std::string& path)>& write) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-damage-" + std::to_string(::getpid()) + ".data")).string();
  write(path);
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// A good file: COMM, then samples with ip 0x1000, 0x1001, ...; `extra`
// adds records before the last sample.
std::vector<std::byte> good_file(const std::function<void(PerfDataWriter&)>& extra = {}) {
  return written([&](const std::string& path) {
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
  });
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

namespace {

// The good file with the size of its sample `n` made `size`, read both ways.
struct SizeDamage {
  std::vector<std::uint64_t> at;  // the samples' offsets, as written
  Collect read;
  ReadSummary sum;
  std::uint64_t data_size = 0;
};

SizeDamage with_size(std::size_t n, std::uint16_t size) {
  SizeDamage d;
  auto file = good_file();
  d.at = sample_offsets(file);
  poke<std::uint16_t>(file, d.at[n] + 6, size);
  PerfDataReader r(file, "damaged");
  d.sum = read_both(r, d.read);
  d.data_size = r.info().header.data.size;
  return d;
}

}  // namespace

TEST_CASE("a record whose size runs past the end of the data", "[perfdata]") {
  const SizeDamage d = with_size(9, 0xFFF0);
  CHECK(d.read.ips == ips_from(0x1000, 0x1008));
  CHECK(d.sum.skipped.count == 1);
  CHECK(d.sum.skipped.first_offset == d.at[9]);
  CHECK_THAT(d.sum.skipped.first_reason, Catch::Contains("65520 bytes runs past the end of the data"));
  CHECK(d.sum.truncated);
  CHECK(d.sum.unread_bytes == 32);
}

TEST_CASE("a record of size zero: reading goes on at the next record, and says what was lost", "[perfdata]") {
  const SizeDamage d = with_size(5, 0);
  // As old perf did, stepping 8 bytes at a time: the next sample is found.
  CHECK(d.read.ips == std::vector<std::uint64_t>{0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1006, 0x1007, 0x1008, 0x1009});
  CHECK(d.sum.skipped.count == 1);
  CHECK(d.sum.skipped.first_offset == d.at[5]);
  CHECK_THAT(d.sum.skipped.first_reason, Catch::Contains("size 0, less than its own header"));
  CHECK(d.sum.resyncs == 1);
  CHECK(d.sum.unread_bytes == 32);  // the damaged sample, header and body
  CHECK_FALSE(d.sum.truncated);
  REQUIRE(d.sum.warnings.size() == 2);
  CHECK(d.sum.warnings[0] == fmt::format("lost where records start 1 time (the first at offset {}), and went on at "
                                         "the next offset where two record headers in a row make sense",
                                         d.at[5]));
  CHECK(d.sum.warnings[1] ==
        fmt::format("32 of the {} bytes of the data section were not read as records", d.data_size));
}

TEST_CASE("a record of size zero with nothing that makes sense after it stops the walk", "[perfdata]") {
  const SizeDamage d = with_size(9, 0);
  CHECK(d.read.ips == ips_from(0x1000, 0x1008));
  CHECK(d.sum.resyncs == 0);
  CHECK(d.sum.unread_bytes == 32);
  REQUIRE(d.sum.warnings.size() == 2);
  CHECK_THAT(d.sum.warnings[0], Catch::Contains(fmt::format("stopped at offset {}: a record of size 0", d.at[9])) &&
                                    Catch::Contains("32 bytes of data after it were not read"));
}

TEST_CASE("a size past the end of the data, in the middle: the records after it are found", "[perfdata]") {
  const SizeDamage d = with_size(3, 0x4000);
  CHECK(d.read.ips == std::vector<std::uint64_t>{0x1000, 0x1001, 0x1002, 0x1004, 0x1005, 0x1006, 0x1007, 0x1008, 0x1009});
  CHECK(d.sum.skipped.first_offset == d.at[3]);
  CHECK_THAT(d.sum.skipped.first_reason, Catch::Contains("16384 bytes runs past the end of the data"));
  CHECK(d.sum.resyncs == 1);
  CHECK(d.sum.unread_bytes == 32);
  CHECK_FALSE(d.sum.truncated);
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

namespace {

// The good file's header, as written.
FileHeader header_of(const std::vector<std::byte>& file) {
  FileHeader h;
  std::memcpy(&h, file.data(), sizeof h);
  return h;
}

// A file of `events` events, each with two ids, and a sample of each.
std::vector<std::byte> two_id_file(std::size_t events) {
  return written([&](const std::string& path) {
    std::vector<WriterEvent> list;
    for (std::size_t e = 0; e < events; ++e) {
      perf_event_attr a{};
      a.type = 9;
      a.config = e;
      a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
      list.push_back({.attr = a, .ids = {10 * e + 1, 10 * e + 2}, .name = "e" + std::to_string(e)});
    }
    PerfDataWriter w(path, list);
    for (std::size_t e = 0; e < events; ++e) w.sample(e, {.ip = 0x100 + e});
    w.finish();
  });
}

// Where attr `event`'s id section sits in the file.
std::uint64_t ids_entry(const std::vector<std::byte>& file, std::size_t event) {
  const FileHeader h = header_of(file);
  return h.attrs.offset + (event + 1) * h.attr_size - sizeof(FileSection);
}

}  // namespace

TEST_CASE("id lists where perf never puts them are refused, and said so once", "[perfdata][hostile]") {
  const auto good = two_id_file(3);
  {
    PerfDataReader r(good, "good");
    CHECK(r.info().warnings.empty());
    CHECK(r.info().attrs[2].ids == std::vector<std::uint64_t>{21, 22});
  }
  SECTION("overlapping another's") {
    auto file = good;
    const auto first = header_of(file).size;  // perf writes the lists right after the header
    poke<std::uint64_t>(file, ids_entry(file, 1), first + 8);
    poke<std::uint64_t>(file, ids_entry(file, 2), first);
    PerfDataReader r(file, "overlap");
    CHECK(r.info().attrs[0].ids == std::vector<std::uint64_t>{1, 2});
    CHECK(r.info().attrs[1].ids.empty());
    CHECK(r.info().attrs[2].ids.empty());
    REQUIRE(r.info().warnings.size() == 1);
    CHECK(r.info().warnings[0] ==
          fmt::format("2 id lists lie where perf never puts one, refused (the first, event 1's at offset {}, 16 bytes, "
                      "overlaps the id list of another event): samples cannot name their events",
                      first + 8));
    // Their samples name no event: skipped, the first event's read.
    Collect c;
    const ReadSummary sum = read_both(r, c);
    CHECK(c.ips == std::vector<std::uint64_t>{0x100});
    CHECK(sum.skipped.count == 2);
  }
  SECTION("over the header, the attributes or the data") {
    const FileHeader h = header_of(good);
    for (const std::uint64_t offset : {std::uint64_t{0}, h.attrs.offset + 8, h.data.offset}) {
      auto file = good;
      poke<std::uint64_t>(file, ids_entry(file, 0), offset);
      PerfDataReader r(file, "misplaced");
      CHECK(r.info().attrs[0].ids.empty());
      REQUIRE(r.info().warnings.size() == 1);
      CHECK_THAT(r.info().warnings[0], Catch::StartsWith("1 id list lies where perf never puts one"));
    }
  }
}

namespace {

// A 1 MB file of attributes whose id lists all point at the same bytes:
// the whole file (`over_header`), or the 512 KiB between the header and
// the attributes, where perf puts id lists.
std::vector<std::byte> id_bomb(bool over_header) {
  constexpr std::uint64_t size = 1 << 20, ids_bytes = 512 << 10;
  std::vector<std::byte> file(size);
  FileHeader h;
  h.size = sizeof(FileHeader);
  h.attr_size = PERF_ATTR_SIZE_VER0 + sizeof(FileSection);
  h.attrs.offset = sizeof(FileHeader) + ids_bytes;
  h.attrs.size = (size - h.attrs.offset) / h.attr_size * h.attr_size;
  h.data = {size, 0};
  std::memcpy(file.data(), &h, sizeof h);
  for (std::uint64_t at = sizeof h; at + 8 <= h.attrs.offset; at += 8) poke<std::uint64_t>(file, at, at);
  for (std::uint64_t e = 0; e < h.attrs.size / h.attr_size; ++e) {
    const std::uint64_t entry = h.attrs.offset + e * h.attr_size;
    poke<std::uint32_t>(file, entry, PERF_TYPE_SOFTWARE);
    poke<std::uint32_t>(file, entry + 4, PERF_ATTR_SIZE_VER0);
    const FileSection ids = over_header ? FileSection{0, size} : FileSection{sizeof h, ids_bytes};
    poke(file, entry + PERF_ATTR_SIZE_VER0, ids);
  }
  return file;
}

// The process's address space now, in bytes (/proc/self/statm, in pages).
std::uint64_t address_space() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

// AddressSanitizer's allocator statistics (sanitizer/allocator_interface.h,
// which GCC does not install): weak, so null where the test is not linked
// with the sanitizer's runtime, as the same object is in every build.
extern "C" __attribute__((weak)) std::size_t __sanitizer_get_current_allocated_bytes();

TEST_CASE("a hostile 1 MB file takes no more than a fixed multiple of its size", "[perfdata][hostile]") {
  // Each attribute's ids pointed at the whole file: 1 GB and 8 s for this
  // 1 MB, bad_alloc for 7 MB. Allowed now: 16 times the file, and 64 MiB
  // for whatever the process maps meanwhile.
  for (const bool over_header : {true, false}) {
    INFO((over_header ? "lists over the whole file" : "lists over the same 512 KiB"));
    const auto file = id_bomb(over_header);
    const std::uint64_t allowed = 16 * file.size();
    if (__sanitizer_get_current_allocated_bytes != nullptr) {
      // AddressSanitizer reserves terabytes of address space for its shadow,
      // so no address-space limit can be set under it; its allocator counts
      // the bytes allocated instead.
      const std::size_t before = __sanitizer_get_current_allocated_bytes();
      PerfDataReader r(file, "bomb");
      CHECK(__sanitizer_get_current_allocated_bytes() - before < allowed);
      continue;
    }
    const std::string path =
        (std::filesystem::temp_directory_path() / ("tagop-bomb-" + std::to_string(::getpid()) + ".data")).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), file.size());
    const std::uint64_t limit = address_space() + (64 << 20) + allowed;
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      const rlimit bound{limit, limit};
      ::setrlimit(RLIMIT_AS, &bound);
      try {
        PerfDataReader r(path);
        Collect c;
        r.read(c);
        const auto& warnings = r.info().warnings;
        const bool said = std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("where perf never puts one") != std::string::npos;
        });
        ::_exit(said ? 0 : 2);
      } catch (const std::bad_alloc&) {
        ::_exit(3);
      } catch (...) {
        ::_exit(4);
      }
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    std::filesystem::remove(path);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // 3: out of memory under the limit
  }
}

namespace {

// A capture of `count` samples of 32 bytes, written at `path`.
void write_long_file(const std::string& path, int count) {
  perf_event_attr a{};
  a.type = 9;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  PerfDataWriter w(path, {{.attr = a, .ids = {}, .name = "ibs_op//"}}, {.cpuid = "AuthenticAMD,16,4,2"});
  for (int i = 0; i < count; ++i)
    w.sample(0, {.ip = 0x1000u + static_cast<unsigned>(i), .pid = 1, .tid = 1, .time = static_cast<std::uint64_t>(i)});
  w.finish();
}

// Cuts the file at `cut` when it meets the sample numbered `when`.
struct Truncating : RecordHandler {
  std::string path;
  std::size_t when = 0;
  std::uint64_t cut = 0;
  std::vector<std::uint64_t> ips;
  void sample(const SampleRecord& s) override {
    if (ips.size() == when) REQUIRE(::truncate(path.c_str(), static_cast<off_t>(cut)) == 0);
    ips.push_back(s.ip);
  }
};

}  // namespace

TEST_CASE("a file that shrinks while it is read: no SIGBUS, what was read is kept, and said", "[perfdata][hostile]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-shrink-" + std::to_string(::getpid()) + ".data")).string();
  struct Cut {
    std::size_t when;   // the sample whose handler cuts the file
    std::size_t where;  // the sample inside which it is cut, 12 bytes in
  };
  // Behind the reader, megabytes behind: its next page is gone, and reading
  // it raised SIGBUS. Ahead of it: the page cache may keep the page that
  // holds the new end whole (a large folio), and the reader meets zeros.
  for (const Cut cut : {Cut{100000, 1000}, Cut{1000, 2000}}) {
    INFO("cut at sample " << cut.when << " inside sample " << cut.where);
    write_long_file(path, 200000);  // 6.4 MB of samples, 32 bytes each
    PerfDataReader r(path);
    const std::uint64_t data = r.info().header.data.offset;
    Truncating t;
    t.path = path;
    t.when = cut.when;
    t.cut = data + cut.where * 32 + 12;
    const ReadSummary sum = r.read(t);
    // What was read before the cut is kept: up to the sample that cut the
    // file, or up to the one cut short (its header was still there).
    const std::size_t read = std::max(cut.when, cut.where) + 1;
    REQUIRE(t.ips.size() == read);
    CHECK(t.ips[read - 2] == 0x1000 + read - 2);
    CHECK(sum.shrunk_to == t.cut);
    CHECK(sum.unread_bytes == r.info().header.data.size - read * 32);
    CHECK(sum.skipped.count == 0);
    CHECK(sum.resyncs == 0);
    REQUIRE_FALSE(sum.warnings.empty());
    CHECK(sum.warnings[0] == fmt::format("the file shrank from {} to {} bytes while it was read: the records before "
                                         "offset {} were read, those after it are lost",
                                         r.info().file_size, t.cut, t.cut));
  }
  std::filesystem::remove(path);
}

TEST_CASE("a feature index that is not where the data size puts it: no feature is believed", "[perfdata][hostile]") {
  const auto good = good_file();
  for (const std::int64_t off : {8, -8, 16}) {
    INFO("data size off by " << off);
    auto file = good;
    const FileHeader h = header_of(file);
    poke<std::uint64_t>(file, offsetof(FileHeader, data) + 8, h.data.size + static_cast<std::uint64_t>(off));
    PerfDataReader r(file, "off.data");
    CHECK_FALSE(r.info().cpuid);
    CHECK(r.info().damaged_features == std::vector<unsigned>{feature_cpuid, feature_event_desc});
    REQUIRE(r.info().warnings.size() == 1);
    CHECK_THAT(r.info().warnings[0],
               Catch::StartsWith(fmt::format("off.data: the feature index at offset {} (the data section's offset {} "
                                             "plus its size {}) does not point at the features",
                                             h.data.offset + h.data.size + off, h.data.offset, h.data.size + off)) &&
                   Catch::Contains("the header's data size is likely wrong"));
  }
}

TEST_CASE("an index with room left by a feature perf failed to write is believed", "[perfdata]") {
  // perf sizes the index for every feature it means to write, then clears
  // the bit (and writes no entry) of one whose writer fails: the sections
  // start past unused entries. Clearing HEADER_EVENT_DESC's bit (the last
  // one set) leaves the file in that shape.
  auto file = good_file();
  const FileHeader h = header_of(file);
  poke<std::uint64_t>(file, offsetof(FileHeader, features) + 8 * (feature_event_desc / 64),
                      h.features[feature_event_desc / 64] & ~(std::uint64_t{1} << feature_event_desc % 64));
  PerfDataReader r(file, "room.data");
  CHECK(r.info().cpuid);
  CHECK(r.info().damaged_features.empty());
  CHECK(r.info().warnings.empty());
}

TEST_CASE("a malformed feature section is named, and listed as damaged", "[perfdata][hostile]") {
  auto file = good_file();
  const FileHeader h = header_of(file);
  // The index's first entry is HEADER_CPUID's (the lowest bit set): a
  // section of 2 bytes cannot hold its string's length.
  const std::uint64_t index = h.data.offset + h.data.size;
  FileSection cpuid;
  std::memcpy(&cpuid, file.data() + index, sizeof cpuid);
  poke<std::uint64_t>(file, index + 8, 2);
  PerfDataReader r(file, "bad-feature");
  CHECK_FALSE(r.info().cpuid);
  CHECK(r.info().damaged_features == std::vector<unsigned>{feature_cpuid});
  REQUIRE(r.info().warnings.size() == 1);
  CHECK(r.info().warnings[0] ==
        fmt::format("feature 9 (offset {}, 2 bytes) is malformed: read what was whole", cpuid.offset));
}
