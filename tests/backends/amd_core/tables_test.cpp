// The Zen core event table: well-formed rows, the generations' PMU facts,
// host detection by family and model, lookups by every spelling, and the
// registry's view (count-only, never precise, the unit of each row).

#include <set>     // std::set
#include <string>  // std::string

#include <catch2/catch.hpp>

#include <tagop/amd_core/events.hpp>  // the table
#include <tagop/error.hpp>            // Error
#include <tagop/predicate.hpp>        // Predicate
#include <tagop/registry.hpp>         // Registry

using namespace tagop;
using namespace tagop::amd_core;

namespace {

constexpr Generation generations[] = {Generation::zen1, Generation::zen2, Generation::zen3, Generation::zen4};

// The backend whose tables_for names this processor, among the Zen ones; "" when none.
std::string zen_backend_for(const CpuId& cpu) {
  std::string found;
  for (const BackendInfo& b : Registry::builtin().backends())
    if (parse_generation(b.name) && b.tables_for && !b.tables_for(cpu).empty()) {
      CHECK(found.empty());  // one Zen table per processor
      found = b.name;
    }
  return found;
}

}  // namespace

TEST_CASE("Zen rows are well formed", "[zen]") {
  for (const ZenEventSpec& e : all_events()) {
    INFO(e.name);
    CHECK(e.event <= 0xFFF);
    CHECK(e.generations != 0);
    CHECK((e.generations & ~0xF) == 0);
    CHECK(!e.description.empty());
    if (!e.predicate.empty()) {
      CHECK_NOTHROW(Predicate::parse(e.predicate));
      // Only retired-op rows have a predicate, and their names say so.
      CHECK(e.name.starts_with("ex_ret_"));
      CHECK(e.unit != CountingUnit::cycles);
    }
  }
  // On each generation, a name and an event:umask name one row.
  for (Generation g : generations) {
    std::set<std::string> names;
    std::set<std::pair<unsigned, unsigned>> codes;
    for (const ZenEventSpec& e : all_events()) {
      if ((e.generations & generation_bit(g)) == 0) continue;
      INFO(e.name);
      CHECK(names.insert(std::string(e.name)).second);
      CHECK(codes.insert({e.event, e.umask}).second);
    }
  }
}

TEST_CASE("Zen PMU facts", "[zen]") {
  for (Generation g : generations) {
    const ZenPmuSpec& spec = pmu_spec(g);
    CHECK(spec.generation == g);
    CHECK(spec.counters == 6);
    CHECK(spec.counter_width == 48);
    CHECK(spec.fixed_counters == 0);
    // PerfMonV2 (CPUID 8000_0022h) came with Zen 4.
    CHECK(spec.perfmon_v2 == (g == Generation::zen4));
  }
  CHECK(pmu_spec(Generation::zen1).family == 0x17);
  CHECK(pmu_spec(Generation::zen2).family == 0x17);
  CHECK(pmu_spec(Generation::zen3).family == 0x19);
  CHECK(pmu_spec(Generation::zen4).family == 0x19);
  CHECK(parse_generation("ZEN3") == Generation::zen3);
  CHECK(parse_generation("zen+") == Generation::zen1);
  CHECK(parse_generation("amd64_fam19h_zen4") == Generation::zen4);
  CHECK(!parse_generation("zen5"));
}

TEST_CASE("Zen host detection names the generation by family and model", "[zen]") {
  // Processors by their published CPUID family and model (AMD's product
  // data; the same values /proc/cpuinfo prints in decimal).
  struct Known {
    unsigned family, model;
    const char* processor;
    const char* backend;
  };
  const Known known[] = {
      {0x17, 0x01, "EPYC 7001 Naples (Zen)", "zen1"},
      {0x17, 0x08, "Ryzen 2000 Pinnacle Ridge (Zen+)", "zen1"},
      {0x17, 0x18, "Ryzen 3000G Picasso (Zen+)", "zen1"},
      {0x17, 0x31, "EPYC 7002 Rome (Zen 2)", "zen2"},
      {0x17, 0x60, "Ryzen 4000 Renoir (Zen 2)", "zen2"},
      {0x17, 0x71, "Ryzen 3000 Matisse (Zen 2)", "zen2"},
      {0x17, 0x90, "Steam Deck Van Gogh (Zen 2)", "zen2"},
      {0x19, 0x01, "EPYC 7003 Milan (Zen 3)", "zen3"},
      {0x19, 0x21, "Ryzen 5000 Vermeer (Zen 3)", "zen3"},
      {0x19, 0x50, "Ryzen 5000G Cezanne (Zen 3)", "zen3"},
      {0x19, 0x11, "EPYC 9004 Genoa (Zen 4)", "zen4"},
      {0x19, 0x61, "Ryzen 7000 Raphael (Zen 4)", "zen4"},
      {0x19, 0x74, "Ryzen 7040 Phoenix (Zen 4)", "zen4"},
      {0x19, 0xA0, "EPYC 9704 Bergamo (Zen 4c)", "zen4"},
  };
  for (const Known& k : known) {
    INFO(k.processor);
    CHECK(zen_backend_for({"AuthenticAMD", k.family, k.model, 0}) == k.backend);
  }
  // No table: Zen 5 (Family 1Ah), a model no Zen has (17h 80h), Family 10h,
  // and an Intel part with AMD's numbers.
  CHECK(zen_backend_for({"AuthenticAMD", 0x1A, 0x02, 0}).empty());
  CHECK(zen_backend_for({"AuthenticAMD", 0x17, 0x80, 0}).empty());
  CHECK(zen_backend_for({"AuthenticAMD", 0x10, 0x04, 0}).empty());
  CHECK(zen_backend_for({"GenuineIntel", 0x19, 0x61, 0}).empty());
}

