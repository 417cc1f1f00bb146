#include "disassemble.hpp"

#include <capstone/capstone.h>  // csh, cs_insn, CS_OPT_SYNTAX_ATT

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "capstone_library.hpp"  // capstone(), in lib/

namespace tagop::report {

namespace {

bool alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// Capstone writes a number below 10 in decimal ("$3", "8(%rsp)"), objdump
// every immediate and displacement in hex ("$0x3", "0x8(%rsp)"): as
// objdump, so that the text reads as perf annotate's. Not a register's
// digits (%r8, %st(1)) nor an index's scale (",4)").
std::string hex_numbers(const std::string& operands) {
  std::string out;
  for (std::size_t i = 0; i < operands.size();) {
    const char c = operands[i];
    const bool starts = c >= '0' && c <= '9' && (i == 0 || !alnum(operands[i - 1])) &&
                        !(i >= 4 && operands.compare(i - 4, 4, "%st(") == 0) && !(i > 0 && operands[i - 1] == ',');
    if (!starts || operands.compare(i, 2, "0x") == 0) {
      if (starts) {  // a hex number already: as it is
        const std::size_t end = operands.find_first_not_of("0123456789abcdefx", i);
        out += operands.substr(i, end - i);
        i = end == std::string::npos ? operands.size() : end;
        continue;
      }
      out += c;
      ++i;
      continue;
    }
    std::size_t end = i;
    unsigned long long value = 0;
    while (end < operands.size() && operands[end] >= '0' && operands[end] <= '9')
      value = value * 10 + static_cast<unsigned>(operands[end++] - '0');
    out += fmt::format("{:#x}", value);
    i = end;
  }
  return out;
}

}  // namespace

std::vector<DecodedInstruction> disassemble_x86(std::span<const std::uint8_t> code, std::uint64_t address, bool wide) {
  const CapstoneLibrary& cs = capstone();
  csh handle = 0;
  if (cs.open(CS_ARCH_X86, wide ? CS_MODE_64 : CS_MODE_32, &handle) != CS_ERR_OK)
    throw Error(ErrorCode::not_supported, "Capstone: cannot open an x86 decoder");
  // objdump's default syntax, so that the text reads as perf annotate's.
  cs.option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  cs_insn* insn = cs.malloc(handle);
  if (!insn) {
    cs.close(&handle);
    throw Error(ErrorCode::resource, "Capstone: out of memory");
  }
  std::vector<DecodedInstruction> out;
  const std::uint8_t* at = code.data();
  std::size_t left = code.size();
  std::uint64_t pc = address;
  while (left > 0) {
    if (cs.disasm_iter(handle, &at, &left, &pc, insn)) {
      std::string text = insn->mnemonic;
      if (insn->op_str[0] != '\0') text += " " + hex_numbers(insn->op_str);
      out.push_back({insn->address, std::vector<std::uint8_t>(insn->bytes, insn->bytes + insn->size), std::move(text)});
      continue;
    }
    // A byte that starts no instruction (data in the code, a cut-off
    // instruction at the end): one byte, and on with the next.
    out.push_back({pc, {*at}, "(bad)"});
    ++at;
    --left;
    ++pc;
  }
  cs.free(insn, 1);
  cs.close(&handle);
  return out;
}

}  // namespace tagop::report
