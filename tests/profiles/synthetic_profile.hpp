#pragma once
// A profile shaped like a real IBS op capture of a small multi-process
// program, and what its numbers must be, kept by the generator itself
// (plain integer tallies of what it generated), not read back from the
// Profile: the exporters' output is checked against these.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <tagop/profiles/profile.hpp>

namespace synthetic {

using namespace tagop::profiles;

inline constexpr std::int64_t op_period = 65536;  // IbsOpMaxCnt 4096 x 16

/// The sample types, in order: what a `tagop report --format pprof` of
/// dc_miss and its latency would hold.
enum Type : std::size_t { samples, ops, dc_miss, dc_miss_latency, type_count };

inline std::vector<SampleType> sample_types() {
  return {{"samples", "count", 1},
          {"ibs_op", "count", op_period},
          {"ibs_dc_miss", "count", op_period},
          {"dc_miss_latency", "cycles", op_period}};
}

/// One function of the modelled program: where it is, and who calls it.
struct Function {
  std::string name, mangled, file;
  std::int64_t line;
  std::uint64_t address;      // of the sampled instruction
  int mapping;                // index into the mappings below
  std::string inlined_into;   // "" or the function this one is inlined into (same location)
  std::vector<std::string> callers;  // root first, not counting itself
};

struct Expected {
  // Exported totals (value x period) by sample type: flat by leaf function
  // (the innermost frame), cum by every function on the stack.
  std::map<std::string, std::int64_t> flat[type_count], cum[type_count];
  std::int64_t total[type_count] = {};
  std::map<std::string, std::int64_t> samples_by_comm;
  std::map<std::uint32_t, std::int64_t> samples_by_pid;
  std::map<std::string, std::int64_t> folded[type_count];  // "root;...;leaf" -> total
};

struct Machine {
  Profile profile{sample_types()};
  Expected expected;
};

inline const std::vector<Mapping>& mappings() {
  static const std::vector<Mapping> m = {
      {0x555555554000, 0x555555600000, 0, "/usr/bin/prog", "3f9a1c0e5b7d2a4c6e8f0a1b2c3d4e5f60718293"},
      {0x7ffff7dd0000, 0x7ffff7f80000, 0x26000, "/usr/lib/x86_64-linux-gnu/libc.so.6",
       "0123456789abcdef0123456789abcdef01234567"},
      {0xffffffff81000000, 0xffffffff83000000, 0, "[kernel.kallsyms]", ""},
  };
  return m;
}

inline const std::vector<Function>& functions() {
  static const std::vector<Function> f = {
      {"main", "main", "prog.cpp", 12, 0x555555555100, 0, "", {}},
      {"parse_records(std::string_view)", "_Z13parse_recordsSt17basic_string_viewIcSt11char_traitsIcEE",
       "parse.cpp", 40, 0x555555556200, 0, "", {"main"}},
      {"hash_join", "_Z9hash_joinv", "join.cpp", 88, 0x555555557300, 0, "", {"main"}},
      // Inlined into hash_join: one location, two frames.
      {"bucket_of", "_Z9bucket_ofm", "join.hpp", 17, 0x555555557340, 0, "hash_join", {"main"}},
      {"__memmove_avx_unaligned_erms", "", "", 0, 0x7ffff7e5a100, 1, "", {"main", "parse_records(std::string_view)"}},
      {"clear_page_erms", "", "", 0, 0xffffffff81a2b3c0, 2, "", {"main", "hash_join"}},
  };
  return f;
}

/// Adds the location of one function (with the frame it is inlined into).
inline LocationId location_of(Profile& p, const Function& f) {
  Location l{f.address, p.add_mapping(mappings()[static_cast<std::size_t>(f.mapping)]), {}};
  l.frames.push_back({f.name, f.mangled, f.file, f.line});
  if (!f.inlined_into.empty())
    for (const Function& outer : functions())
      if (outer.name == f.inlined_into) l.frames.push_back({outer.name, outer.mangled, outer.file, outer.line + 3});
  return p.add_location(l);
}

inline const Function& function_named(const std::string& name) {
  for (const Function& f : functions())
    if (f.name == name) return f;
  throw std::runtime_error("no function " + name);
}

/// `count` single samples, from a fixed seed: which function, which
/// process, whether the op missed the DC and with what latency.
inline Machine make_machine(std::uint64_t seed, std::size_t count) {
  Machine m;
  m.profile.period_type = {"ops", "count"};
  m.profile.period = op_period;
  m.profile.comments = {"emulated (model: zen3)", "tagop test machine " + std::to_string(seed)};
  m.profile.time = {1700000000000000000 + static_cast<std::int64_t>(seed), 1700000002500000000};
  struct Process {
    std::uint32_t pid;
    const char* comm;
  };
  const Process processes[] = {{4242, "prog"}, {4243, "prog"}, {5001, "db;server"}};
  std::uint64_t x = seed * 2862933555777941757ULL + 3037000493ULL;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const Function& f = functions()[next() % functions().size()];
    const Process& proc = processes[next() % 3];
    const bool miss = next() % 4 == 0;
    const std::int64_t latency = miss ? static_cast<std::int64_t>(20 + next() % 300) : 0;

    // The stack, leaf first: the leaf's location (with its inlined frame),
    // then the callers' locations, innermost caller first.
    std::vector<LocationId> stack{location_of(m.profile, f)};
    for (auto c = f.callers.rbegin(); c != f.callers.rend(); ++c) {
      if (*c == f.inlined_into) continue;  // already a frame of the leaf's location
      stack.push_back(location_of(m.profile, function_named(*c)));
    }
    const std::int64_t values[] = {1, 1, miss ? 1 : 0, latency};
    const std::uint32_t cpu = static_cast<std::uint32_t>(next() % 8);
    m.profile.add_sample(values, stack, {.pid = proc.pid, .tid = proc.pid, .cpu = cpu, .comm = proc.comm});

    // The expectations, by plain arithmetic on what was generated.
    const std::int64_t exported[] = {1, op_period, miss ? op_period : 0, latency * op_period};
    std::vector<std::string> names = f.callers;  // root first
    if (!f.inlined_into.empty() && (names.empty() || names.back() != f.inlined_into)) names.push_back(f.inlined_into);
    names.push_back(f.name);
    std::string folded;
    for (const std::string& n : names) folded += (folded.empty() ? "" : ";") + n;
    for (std::size_t t = 0; t < type_count; ++t) {
      m.expected.total[t] += exported[t];
      m.expected.flat[t][f.name] += exported[t];
      for (const std::string& n : names) m.expected.cum[t][n] += exported[t];
      if (exported[t] != 0) m.expected.folded[t][folded] += exported[t];
    }
    m.expected.samples_by_comm[proc.comm] += 1;
    m.expected.samples_by_pid[proc.pid] += 1;
  }
  return m;
}

}  // namespace synthetic
