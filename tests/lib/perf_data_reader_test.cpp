// perf.data reader and writer: the writer's files read back field by field,
// and every sample_type field the kernel defines parsed from a record built
// by hand here, in the order of include/uapi/linux/perf_event.h and
// perf's evsel__parse_sample().

#include <catch2/catch.hpp>

#include <algorithm>   // std::equal
#include <array>       // std::array
#include <cstring>     // std::memcpy
#include <filesystem>  // temp paths
#include <string>
#include <vector>

#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/sample_reads.hpp>

using namespace tagop::perf_data;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tagop-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

// A record body built field by field.
struct Body {
  std::vector<std::byte> bytes;
  template <typename T>
  Body& put(T v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
    return *this;
  }
};

struct Collect : RecordHandler {
  std::vector<SampleRecord> samples;
  std::vector<std::vector<std::byte>> raws;
  std::vector<MmapRecord> mmaps;
  std::vector<std::string> mmap_names;
  std::vector<CommRecord> comms;
  std::vector<std::string> comm_names;
  std::vector<TaskRecord> tasks;
  std::vector<LostRecord> losts;
  void sample(const SampleRecord& s) override {
    samples.push_back(s);
    raws.emplace_back(s.raw.begin(), s.raw.end());
  }
  void mmap(const MmapRecord& m) override {
    mmaps.push_back(m);
    mmap_names.emplace_back(m.filename);
  }
  void comm(const CommRecord& c) override {
    comms.push_back(c);
    comm_names.emplace_back(c.comm);
  }
  void task(const TaskRecord& t) override { tasks.push_back(t); }
  void lost(const LostRecord& l) override { losts.push_back(l); }
};

perf_event_attr attr_with(std::uint32_t type, std::uint64_t sample_type) {
  perf_event_attr a{};
  a.type = type;
  a.size = sizeof a;
  a.sample_type = sample_type;
  a.sample_period = 4096;
  a.sample_id_all = 1;
  return a;
}

}  // namespace

