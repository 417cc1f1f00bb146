#pragma once
// A function's bytes as instructions, in objdump's AT&T syntax, through
// Capstone (loaded when first used: capstone_library.hpp).

#include <cstdint>  // std::uint8_t, std::uint64_t
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

namespace tagop::report {

struct DecodedInstruction {
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;
  std::string text;  ///< "mnemonic operands"; "(bad)" for a byte that starts no instruction, as objdump
};

/// x86 code at `address` (64-bit, or 32-bit when `wide` is false). Throws
/// tagop::Error when Capstone cannot be loaded or opened.
std::vector<DecodedInstruction> disassemble_x86(std::span<const std::uint8_t> code, std::uint64_t address, bool wide);

}  // namespace tagop::report
