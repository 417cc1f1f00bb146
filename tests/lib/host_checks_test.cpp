// check_host(): which backend fits a processor, and why sampling is or is
// not available, for machines described by hand (family/model from the
// vendors' manuals), so that every branch runs on any machine.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <tagop/host.hpp>
#include <tagop/registry.hpp>

namespace {

tagop::HostChecks check(const std::string& vendor, unsigned family, unsigned model, std::vector<std::string> pmus = {},
                        bool ibs = false) {
  tagop::HostCpu h;
  h.vendor = vendor;
  h.family = family;
  h.model = model;
  h.pmus = std::move(pmus);
  h.ibs_flag = ibs;
  h.perf_event_paranoid = 2;
  return tagop::check_host(h, tagop::Registry::builtin());
}

bool says(const tagop::HostChecks& c, const std::string& part) {
  for (const std::string& r : c.reasons)
    if (r.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the backend is the one whose tables fit the processor", "[host]") {
  // SDM Vol. 4 Table 2-1: 06_37H is Silvermont (Bay Trail), 06_5CH Goldmont
  // (Apollo Lake); family 0FH is NetBurst. AMD: IBS from family 10h, not
  // on 14h (Bobcat), none on 0Fh (K8).
  CHECK(check("GenuineIntel", 6, 0x37).backend == "silvermont");
  CHECK(check("GenuineIntel", 6, 0x5C).backend == "goldmont");
  CHECK(check("GenuineIntel", 0xF, 2).backend == "p4");
  CHECK(check("AuthenticAMD", 0x19, 1).backend == "amd-ibs");
  CHECK(check("HygonGenuine", 0x18, 0).backend == "amd-ibs");
  CHECK(check("AuthenticAMD", 0x10, 2).tables == "IBS register layouts and derived events for family 0x10");
  // perfmon's mapfile: 06_55H Skylake-SP/Cascade Lake, 06_6AH Ice Lake-SP,
  // 06_8FH Sapphire Rapids; 06_97H (Alder Lake, hybrid) has no table.
  CHECK(check("GenuineIntel", 6, 0x55).backend == "skylake");
  CHECK(check("GenuineIntel", 6, 0x6A).backend == "icelake");
  CHECK(check("GenuineIntel", 6, 0x8F).backend == "sapphirerapids");
  for (const auto& none : {check("AuthenticAMD", 0x14, 1), check("AuthenticAMD", 0xF, 0x41), check("GenuineIntel", 6, 0x97)}) {
    CHECK(none.backend.empty());
    CHECK(says(none, "tagop has no table for"));
  }
}

TEST_CASE("sampling is available where the PMU is, and the reasons say why not", "[host]") {
  const auto vm = check("AuthenticAMD", 0x19, 1, {"breakpoint", "software", "tracepoint"});
  CHECK(!vm.hardware_sampling);
  CHECK(says(vm, "CPUID 8000_0001 ECX[10] (IBS) is clear"));
  CHECK(says(vm, "no ibs_op or ibs_fetch PMU"));
  CHECK(says(vm, "no hardware PMU: the kernel exposes only breakpoint, software, tracepoint PMUs"));
  CHECK(says(vm, "perf_event_paranoid is 2"));
  const auto zen = check("AuthenticAMD", 0x19, 1, {"cpu", "ibs_fetch", "ibs_op"}, true);
  CHECK(zen.hardware_sampling);
  CHECK(!says(zen, "no hardware PMU"));
  CHECK(check("GenuineIntel", 6, 0x5C, {"cpu", "software"}).hardware_sampling);
  CHECK(says(check("GenuineIntel", 6, 0x5C, {"software"}), "no cpu PMU"));
}

TEST_CASE("a processor with sampling and counting tables names both", "[host]") {
  // AMD's PPRs: Family 19h Model 11h is Genoa (Zen 4), 17h Model 01h Naples
  // (Zen 1). IBS samples; the core PMU counts beside it.
  const auto genoa = check("AuthenticAMD", 0x19, 0x11);
  CHECK(genoa.backend == "amd-ibs");
  CHECK(genoa.other_backends == std::vector<std::string>{"zen4"});
  CHECK(check("AuthenticAMD", 0x17, 0x01).other_backends == std::vector<std::string>{"zen1"});
  CHECK(check("GenuineIntel", 6, 0x37).other_backends.empty());
}