TEST_CASE("Zen lookups by name and code", "[zen]") {
  const ZenEventSpec* misp = find_event(Generation::zen3, "EX_RET_BRN_MISP");
  REQUIRE(misp);
  CHECK(misp->event == 0x0C3);
  CHECK(find_event(Generation::zen3, "0xC3") == misp);
  CHECK(find_event(Generation::zen3, "0x0C3") == misp);
  CHECK(find_event(Generation::zen3, "c3") == misp);
  // perf's raw config: user, OS, Int and En bits say how, not what.
  CHECK(find_event(Generation::zen3, "r5300c3") == misp);
  // A 12-bit select: bits 11:8 in config bits 35:32.
  const ZenEventSpec* oc = find_event(Generation::zen3, "r20000048f");
  REQUIRE(oc);
  CHECK(oc->name == "op_cache_hit_miss.op_cache_miss");
  CHECK(find_event(Generation::zen3, "0x28F:0x04") == oc);
  // Names by generation: ex_ret_cops is Zen 1 and 2's name of 0xC1.
  CHECK(find_event(Generation::zen1, "ex_ret_cops"));
  CHECK(!find_event(Generation::zen3, "ex_ret_cops"));
  CHECK(find_event(Generation::zen3, "0xC1")->name == "ex_ret_ops");
  // Zen 4 only.
  CHECK(!find_event(Generation::zen3, "ex_ret_ucode_ops"));
  CHECK(find_event(Generation::zen4, "ex_ret_ucode_ops"));
  CHECK(!find_event(Generation::zen3, "no_such_event"));
  CHECK(!find_event(Generation::zen3, "0xFFFF:0x1"));
  CHECK_THROWS_AS(require_event(Generation::zen1, "ex_ret_ops"), Error);
  CHECK(code_string(*misp) == "0x0C3");
  CHECK(code_string(*oc) == "0x28F:0x04");
}

TEST_CASE("Zen rows in the registry", "[zen]") {
  const Registry& r = Registry::builtin();
  for (const char* name : {"zen1", "zen2", "zen3", "zen4"}) {
    const BackendInfo* b = r.find(name);
    REQUIRE(b);
    CHECK(b->mechanism == Mechanism::count_only);
    for (const EventEntry& e : b->events()) {
      INFO(e.name);
      CHECK(!e.precise);
      CHECK(e.mechanism == Mechanism::count_only);
    }
  }
  // Any spelling finds the row on each generation that has it.
  const auto by_raw = r.lookup("r5300c3");
  std::set<std::string> zen_backends;
  for (const EventEntry* e : by_raw)
    if (parse_generation(e->backend)) zen_backends.insert(std::string(e->backend));
  CHECK(zen_backends == std::set<std::string>{"zen1", "zen2", "zen3", "zen4"});
  const EventEntry* oc = r.lookup("r20000048f", "zen4");
  REQUIRE(oc);
  CHECK(oc->name == "op_cache_hit_miss.op_cache_miss");
  // The 12-bit select's low byte alone is another event (0x08F is none).
  CHECK(!r.lookup("r048f", "zen4"));
  // On Intel's 8-bit selects, config bits 32 and up (in_tx, in_tx_cp) say
  // how, not what: r100007ec4 is still Silvermont's 0xC4:0x7E.
  const EventEntry* jcc = r.lookup("r100007ec4", "silvermont");
  REQUIRE(jcc);
  CHECK(jcc->name == "BR_INST_RETIRED.JCC");
  CHECK(r.lookup("cpu/event=0x18e,umask=0x18/", "zen3"));
  CHECK(r.lookup("amd64_fam19h_zen3::ex_ret_brn", "zen3"));
  // Units as the PPR says them.
  CHECK(r.lookup("ex_ret_instr", "zen3")->unit == CountingUnit::instructions);
  CHECK(r.lookup("ex_ret_ops", "zen3")->unit == CountingUnit::macro_ops);
  CHECK(r.lookup("ls_not_halted_cyc", "zen3")->unit == CountingUnit::cycles);
  CHECK(r.lookup("ex_ret_brn_misp", "zen4")->predicate == "branch & branch.mispredicted");
  // Speculative rows are count-only.
  CHECK(r.lookup("ls_dispatch.ld_dispatch", "zen3")->predicate.empty());
}