TEST_CASE("written files read back: header, attrs, features, records", "[perfdata]") {
  const std::string path = temp_path("roundtrip.data");
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                           PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  {
    PerfDataWriter w(path, {{.attr = attr_with(11, st), .ids = {71, 72}, .name = "first//"},
                            {.attr = attr_with(12, st), .ids = {81}, .name = "second/x=1/"}},
                     {.cpuid = "AuthenticAMD,25,1,1",
                      .pmu_mappings = {{11, "ibs_fetch"}, {12, "ibs_op"}, {4, "cpu"}},
                      .build_ids = {{.pid = -1, .cpumode = misc_user, .build_id = "00112233445566778899aabbccddeeff01020304",
                                     .filename = "/usr/bin/prog"}},
                      .hostname = "box"});
    w.comm(100, 101, "prog", true, {.pid = 100, .tid = 101, .cpu = 5, .time = 999});
    w.mmap2(100, 100, 0x400000, 0x2000, 0x1000, "/usr/bin/prog", "deadbeef");
    w.mmap2(100, 100, 0x7f0000000000, 0x10000, 0, "/lib/libc.so.6");
    w.fork(200, 100, 200, 100, 1234);
    const std::vector<std::byte> raw{std::byte{1}, std::byte{2}, std::byte{3}};  // padded to 4 by the writer
    w.sample(1, {.ip = 0x401020, .pid = 100, .tid = 101, .time = 5000, .cpu = 3, .period = 4096, .raw = raw});
    w.sample(0, {.ip = 0x401000, .pid = 200, .tid = 200, .time = 6000, .cpu = 1, .period = 8192});
    w.exit(200, 100, 200, 100, 7000);
    w.finish();
  }
  PerfDataReader r(path);
  const FileInfo& info = r.info();
  CHECK(info.header.magic == 0x32454c4946524550ull);  // "PERFILE2"
  CHECK(info.header.size == 104);
  REQUIRE(info.attrs.size() == 2);
  CHECK(info.attrs[0].attr.type == 11);
  CHECK(info.attrs[1].attr.type == 12);
  CHECK(info.attrs[0].ids == std::vector<std::uint64_t>{71, 72});
  CHECK(info.attrs[1].ids == std::vector<std::uint64_t>{81});
  CHECK(info.attrs[0].name == "first//");
  CHECK(info.attrs[1].name == "second/x=1/");
  CHECK(info.cpuid == std::optional<std::string>("AuthenticAMD,25,1,1"));
  CHECK(info.pmu_type("ibs_op") == std::optional<std::uint32_t>(12));
  CHECK(info.pmu_type("ibs_fetch") == std::optional<std::uint32_t>(11));
  CHECK_FALSE(info.pmu_type("ibs"));
  REQUIRE(info.build_ids.size() == 1);
  CHECK(info.build_ids[0].build_id == "00112233445566778899aabbccddeeff01020304");
  CHECK(info.build_ids[0].filename == "/usr/bin/prog");
  CHECK(info.hostname == "box");
  CHECK(info.warnings.empty());

  Collect c;
  const ReadSummary sum = r.read(c);
  CHECK(sum.records == 7);
  CHECK(sum.samples == 2);
  CHECK(sum.skipped.count == 0);
  CHECK_FALSE(sum.truncated);
  REQUIRE(c.comms.size() == 1);
  CHECK(c.comms[0].pid == 100);
  CHECK(c.comms[0].tid == 101);
  CHECK(c.comms[0].exec);
  CHECK(c.comm_names[0] == "prog");
  CHECK(c.comms[0].id.time == 999);  // from the sample_id_all trailer
  CHECK(c.comms[0].id.cpu == 5);
  CHECK(c.comms[0].id.id == 71);
  REQUIRE(c.mmaps.size() == 2);
  CHECK(c.mmaps[0].mmap2);
  CHECK(c.mmaps[0].start == 0x400000);
  CHECK(c.mmaps[0].len == 0x2000);
  CHECK(c.mmaps[0].pgoff == 0x1000);
  CHECK(c.mmap_names[0] == "/usr/bin/prog");
  CHECK(c.mmaps[0].build_id == "deadbeef");
  CHECK(c.mmaps[1].build_id.empty());
  CHECK(c.mmap_names[1] == "/lib/libc.so.6");
  REQUIRE(c.tasks.size() == 2);
  CHECK(c.tasks[0].fork);
  CHECK(c.tasks[0].pid == 200);
  CHECK(c.tasks[0].ppid == 100);
  CHECK(c.tasks[0].time == 1234);
  CHECK_FALSE(c.tasks[1].fork);
  REQUIRE(c.samples.size() == 2);
  const SampleRecord& s = c.samples[0];
  CHECK(s.attr == &info.attrs[1]);  // named by IDENTIFIER 81
  CHECK(s.id.id == 81);
  CHECK(s.ip == 0x401020);
  CHECK(s.id.pid == 100);
  CHECK(s.id.tid == 101);
  CHECK(s.id.time == 5000);
  CHECK(s.id.cpu == 3);
  CHECK(s.period == 4096);
  CHECK(s.misc == (misc_user | misc_exact_ip));
  CHECK(s.size == 8 + 6 * 8 + 4 + 4);  // header, six u64 fields, RAW's u32 size and 4 bytes
  // 3 bytes of raw data padded so that the u32 size and the data end on 8 bytes.
  CHECK(c.raws[0] == std::vector<std::byte>{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{0}});
  CHECK(c.samples[1].attr == &info.attrs[0]);
  CHECK(c.samples[1].period == 8192);
  CHECK(c.raws[1] == std::vector<std::byte>(4, std::byte{0}));  // u32 size + 4 padding bytes = 8
  std::filesystem::remove(path);
}

namespace {

// A sample naming its event by `id` (sample_type IDENTIFIER | IP).
void sample_with_id(PerfDataWriter& w, std::uint64_t id, std::uint64_t ip) {
  w.record(record_sample, misc_user, Body{}.put(id).put(ip).bytes);
}

}  // namespace

TEST_CASE("a capture is timed when every event samples TIME and gives other records their time", "[perfdata]") {
  // Each attr: (sample_type has TIME, sample_id_all). Timed only when all
  // events have both, as perf needs to sort records by time.
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
  struct Case {
    std::vector<std::pair<bool, bool>> events;
    bool timed;
  };
  for (const Case& c : {Case{{{true, true}}, true}, Case{{{true, true}, {true, true}}, true},
                        Case{{{true, false}}, false}, Case{{{false, true}}, false},
                        Case{{{true, true}, {true, false}}, false}, Case{{{true, true}, {false, true}}, false}}) {
    std::vector<WriterEvent> attrs;
    std::uint64_t id = 40;
    for (const auto& [time, id_all] : c.events) {
      perf_event_attr a = attr_with(11, st | (time ? PERF_SAMPLE_TIME : 0));
      a.sample_id_all = id_all;
      attrs.push_back({.attr = a, .ids = {id++}, .name = "e"});
    }
    const std::string path = temp_path("timed.data");
    PerfDataWriter(path, attrs).finish();
    INFO("events " << c.events.size() << ", first: time " << c.events[0].first << ", sample_id_all " << c.events[0].second);
    CHECK(PerfDataReader(path).info().timed() == c.timed);
    std::filesystem::remove(path);
  }
}

