// Decode one IBS op sample's registers and ask a predicate of it.
//
//   decode_registers            the example sample below, on a Zen 3
//   decode_registers 'load & dc.miss & !dtlb.l1_miss'
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 decode_registers.cpp $(pkg-config --cflags --libs tagop)

#include <cstdio>     // std::printf
#include <exception>  // std::exception

#include <tagop/amd_ibs/decoder.hpp>    // IbsDecoder
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters
#include <tagop/engine.hpp>             // decide
#include <tagop/predicate.hpp>          // Predicate

int main(int argc, char** argv) try {
  using namespace tagop;
  using amd_ibs::IbsRegister;
  // A load (IbsOpData3 bit 0) that missed the data cache (bit 7), with a
  // miss latency of 0x20 cycles (bits 47:32), at 0x401000.
  amd_ibs::IbsRegisters regs;
  regs.unit = amd_ibs::IbsUnit::op;
  regs.set(IbsRegister::IbsOpRip, 0x401000);
  regs.set(IbsRegister::IbsOpData, 0x300000);
  regs.set(IbsRegister::IbsOpData3, 0x2000000081);

  const amd_ibs::IbsDecoder zen3(0x19, 0x01);
  const Sample sample = zen3.decode(regs);
  std::printf("conditions: %s\n", sample.conditions.to_string().c_str());
  for (const amd_ibs::DecodedField& f : zen3.explain(regs))
    if (f.value != 0) std::printf("  %-24.*s = %#llx\n", static_cast<int>(f.spec->name.size()), f.spec->name.data(),
                                  static_cast<unsigned long long>(f.value));

  // Yes, no, or unknown: a condition the sample did not observe (a
  // register not given, a bit this processor lacks) is neither true nor false.
  const Predicate question = Predicate::parse(argc > 1 ? argv[1] : "load & dc.miss");
  const char* answers[] = {"no", "yes", "unknown"};
  std::printf("%s? %s\n", question.to_string().c_str(),
              answers[static_cast<int>(decide(question, sample.conditions, sample.observed))]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "decode_registers: %s\n", e.what());
  return 1;
}
