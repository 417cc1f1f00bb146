// libFuzzer target: any bytes as the text `decode --input` reads, fed in
// two pieces cut where the first byte says (lines span pieces). The reader
// must refuse them with tagop::Error or hand out samples, which are decoded
// for a Family 10h and a Family 19h part and totalled.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t
#include <string_view>

#include <tagop/amd_ibs/decoder.hpp>  // IbsDecoder
#include <tagop/engine.hpp>           // Aggregator
#include <tagop/error.hpp>            // Error

#include "ibs_sample_text.hpp"  // IbsSampleText

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tagop::amd_ibs::IbsDecoder family_10h(0x10, 4), family_19h(0x19, 1);
  tagop::Aggregator totals;
  tagop::cli::IbsSampleText reader("fuzz", [&](const tagop::amd_ibs::IbsRegisters& regs) {
    totals.add(family_10h.decode(regs));
    totals.add(family_19h.decode(regs));
  });
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = size ? data[0] % (size + 1) : 0;
  try {
    reader.feed(text.substr(0, cut));
    reader.feed(text.substr(cut));
    reader.finish();
  } catch (const tagop::Error&) {
    // Refused with a message naming the line.
  }
  return 0;
}