TEST_CASE("a sample finds its event by id: ids close together, ids far apart, ids of no event", "[perfdata]") {
  // Close together the reader looks ids up in a table from the lowest; far
  // apart (past 65536) in a hash map. Both must find the same events and
  // refuse the same unknown ids: inside the table's range, below it (id -
  // lowest wraps around) and past it.
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
  for (const std::uint64_t far : {std::uint64_t{0}, std::uint64_t{1} << 40}) {
    INFO("second id of the first event: 41 + " << far);
    const std::string path = temp_path("ids.data");
    {
      PerfDataWriter w(path, {{.attr = attr_with(11, st), .ids = {40, 41 + far}, .name = "a"},
                              {.attr = attr_with(12, st), .ids = {45}, .name = "b"}});
      sample_with_id(w, 41 + far, 0x1);
      sample_with_id(w, 45, 0x2);
      sample_with_id(w, 40, 0x3);
      sample_with_id(w, 44, 0x4);   // between the ids
      sample_with_id(w, 39, 0x5);   // below the lowest
      sample_with_id(w, 46 + far, 0x6);  // past the highest
      w.finish();
    }
    PerfDataReader r(path);
    Collect c;
    const ReadSummary sum = r.read(c);
    REQUIRE(c.samples.size() == 3);
    CHECK(c.samples[0].attr == &r.info().attrs[0]);
    CHECK(c.samples[0].ip == 0x1);
    CHECK(c.samples[1].attr == &r.info().attrs[1]);
    CHECK(c.samples[1].ip == 0x2);
    CHECK(c.samples[2].attr == &r.info().attrs[0]);
    CHECK(c.samples[2].ip == 0x3);
    CHECK(sum.skipped.count == 3);
    CHECK_THAT(sum.skipped.first_reason, Catch::Contains("its id is unknown"));
    std::filesystem::remove(path);
  }
}

TEST_CASE("fixed fields sit at offsets in the kernel's order; none where a field of its own size comes first", "[perfdata]") {
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                           PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  const perf_event_attr a = attr_with(11, st);
  CHECK(fixed_offset(a, PERF_SAMPLE_IDENTIFIER) == std::optional<std::uint16_t>(0));
  CHECK(fixed_offset(a, PERF_SAMPLE_IP) == std::optional<std::uint16_t>(8));
  CHECK(fixed_offset(a, PERF_SAMPLE_TID) == std::optional<std::uint16_t>(16));
  CHECK(fixed_offset(a, PERF_SAMPLE_TIME) == std::optional<std::uint16_t>(24));
  CHECK(fixed_offset(a, PERF_SAMPLE_CPU) == std::optional<std::uint16_t>(32));
  CHECK(fixed_offset(a, PERF_SAMPLE_PERIOD) == std::optional<std::uint16_t>(40));
  CHECK(fixed_offset(a, PERF_SAMPLE_RAW) == std::optional<std::uint16_t>(48));
  CHECK_FALSE(fixed_offset(a, PERF_SAMPLE_ADDR));  // not sampled
  // ID comes after TIME and ADDR: here after TIME.
  CHECK(fixed_offset(attr_with(11, PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_IP), PERF_SAMPLE_ID) ==
        std::optional<std::uint16_t>(16));
  // READ's size is its own: the layout is not fixed.
  CHECK_FALSE(fixed_offset(attr_with(11, st | PERF_SAMPLE_READ), PERF_SAMPLE_TID));
}

namespace {

// Takes the samples of one event in place, and collects the others whole.
struct TakeInPlace final : Collect {
  const PerfDataReader* reader = nullptr;
  std::uint32_t taken_event = 1;
  struct Taken {
    std::uint32_t event;
    std::uint64_t offset, ip;
    std::uint16_t size;
  };
  std::vector<Taken> taken;
  bool sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size) {
    if (event != taken_event) return false;
    const perf_event_attr& a = reader->info().attrs[event].attr;
    std::uint64_t ip = 0;
    std::memcpy(&ip, record + 8 + *fixed_offset(a, PERF_SAMPLE_IP), 8);
    taken.push_back({event, static_cast<std::uint64_t>(record - reader->bytes().data()), ip, size});
    return true;
  }
};
static_assert(TakesSamplesInPlace<TakeInPlace>);
static_assert(!TakesSamplesInPlace<Collect>);

}  // namespace

