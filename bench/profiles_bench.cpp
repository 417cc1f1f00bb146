// How long each export takes for a large profile: pprof, folded stacks,
// the HTML page and JSON lines, for 1 M samples over 100 k locations
// (stacks 4 to 12 deep through 20 modules, 64 processes). JSON lines are
// timed on 1 M IBS op samples decoded by tagop's decoder, and the decode
// itself is timed in the same run as the yardstick: the exporter should be
// within a small factor of the work a report does per sample.
//
//   build/bench/profiles-bench [SAMPLES [LOCATIONS]]

#include <sys/resource.h>  // getrusage
#include <time.h>          // clock_gettime

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/profiles/folded.hpp>
#include <tagop/profiles/html.hpp>
#include <tagop/profiles/pprof.hpp>
#include <tagop/profiles/sample_lines.hpp>

using namespace tagop;
using namespace tagop::profiles;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double peak_rss_mib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;
}

struct Random {
  std::uint64_t x;
  std::uint64_t operator()() { return (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 17; }
};

Profile make_profile(std::size_t samples, std::size_t locations) {
  Profile p({{"samples", "count"}, {"ibs_op", "count", 65536}, {"ibs_dc_miss", "count", 65536},
             {"dc_miss_latency", "cycles", 65536}});
  p.period_type = {"ops", "count"};
  p.period = 65536;
  std::vector<MappingId> modules;
  for (std::uint64_t m = 0; m < 20; ++m)
    modules.push_back(p.add_mapping({0x400000 + (m << 32), 0x400000 + (m << 32) + 0x10000000, 0,
                                     fmt::format("/usr/lib/x86_64-linux-gnu/libmodule{}.so", m),
                                     fmt::format("{:040x}", m * 0x1234567)}));
  std::vector<LocationId> ids;
  for (std::uint64_t i = 0; i < locations; ++i) {
    Location l{0x400000 + ((i % 20) << 32) + i * 16, modules[i % 20],
               {{fmt::format("namespace_{}::function_{}(int, char const*)", i % 97, i), "",
                 fmt::format("src/file_{}.cpp", i % 500), static_cast<std::int64_t>(i % 3000)}}};
    if (i % 10 == 0) l.frames.push_back({fmt::format("caller_of_{}", i), "", "src/inline.hpp", 12});
    ids.push_back(p.add_location(l));
  }
  Random random{7};
  std::vector<LocationId> stack;
  for (std::size_t s = 0; s < samples; ++s) {
    // Callers near the root are few and shared (main, a dispatcher, ...),
    // leaves are many: the shape of real call graphs.
    stack.clear();
    const std::size_t depth = 4 + random() % 9;
    for (std::size_t d = depth; d-- > 0;) {
      const std::size_t spread = d == 0 ? locations : std::min<std::size_t>(locations, 4u << (2 * (depth - d)));
      stack.push_back(ids[random() % spread]);
    }
    const bool miss = random() % 8 == 0;
    const std::int64_t values[] = {1, 1, miss, miss ? static_cast<std::int64_t>(30 + random() % 400) : 0};
    const auto pid = static_cast<std::uint32_t>(1000 + random() % 64);
    p.add_sample(values, stack, {.pid = pid, .tid = pid, .cpu = static_cast<std::uint32_t>(random() % 16), .comm = "worker"});
  }
  return p;
}

HtmlPage make_page(const Profile& p) {
  HtmlPage page;
  page.title = "profiles-bench";
  page.table.columns = {{"ops", "IBS ops", "ops", "", ColumnKind::count},
                        {"misses", "DC miss", "ops", "", ColumnKind::count},
                        {"rate", "DC miss rate", "", "", ColumnKind::ratio}};
  for (std::size_t i = 0; i < 10000; ++i) {
    const std::uint64_t n = 10000 - i, k = n / 8;
    page.table.rows.push_back({p.locations()[i].frames[0].function, "module",
                               {Interval{static_cast<double>(n) * 65536}, Interval{static_cast<double>(k) * 65536},
                                proportion_interval(k, n)}});
  }
  page.profile = &p;
  page.flame_sample_type = 2;
  return page;
}

/// IBS op registers of a program-like mix (loads, stores, misses, branches).
std::vector<amd_ibs::IbsRegisters> op_registers(std::size_t n) {
  using amd_ibs::IbsRegister;
  const std::uint64_t data3[] = {0, 0x20001, 0x9600020081, 0x20082};
  std::vector<amd_ibs::IbsRegisters> out(n);
  Random random{3};
  for (auto& r : out) {
    const std::uint64_t x = random();
    r.unit = amd_ibs::IbsUnit::op;
    r.set(IbsRegister::IbsOpCtl, 0x61000);
    r.set(IbsRegister::IbsOpRip, 0x400000 + (x & 0xFFFFF));
    r.set(IbsRegister::IbsOpData, 0x00140003 | ((x >> 20) & 0xFF));
    r.set(IbsRegister::IbsOpData2, (x >> 30) % 4);
    r.set(IbsRegister::IbsOpData3, data3[(x >> 33) % 4]);
    r.set(IbsRegister::IbsDcLinAd, x * 64);
  }
  return out;
}

double cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The CPU time of a step: on the shared 2-core VM, wall time mostly
// measures the other processes; both are printed.
double last_wall = 0;

template <typename F>
double timed(F&& f) {
  const auto t = Clock::now();
  const double cpu = cpu_seconds();
  f();
  last_wall = seconds_since(t);
  return cpu_seconds() - cpu;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const std::size_t locations = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100'000;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("profiles-bench-{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto size_mib = [&](const char* name) { return static_cast<double>(std::filesystem::file_size(dir / name)) / (1 << 20); };

  fmt::print("profiles-bench: {} samples, {} locations\n\n", samples, locations);
  fmt::print("{:<34} {:>9} {:>11} {:>10} {:>9}\n", "step", "CPU s", "M items/s", "MiB out", "wall s");
  Profile profile({{"samples", "count"}});
  const double build = timed([&] { profile = make_profile(samples, locations); });
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10} {:>9.3f}\n", "build the profile (add_sample)", build, samples / build / 1e6, "", last_wall);

