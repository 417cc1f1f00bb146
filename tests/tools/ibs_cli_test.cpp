// The IBS commands on Zen parts, as a user runs them: the examples
// (Zen 3's erratum #1347 page sizes, Zen 4's five-bit data source), the
// processor a command assumes and says it assumed, families with no IBS
// layout refused, and `events show --family` saying why an event can or
// cannot be counted.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

using nlohmann::json;

TEST_CASE("decode on Zen 3: erratum #1347's page sizes, no usable IbsIcMiss", "[cli][ibs][zen]") {
  // IbsFetchComp, IbsPhyAddrValid, IbsL1TlbPgSz = 1 (bits 54:53), IbsRandEn.
  const auto r = run_tagop("decode ibs-fetch IbsFetchCtl=0x237000a186a186a --family 19h --model 1 --json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["fields"]["IbsL1TlbPgSz"] == 1);
  // 1 is 16K under the erratum (perf prints "L1TlbPgSz 16KB"), so neither 4K nor 2M.
  CHECK(j["conditions"] == json({"fetch", "fetch.completed", "itlb.translated"}));
  CHECK(j["events"].count("0xF00B") == 0);
  CHECK(j["not_available"] == json({"0xF008", "0xF009"}));
  const auto text = run_tagop("decode ibs-fetch IbsFetchCtl=0x237000a186a186a --family 19h --model 1");
  CHECK_THAT(text.out, Catch::Contains("16 KiB (erratum #1347 encoding)") && Catch::Contains("erratum #1238"));
}

TEST_CASE("decode on Zen 4: DataSrcHi makes source 8, extension memory", "[cli][ibs][zen]") {
  // IbsOpData2 bit 6 (DataSrcHi = 1): source 8; IbsOpData3: a load (0) that
  // missed the DC (7) and the L2 (20), latency 0x20.
  const auto r = run_tagop("decode ibs-op IbsOpData2=0x40 IbsOpData3=0x2000100081 --family 19h --model 0x11 --json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["capabilities"] == "0xbff");
  CHECK(j["fields"]["DataSrc"] == 8);
  CHECK(j["conditions"] == json({"op", "load", "dc.miss", "l2.miss", "nb.valid", "src.cxl"}));
  // Extension memory is not DRAM: "NB local" counts it, the DRAM events do not.
  CHECK(j["events"]["0xF240"] == 1);
  CHECK(j["events"].count("0xF245") == 0);
  // The same registers on a Zen 3 model read three bits: source 0.
  const auto zen3 = json::parse(run_tagop("decode ibs-op IbsOpData2=0x40 IbsOpData3=0x2000100081 --family 19h "
                                          "--model 0x21 --json").out);
  CHECK(zen3["fields"]["DataSrc"] == 0);
  // And given Zen 4's capabilities (--caps), a Zen 3 model reads five.
  const auto caps = json::parse(run_tagop("decode ibs-op IbsOpData2=0x40 IbsOpData3=0x2000100081 --family 19h "
                                          "--model 0x21 --caps 0xbff --json").out);
  CHECK(caps["fields"]["DataSrc"] == 8);
}

TEST_CASE("decode and program say which processor they assumed", "[cli][ibs]") {
  const auto r = run_tagop("decode ibs-op IbsOpData3=1 --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  // This machine's own family when it has IBS; else Family 10h, said on stderr.
  if (j["processor_from"] == "assumed") {
    CHECK(j["family"] == "0x10");
    CHECK_THAT(r.err, Catch::Contains("no --family given") && Catch::Contains("assumed Family 10h model 00h"));
  } else {
    CHECK(j["processor_from"] == "this host");
    CHECK(r.err.empty());
  }
  CHECK(json::parse(run_tagop("decode ibs-op IbsOpData3=1 --family 17h --json").out)["processor_from"] == "--family");
  const auto p = run_tagop("program ibs-op --json");
  REQUIRE(p.exit_code == 0);
  if (j["processor_from"] == "assumed") CHECK_THAT(p.out, Catch::Contains("assumed: give --family"));
  CHECK(run_tagop("decode ibs-op IbsOpData3=1 --model 1").exit_code == 2);
}

TEST_CASE("families with no IBS layout are refused everywhere, with the ones that have one", "[cli][ibs]") {
  for (const char* command : {"decode ibs-op IbsOpData3=1 --family 0xff", "program ibs-op --family 0xff",
                              "program ibs-fetch --family 14h", "events show F206 --family 0x1b",
                              "report examples/ibs-example.perf.data --family 0xff"}) {
    std::string c = command;
    if (c.starts_with("report")) c = "report " + source_path("examples/ibs-example.perf.data") + " --family 0xff";
    const auto r = run_tagop(c);
    INFO(c << "\n" << r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("has no Instruction-Based Sampling layout") &&
                          Catch::Contains("19h (Zen 3, Zen 4), 1Ah (Zen 5, Zen 6)"));
  }
}

TEST_CASE("events show --family says whether an IBS event can be counted there, and why", "[cli][ibs][zen]") {
  const auto zen2 = run_tagop("events show F244 --family 17h");
  INFO(zen2.out << zen2.err);
  REQUIRE(zen2.exit_code == 0);
  CHECK_THAT(zen2.out, Catch::Contains("verdict:      available") &&
                           Catch::Contains("src.cache: DataSrc (IbsOpData2[2:0]) = 4") &&
                           Catch::Contains("DataSrc 4: a remote node's cache"));
  const auto zen3 = json::parse(run_tagop("events show 0xF249 --family 19h --model 0x21 --json").out);
  CHECK(zen3["ibs"]["on"]["verdict"] == "not available");
  CHECK_THAT(zen3["ibs"]["on"]["why"][0].get<std::string>(),
             Catch::Contains("src.cache_modified is not reported") && Catch::Contains("; CacheHitSt (IbsOpData2[5]) on Families 17h-18h"));
  // Without --family: the readings of each processor.
  const auto any = run_tagop("events show F243");
  CHECK_THAT(any.out, Catch::Contains("Zen 4 and later (IBS capability bit 11): DataSrc 2: another CCX's cache"));
  // --family is for IBS events.
  CHECK(run_tagop("events show BACLEARS.ALL --family 17h").exit_code == 2);
}