TEST_CASE("a final handler takes the samples it can in place; the reader parses the rest", "[perfdata]") {
  const std::string path = temp_path("in-place.data");
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
  {
    PerfDataWriter w(path, {{.attr = attr_with(11, st), .ids = {71}, .name = "a"},
                            {.attr = attr_with(12, st), .ids = {81}, .name = "b"}});
    w.sample(1, {.ip = 0x10, .pid = 1, .tid = 1});
    w.comm(1, 1, "x", false, {.pid = 1, .tid = 1});
    w.sample(0, {.ip = 0x20, .pid = 2, .tid = 2});
    w.sample(1, {.ip = 0x30, .pid = 3, .tid = 3, .raw = std::vector<std::byte>(12)});
    sample_with_id(w, 99, 0x40);  // no event: neither offered nor parsed
    w.finish();
  }
  PerfDataReader r(path);
  TakeInPlace h;
  h.reader = &r;
  const ReadSummary sum = r.read(h);  // final: the template loop, which offers samples in place
  const std::uint64_t data = r.info().header.data.offset;
  // Records: 8-byte header, IDENTIFIER, IP, TID, RAW's size and its data,
  // padded so that they end on 8 bytes (perf's layout).
  const std::uint64_t first = 8 + 3 * 8 + 8, third = 8 + 3 * 8 + 4 + 12;
  const std::uint64_t comm = 8 + 8 + 8 + 2 * 8;  // header, pid and tid, "x" padded to 8, the trailer (TID, IDENTIFIER)
  REQUIRE(h.taken.size() == 2);
  CHECK(h.taken[0].ip == 0x10);
  CHECK(h.taken[0].offset == data);
  CHECK(h.taken[0].size == first);
  CHECK(h.taken[1].ip == 0x30);
  CHECK(h.taken[1].offset == data + first + comm + first);
  CHECK(h.taken[1].size == third);
  REQUIRE(h.samples.size() == 1);  // event 0's, parsed
  CHECK(h.samples[0].ip == 0x20);
  CHECK(h.samples[0].offset == data + first + comm);
  CHECK(h.comm_names == std::vector<std::string>{"x"});
  CHECK(sum.samples == 3);
  CHECK(sum.by_type[record_sample] == 4);  // the skipped one is a sample record too
  CHECK(sum.records == 5);
  CHECK(sum.skipped.count == 1);

  // Through the base class the same file goes by the virtual calls, which
  // parse every sample.
  TakeInPlace all;
  all.reader = &r;
  const ReadSummary by_base = r.read(static_cast<RecordHandler&>(all));
  CHECK(all.taken.empty());
  CHECK(all.samples.size() == 3);
  CHECK(by_base.samples == 3);
  std::filesystem::remove(path);
}

TEST_CASE("a handler that wants only some sample fields gets those, the others 0", "[perfdata]") {
  const std::string path = temp_path("wanted.data");
  const std::uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                           PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  {
    PerfDataWriter w(path, {{.attr = attr_with(11, st), .ids = {7}, .name = "a"}});
    const std::vector<std::byte> raw{std::byte{9}, std::byte{8}, std::byte{7}, std::byte{6}};
    w.sample(0, {.ip = 0x401020, .pid = 100, .tid = 101, .time = 5000, .cpu = 3, .period = 4096, .raw = raw});
    w.finish();
  }
  struct Wanting : Collect {
    std::uint64_t sample_fields() const override { return PERF_SAMPLE_TID | PERF_SAMPLE_RAW; }
  } c;
  PerfDataReader r(path);
  const ReadSummary sum = r.read(c);
  REQUIRE(c.samples.size() == 1);
  const SampleRecord& s = c.samples[0];
  CHECK(s.id.pid == 100);
  CHECK(s.id.tid == 101);
  CHECK(c.raws[0] == std::vector<std::byte>{std::byte{9}, std::byte{8}, std::byte{7}, std::byte{6}});
  CHECK(s.ip == 0);
  CHECK(s.id.time == 0);
  CHECK(s.id.cpu == 0);
  CHECK(s.period == 0);
  CHECK(s.sample_type == st);
  CHECK(s.attr == &r.info().attrs[0]);
  CHECK(sum.skipped.count == 0);
  std::filesystem::remove(path);
}

