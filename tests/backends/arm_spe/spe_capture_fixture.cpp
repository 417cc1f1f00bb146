// Writes a small Arm SPE capture (perf record -e arm_spe// as the project's
// writer makes it) to argv[1], for the tests that run `tagop spe` from
// outside C++ (tests/contract): loads that hit and missed, mispredicted
// branches, a store that did not retire.

#include <cstdio>     // std::fprintf
#include <exception>  // std::exception

#include <tagop/arm_spe/perf_capture.hpp>  // SpeCaptureWriter

#include "spe_bytes.hpp"

using namespace tagop::arm_spe;  // the packet indexes and event bits
using namespace spe_bytes;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  try {
    Buffer b;
    for (int i = 0; i < 4; ++i) {
      const bool miss = i == 0;
      b.address(address_pc, Buffer::code_address(0x400100, 0, true));
      b.load();
      b.events(bit(retired) | bit(l1d_access) | (miss ? bit(l1d_refill) : 0));
      b.data_source(miss ? 0xE : 0x0);
      b.address(address_data_virtual, 0x7f0000001000 + 64 * i);
      b.counter(counter_total_latency, miss ? 180 : 4);
      b.end();
    }
    for (int i = 0; i < 2; ++i) {
      b.address(address_pc, Buffer::code_address(0x400200, 0, true));
      b.branch(true, false);
      b.events(bit(retired) | bit(mispredicted));
      b.end();
    }
    b.address(address_pc, Buffer::code_address(0x400300, 0, true));
    b.store();
    b.events(bit(l1d_access));
    b.timestamp(1000);
    tagop::arm_spe::SpeCaptureWriter w(argv[1], {});
    w.perf().comm(900, 901, "spe-fixture");
    w.buffer(b.bytes, 901, 0);
    w.finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
