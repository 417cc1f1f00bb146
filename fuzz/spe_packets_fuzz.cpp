// libFuzzer target: any bytes as an Arm SPE profiling buffer (the data of
// a PERF_RECORD_AUXTRACE). Every byte must end up in exactly one packet or
// one error, no packet may reach past the buffer, and every record must
// map to a model sample, under either data source encoding.

#include <cstddef>  // std::byte, std::size_t
#include <cstdint>  // std::uint8_t
#include <span>     // std::span

#include <tagop/arm_spe/model.hpp>    // to_sample
#include <tagop/arm_spe/packets.hpp>  // decode_packets, describe
#include <tagop/arm_spe/records.hpp>  // decode_records

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const tagop::arm_spe::PacketStream s = tagop::arm_spe::decode_packets(bytes);
  std::size_t covered = s.errors.size();
  for (const tagop::arm_spe::Packet& p : s.packets) {
    if (p.size == 0 || p.offset + p.size > size) __builtin_trap();
    covered += p.size;
    if (tagop::arm_spe::describe(p).empty()) __builtin_trap();
  }
  if (covered != size) __builtin_trap();
  for (const tagop::arm_spe::SpeRecord& r : tagop::arm_spe::decode_records(bytes).records) {
    const tagop::Sample a = tagop::arm_spe::to_sample(r);
    const tagop::Sample b = tagop::arm_spe::to_sample(r, {.data_source = tagop::arm_spe::DataSourceEncoding::neoverse});
    // What holds was observed.
    if (!a.observed.contains_all(a.conditions) || !b.observed.contains_all(b.conditions)) __builtin_trap();
  }
  return 0;
}