TEST_CASE("every sample_type field parses in the kernel's order", "[perfdata]") {
  perf_event_attr a{};
  a.size = sizeof a;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                  PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
                  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP |
                  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
  a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_LOST;
  a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
  a.sample_regs_user = 0b1011;  // 3 registers
  a.sample_regs_intr = 0b0110;  // 2 registers

  Body b;
  b.put<std::uint64_t>(7);                                  // IDENTIFIER
  b.put<std::uint64_t>(0xffffffff81000000);                 // IP
  b.put<std::uint32_t>(10).put<std::uint32_t>(11);          // TID
  b.put<std::uint64_t>(123456789);                          // TIME
  b.put<std::uint64_t>(0xdead0000);                         // ADDR
  b.put<std::uint64_t>(7);                                  // ID
  b.put<std::uint64_t>(8);                                  // STREAM_ID
  b.put<std::uint32_t>(6).put<std::uint32_t>(0);            // CPU, res
  b.put<std::uint64_t>(1000);                               // PERIOD
  // READ, group: nr, time_enabled, {value, id, lost} x nr
  b.put<std::uint64_t>(2).put<std::uint64_t>(555);
  b.put<std::uint64_t>(1).put<std::uint64_t>(7).put<std::uint64_t>(0);
  b.put<std::uint64_t>(2).put<std::uint64_t>(9).put<std::uint64_t>(0);
  b.put<std::uint64_t>(2).put<std::uint64_t>(0x1111).put<std::uint64_t>(0x2222);  // CALLCHAIN
  b.put<std::uint32_t>(12);                                 // RAW size, then 12 bytes
  for (int i = 0; i < 12; ++i) b.put<std::uint8_t>(static_cast<std::uint8_t>(0xA0 + i));
  b.put<std::uint64_t>(1).put<std::uint64_t>(42);           // BRANCH_STACK nr, hw_idx
  b.put<std::uint64_t>(0x10).put<std::uint64_t>(0x20).put<std::uint64_t>(0);
  b.put<std::uint64_t>(2);                                  // REGS_USER abi 64
  b.put<std::uint64_t>(1).put<std::uint64_t>(2).put<std::uint64_t>(3);
  b.put<std::uint64_t>(16);                                 // STACK_USER size, data, dyn_size
  b.put<std::uint64_t>(0x5555).put<std::uint64_t>(0x6666).put<std::uint64_t>(9);
  b.put<std::uint64_t>(77);                                 // WEIGHT
  b.put<std::uint64_t>(0x68100142);                         // DATA_SRC
  b.put<std::uint64_t>(3);                                  // TRANSACTION
  b.put<std::uint64_t>(2).put<std::uint64_t>(4).put<std::uint64_t>(5);  // REGS_INTR
  b.put<std::uint64_t>(0x12345000);                         // PHYS_ADDR
  b.put<std::uint64_t>(99);                                 // CGROUP
  b.put<std::uint64_t>(4096);                               // DATA_PAGE_SIZE
  b.put<std::uint64_t>(2 << 20);                            // CODE_PAGE_SIZE
  b.put<std::uint64_t>(8).put<std::uint64_t>(0xABCD);       // AUX size, data

  SampleRecord s;
  REQUIRE(parse_sample(a, b.bytes, s) == "");
  CHECK(s.id.id == 7);
  CHECK(s.ip == 0xffffffff81000000);
  CHECK(s.id.pid == 10);
  CHECK(s.id.tid == 11);
  CHECK(s.id.time == 123456789);
  CHECK(s.addr == 0xdead0000);
  CHECK(s.id.stream_id == 8);
  CHECK(s.id.cpu == 6);
  CHECK(s.period == 1000);
  CHECK(s.read.size() == (2 + 3 * 2) * 8);
  CHECK(s.callchain_nr == 2);
  CHECK(s.callchain.size() == 16);
  REQUIRE(s.raw.size() == 12);
  CHECK(s.raw[0] == std::byte{0xA0});
  CHECK(s.raw[11] == std::byte{0xAB});
  CHECK(s.branch_nr == 1);
  CHECK(s.branch_hw_index == 42);
  CHECK(s.branches.size() == 24);
  CHECK(s.regs_user_abi == 2);
  CHECK(s.regs_user.size() == 3 * 8);
  CHECK(s.stack_user.size() == 16);
  CHECK(s.stack_user_dyn_size == 9);
  CHECK(s.weight == 77);
  CHECK(s.data_src == 0x68100142);
  CHECK(s.transaction == 3);
  CHECK(s.regs_intr_abi == 2);
  CHECK(s.regs_intr.size() == 2 * 8);
  CHECK(s.phys_addr == 0x12345000);
  CHECK(s.cgroup == 99);
  CHECK(s.data_page_size == 4096);
  CHECK(s.code_page_size == (2u << 20));
  CHECK(s.aux.size() == 8);

  SECTION("a body one byte short names the last field") {
    std::vector<std::byte> short_body(b.bytes.begin(), b.bytes.end() - 1);
    SampleRecord t;
    CHECK(parse_sample(a, short_body, t) == "AUX");
  }
  SECTION("a huge callchain count does not overflow") {
    std::vector<std::byte> bad = b.bytes;
    const std::uint64_t huge = ~std::uint64_t{0} / 4;
    std::memcpy(bad.data() + 8 * 9 + 8 * 8, &huge, 8);  // callchain nr after 9 fixed words and 8 of READ
    SampleRecord t;
    CHECK(parse_sample(a, bad, t) == "CALLCHAIN");
  }
}

