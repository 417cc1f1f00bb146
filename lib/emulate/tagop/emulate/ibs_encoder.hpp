#pragma once
// A model sample as the IBS registers of one family would report it: the
// inverse of amd_ibs::IbsDecoder, driven by the same field table (flags by
// their condition, counters by their measure, addresses by their slot,
// encoded fields by their values' conditions; control fields by name).
// Thread-safe once built: the encoding only reads the encoder.

#include <cstdint>  // std::uint64_t

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/decoder.hpp>    // IbsDecoder
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters
#include <tagop/sample.hpp>             // Sample

namespace tagop TAGOP_API {
namespace emulate {

class IbsEncoder {
 public:
  /// Throws tagop::Error for a family without IBS.
  IbsEncoder(unsigned family, unsigned model);

  /// The registers of a fetch or op sample taken with sampling period
  /// `period` (a multiple of 16, checked by check_period).
  amd_ibs::IbsRegisters encode(const Sample& sample, std::uint64_t period) const;

  /// The largest period this family's MaxCnt fields hold for `unit`.
  std::uint64_t max_period(amd_ibs::IbsUnit unit) const;

 private:
  void set(amd_ibs::IbsRegisters& regs, const amd_ibs::FieldSpec& f, std::uint64_t value) const;
  void set(amd_ibs::IbsRegisters& regs, std::string_view field, std::uint64_t value) const;
  const amd_ibs::FieldSpec* field(amd_ibs::IbsUnit unit, std::string_view name) const;

  amd_ibs::IbsDecoder decoder_;  ///< the fields of this family and model
};

}  // namespace emulate
}  // namespace tagop