  const double pprof = timed([&] { write_pprof(profile, (dir / "p.pb.gz").string()); });
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10.1f} {:>9.3f}\n", "pprof (gzipped profile.proto)", pprof, samples / pprof / 1e6,
             size_mib("p.pb.gz"), last_wall);
  const double folded = timed([&] {
    std::ofstream out(dir / "p.folded");
    write_folded(profile, out, {.sample_type = 2});
  });
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10.1f} {:>9.3f}\n", "folded stacks (ibs_dc_miss)", folded, samples / folded / 1e6,
             size_mib("p.folded"), last_wall);
  const HtmlPage page = make_page(profile);
  const double html = timed([&] { write_html(page, (dir / "p.html").string()); });
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10.1f} {:>9.3f}\n", "HTML page (10k rows, flame graph)", html, samples / html / 1e6,
             size_mib("p.html"), last_wall);

  // JSON lines of decoded IBS samples, and the decode as the yardstick.
  const auto registers = op_registers(samples);
  const amd_ibs::IbsDecoder decoder(0x19, 1);
  std::vector<Sample> decoded(samples);
  const double decode = timed([&] {
    for (std::size_t i = 0; i < samples; ++i) decoded[i] = decoder.decode(registers[i]);
  });
  const double jsonl = timed([&] {
    std::ofstream out(dir / "p.jsonl");
    SampleLineWriter writer(out, decoder.observable(amd_ibs::IbsUnit::op));
    for (std::size_t i = 0; i < samples; ++i) {
      decoded[i].pid = 1000 + static_cast<std::uint32_t>(i % 64);
      decoded[i].time = i * 1000;
      writer.write(decoded[i], {"namespace_12::function_34(int, char const*)", "/usr/lib/x86_64-linux-gnu/libmodule3.so"});
    }
    writer.flush();
  });
  const double jsonl_wall = last_wall;
  // The same lines into a stream that discards them: the writer's own
  // work, without the kernel's copy of the output into the page cache.
  struct Discard : std::streambuf {
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  } discard;
  const double formatting = timed([&] {
    std::ostream out(&discard);
    SampleLineWriter writer(out, decoder.observable(amd_ibs::IbsUnit::op));
    for (std::size_t i = 0; i < samples; ++i)
      writer.write(decoded[i], {"namespace_12::function_34(int, char const*)", "/usr/lib/x86_64-linux-gnu/libmodule3.so"});
    writer.flush();
  });
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10}\n", "IBS op decode (the yardstick)", decode, samples / decode / 1e6, "");
  fmt::print("{:<34} {:>9.3f} {:>11.2f} {:>10.1f} {:>9.3f}\n", "JSON lines (decoded samples)", jsonl, samples / jsonl / 1e6,
             size_mib("p.jsonl"), jsonl_wall);
  fmt::print("{:<34} {:>9.3f} {:>11.2f}\n", "JSON lines, formatting only", formatting, samples / formatting / 1e6);
  fmt::print("\nJSON lines take {:.1f}x the decode's CPU time ({:.1f}x with the file write); {:.0f} bytes a line; "
             "peak RSS {:.0f} MiB\n",
             formatting / decode, jsonl / decode,
             static_cast<double>(std::filesystem::file_size(dir / "p.jsonl")) / static_cast<double>(samples),
             peak_rss_mib());
  std::filesystem::remove_all(dir);
}