TEST_CASE("samples of fixed-size fields read by offsets as field by field", "[perfdata]") {
  // Every combination of the fixed-size fields and RAW, in the kernel's
  // order, each field a value of its own; then every shorter body.
  const std::uint64_t bits[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,        PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
                                PERF_SAMPLE_ADDR,       PERF_SAMPLE_ID,        PERF_SAMPLE_STREAM_ID,
                                PERF_SAMPLE_CPU,        PERF_SAMPLE_PERIOD,    PERF_SAMPLE_RAW};
  for (unsigned combination = 0; combination < 1u << 10; ++combination) {
    perf_event_attr a{};
    Body b;
    for (unsigned i = 0; i < 10; ++i) {
      if (!(combination >> i & 1)) continue;
      a.sample_type |= bits[i];
      if (bits[i] == PERF_SAMPLE_RAW) {
        b.put<std::uint32_t>(5).put<std::uint32_t>(0xA1A2A3A4).put<std::uint8_t>(0xA5);
      } else {
        b.put<std::uint32_t>(0x100 + i).put<std::uint32_t>(0x200 + i);  // u64 fields, and TID's and CPU's pairs
      }
    }
    INFO("sample_type " << a.sample_type);
    const FixedSampleLayout layout = FixedSampleLayout::of(a);
    REQUIRE(layout.usable);
    SampleRecord slow, fast;
    REQUIRE(parse_sample(a, b.bytes, slow) == "");
    REQUIRE(parse_sample(layout, a, b.bytes, fast) == "");
    CHECK(fast.ip == slow.ip);
    CHECK(fast.id.id == slow.id.id);
    CHECK(fast.id.pid == slow.id.pid);
    CHECK(fast.id.tid == slow.id.tid);
    CHECK(fast.id.time == slow.id.time);
    CHECK(fast.addr == slow.addr);
    CHECK(fast.id.stream_id == slow.id.stream_id);
    CHECK(fast.id.cpu == slow.id.cpu);
    CHECK(fast.period == slow.period);
    CHECK(fast.sample_type == slow.sample_type);
    CHECK((fast.raw.data() == slow.raw.data() && fast.raw.size() == slow.raw.size()));
    if (a.sample_type & PERF_SAMPLE_IP) CHECK(fast.ip == (0x201ull << 32 | 0x101));
    // Wanting only TID and RAW: those the same, the rest left 0.
    SampleRecord some;
    REQUIRE(parse_sample(FixedSampleLayout::of(a, PERF_SAMPLE_TID | PERF_SAMPLE_RAW), a, b.bytes, some) == "");
    CHECK((some.id.pid == slow.id.pid && some.id.tid == slow.id.tid));
    CHECK((some.raw.data() == slow.raw.data() && some.raw.size() == slow.raw.size()));
    CHECK((some.ip | some.id.id | some.id.time | some.addr | some.id.stream_id | some.id.cpu | some.period) == 0);
    if (a.sample_type & PERF_SAMPLE_RAW) CHECK(fast.raw.size() == 5);
    for (std::size_t n = 0; n < b.bytes.size(); ++n) {
      const std::vector<std::byte> cut(b.bytes.begin(), b.bytes.begin() + static_cast<std::ptrdiff_t>(n));
      SampleRecord t, u;
      REQUIRE(parse_sample(layout, a, cut, t) == parse_sample(a, cut, u));
    }
  }
  perf_event_attr with_read{};
  with_read.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_RAW;
  CHECK_FALSE(FixedSampleLayout::of(with_read).usable);
  perf_event_attr with_regs{};
  with_regs.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_INTR;
  CHECK_FALSE(FixedSampleLayout::of(with_regs).usable);
}

TEST_CASE("samples without registers, single read values, empty user stack", "[perfdata]") {
  perf_event_attr a{};
  a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_BRANCH_STACK |
                  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
  a.sample_regs_user = 0xff;
  Body b;
  b.put<std::uint64_t>(5).put<std::uint64_t>(6).put<std::uint64_t>(7).put<std::uint64_t>(8);  // value, ena, run, id
  b.put<std::uint64_t>(0);  // BRANCH_STACK nr 0, no hw_idx without HW_INDEX
  b.put<std::uint64_t>(0);  // REGS_USER abi NONE: no registers
  b.put<std::uint64_t>(0);  // STACK_USER size 0: no dyn_size
  b.put<std::uint64_t>(0x0001000200000003);  // WEIGHT_STRUCT
  b.put<std::uint64_t>(0xfeed);              // PHYS_ADDR
  SampleRecord s;
  REQUIRE(parse_sample(a, b.bytes, s) == "");
  CHECK(s.read.size() == 32);
  CHECK(s.regs_user.empty());
  CHECK(s.stack_user.empty());
  CHECK(s.weight == 0x0001000200000003);
  CHECK(s.phys_addr == 0xfeed);
}

TEST_CASE("LOST, LOST_SAMPLES, perf's own records and AUXTRACE data", "[perfdata]") {
  const std::string path = temp_path("other.data");
  {
    perf_event_attr a = attr_with(4, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
    a.sample_id_all = 0;
    PerfDataWriter w(path, {{.attr = a, .ids = {}, .name = "cycles"}});
    w.record(record_lost, 0, Body{}.put<std::uint64_t>(1).put<std::uint64_t>(17).bytes);
    w.record(record_lost_samples, 0, Body{}.put<std::uint64_t>(5).bytes);
    w.record(record_finished_round, 0, {});
    w.record(record_header_attr, 0, Body{}.put<std::uint64_t>(0).bytes);
    // AUXTRACE: 16 bytes of trace data follow the 48-byte record, outside
    // its size. Here they are a record header and 8 bytes that the reader
    // must step over, not read as a record.
    Body aux;
    aux.put<std::uint64_t>(16).put<std::uint64_t>(0).put<std::uint64_t>(0).put<std::uint64_t>(0).put<std::uint64_t>(0);
    w.record(record_auxtrace, 0, aux.bytes);
    w.record(record_sample, 0, Body{}.put<std::uint64_t>(0xBAD).bytes);
    w.sample(0, {.ip = 0x1000, .pid = 1, .tid = 1});
    w.finish();
  }
  PerfDataReader r(path);
  Collect c;
  const ReadSummary sum = r.read(c);
  REQUIRE(c.losts.size() == 2);
  CHECK(c.losts[0].event_id == 1);
  CHECK(c.losts[0].lost == 17);
  CHECK(c.losts[1].lost_samples);
  CHECK(c.losts[1].lost == 5);
  CHECK(sum.lost == 22);
  CHECK(sum.by_type[record_finished_round] == 1);
  CHECK(sum.by_type[record_header_attr] == 1);
  CHECK(sum.skipped.count == 0);  // known types are skipped silently
  REQUIRE(c.samples.size() == 1);  // not the one inside the trace data
  CHECK(c.samples[0].ip == 0x1000);
  std::filesystem::remove(path);
}

TEST_CASE("the writer writes call chains in the kernel's place: after PERIOD, before RAW", "[perfdata]") {
  const std::string path = temp_path("chain.data");
  const std::vector<std::uint64_t> chain{static_cast<std::uint64_t>(PERF_CONTEXT_USER), 0x401000, 0x402000, 0x403000};
  const std::array<std::byte, 3> raw{std::byte{1}, std::byte{2}, std::byte{3}};
  {
    PerfDataWriter w(path, {{.attr = attr_with(4, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                                                      PERF_SAMPLE_RAW),
                             .ids = {},
                             .name = ""}});
    w.sample(0, {.ip = 0x401000, .period = 9, .callchain = chain, .raw = raw});
    w.finish();
  }
  PerfDataReader r(path);
  Collect c;
  r.read(c);
  REQUIRE(c.samples.size() == 1);
  CHECK(c.samples[0].period == 9);
  REQUIRE(c.samples[0].callchain_nr == chain.size());
  std::vector<std::uint64_t> read(chain.size());
  std::memcpy(read.data(), c.samples[0].callchain.data(), chain.size() * 8);
  CHECK(read == chain);
  REQUIRE(c.raws[0].size() >= raw.size());
  CHECK(std::equal(raw.begin(), raw.end(), c.raws[0].begin()));
  std::filesystem::remove(path);
}

TEST_CASE("the writer refuses sample fields it cannot encode", "[perfdata]") {
  const std::string path = temp_path("refuse.data");
  PerfDataWriter w(path, {{.attr = attr_with(4, PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK), .ids = {}, .name = ""}});
  CHECK_THROWS_WITH(w.sample(0, {}), Catch::Contains("use record()"));
  CHECK_THROWS_WITH(w.sample(3, {}), Catch::Contains("no event 3"));
  w.finish();
  std::filesystem::remove(path);
}

// perf's reading of samples that carry counter values (session.c,
// deliver_sample_value): each value is a sample of the value's own event,
// its period how far that counter moved since its last sample.
TEST_CASE("samples that read a group's counters: a share per counter that moved, as perf delivers them", "[perfdata]") {
  FileInfo info;
  info.attrs.resize(3);
  for (EventAttr& a : info.attrs) {
    a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ;
    a.attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  }
  info.attrs[0].ids = {10, 11};  // the leader on two CPUs
  info.attrs[1].ids = {20, 21};
  info.attrs[2].attr.sample_type = PERF_SAMPLE_IP;  // reads nothing
  info.attrs[2].ids = {30};
  SampleReads reads(info);
  CHECK(reads.reads(0));
  CHECK(reads.reads(1));
  CHECK_FALSE(reads.reads(2));
  CHECK_FALSE(reads.reads(7));  // no such event

  // nr, time_enabled, then {value, id} per member.
  auto group = [](std::vector<std::pair<std::uint64_t, std::uint64_t>> values) {
    Body b;
    b.put<std::uint64_t>(values.size()).put<std::uint64_t>(123456);
    for (auto [value, id] : values) b.put(value).put(id);
    return b.bytes;
  };
  SampleRecord r;
  r.attr = &info.attrs[0];
  using Shares = std::vector<std::pair<std::uint32_t, std::uint64_t>>;
  auto shares_of = [&](SampleReads& from, const std::vector<std::byte>& bytes) {
    r.read = bytes;
    Shares out;
    for (const ReadShare& x : from.shares(r)) out.emplace_back(x.event, x.period);
    return out;
  };
  auto shares = [&](const std::vector<std::byte>& bytes) { return shares_of(reads, bytes); };
  // First sample on CPU 0: every counter from 0.
  auto first = group({{100000, 10}, {3, 20}});
  CHECK(shares(first) == Shares{{0, 100000}, {1, 3}});
  // Next on CPU 0: the leader moved 100002, page faults none (dropped).
  auto second = group({{200002, 10}, {3, 20}});
  CHECK(shares(second) == Shares{{0, 100002}});
  // CPU 1's counters are their own.
  auto other_cpu = group({{99998, 11}, {5, 21}});
  CHECK(shares(other_cpu) == Shares{{0, 99998}, {1, 5}});
  // A value of an id no event has: no share, counted.
  auto unknown = group({{300000, 10}, {9, 99}});
  CHECK(shares(unknown) == Shares{{0, 99998}});
  CHECK(reads.unknown_values() == 1);

  // One counter (no GROUP): value, time_enabled, id.
  info.attrs[1].attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  SampleReads single(info);
  r.attr = &info.attrs[1];
  auto one = [](std::uint64_t value, std::uint64_t id) {
    Body b;
    b.put(value).put<std::uint64_t>(777).put(id);
    return b.bytes;
  };
  auto a = one(40, 21), b = one(40, 21), c = one(45, 20);
  CHECK(shares_of(single, a) == Shares{{1, 40}});
  CHECK(shares_of(single, b).empty());
  CHECK(shares_of(single, c) == Shares{{1, 45}});
}
