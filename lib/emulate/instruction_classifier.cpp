#include <tagop/emulate/instruction.hpp>

#include <capstone/capstone.h>  // cs_open, cs_disasm_iter, x86 details

#include <string_view>  // std::string_view

#include <tagop/error.hpp>  // Error

#include "capstone_library.hpp"  // capstone(), in lib/

namespace tagop::emulate {

namespace {

bool in_group(const cs_detail& d, unsigned group) {
  for (std::uint8_t i = 0; i < d.groups_count; ++i)
    if (d.groups[i] == group) return true;
  return false;
}

bool has_memory_operand(const cs_x86& x) {
  for (std::uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_MEM) return true;
  return false;
}

bool has_mmx_register(const cs_x86& x) {
  for (std::uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_REG && x.operands[i].reg >= X86_REG_MM0 && x.operands[i].reg <= X86_REG_MM7)
      return true;
  return false;
}

BranchKind branch_kind(const cs_insn& insn) {
  const cs_detail& d = *insn.detail;
  const cs_x86& x = d.x86;
  const bool immediate = x.op_count > 0 && x.operands[0].type == X86_OP_IMM;
  if (insn.id == X86_INS_LJMP || insn.id == X86_INS_LCALL || insn.id == X86_INS_RETF || in_group(d, X86_GRP_INT) ||
      in_group(d, X86_GRP_IRET) || insn.id == X86_INS_SYSCALL || insn.id == X86_INS_SYSENTER)
    return BranchKind::far;
  if (in_group(d, X86_GRP_RET)) return BranchKind::ret;
  if (in_group(d, X86_GRP_CALL)) return immediate ? BranchKind::call : BranchKind::indirect_call;
  if (in_group(d, X86_GRP_JUMP)) {
    if (insn.id == X86_INS_JMP) return immediate ? BranchKind::jump : BranchKind::indirect_jump;
    return BranchKind::conditional;
  }
  return BranchKind::none;
}

bool is_fp_divide(unsigned id) {
  switch (id) {
    case X86_INS_DIVSS: case X86_INS_DIVSD: case X86_INS_DIVPS: case X86_INS_DIVPD:
    case X86_INS_VDIVSS: case X86_INS_VDIVSD: case X86_INS_VDIVPS: case X86_INS_VDIVPD:
    case X86_INS_SQRTSS: case X86_INS_SQRTSD: case X86_INS_SQRTPS: case X86_INS_SQRTPD:
    case X86_INS_FDIV: case X86_INS_FDIVR: case X86_INS_FIDIV: case X86_INS_FIDIVR:
    case X86_INS_FDIVP: case X86_INS_FDIVRP: case X86_INS_FSQRT:
      return true;
    default: return false;
  }
}

bool is_prefetch(unsigned id) {
  switch (id) {
    case X86_INS_PREFETCH: case X86_INS_PREFETCHW: case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
    case X86_INS_PREFETCHT2: case X86_INS_PREFETCHNTA:
      return true;
    default: return false;
  }
}

// The Pentium 4 execution classes (SDM Table 19-32's upstream events) by
// the instruction's ISA group and mnemonic: SSE/AVX arithmetic by its
// ps/pd/ss/sd suffix, integer SIMD by its register width, x87 loads and
// stores and SIMD moves as moves. An approximation: the P4 classified
// uops, and one instruction may be several uops of different classes.
ConditionSet execution_class(const cs_insn& insn) {
  const cs_detail& d = *insn.detail;
  std::string_view m = insn.mnemonic;
  if (in_group(d, X86_GRP_FPU)) {
    if (m.starts_with("fld") || m.starts_with("fst") || m.starts_with("fild") || m.starts_with("fist") ||
        m.starts_with("fxch"))
      return {condition("uop.x87_simd_move")};
    return {condition("uop.x87_fp")};
  }
  const bool simd = in_group(d, X86_GRP_SSE1) || in_group(d, X86_GRP_SSE2) || in_group(d, X86_GRP_SSE3) ||
                    in_group(d, X86_GRP_SSSE3) || in_group(d, X86_GRP_SSE41) || in_group(d, X86_GRP_SSE42) ||
                    in_group(d, X86_GRP_AVX) || in_group(d, X86_GRP_AVX2) || in_group(d, X86_GRP_FMA) ||
                    in_group(d, X86_GRP_MMX);
  if (!simd) return {};
  if (m.starts_with("v")) m.remove_prefix(1);
  if (m.starts_with("mov") || m.starts_with("lddqu")) return {condition("uop.x87_simd_move")};
  if (m.ends_with("ps")) return {condition("uop.packed_sp")};
  if (m.ends_with("pd")) return {condition("uop.packed_dp")};
  if (m.ends_with("ss")) return {condition("uop.scalar_sp")};
  if (m.ends_with("sd")) return {condition("uop.scalar_dp")};
  return {has_mmx_register(d.x86) ? condition("uop.mmx_64") : condition("uop.mmx_128")};
}

}  // namespace

InstructionClassifier::InstructionClassifier() {
  const CapstoneLibrary& cs = capstone();
  csh handle = 0;
  if (cs.open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) throw Error("Capstone: cannot open an x86-64 decoder");
  cs.option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  handle_ = handle;
  scratch_ = cs.malloc(handle);
  if (!scratch_) {
    cs.close(&handle);
    throw Error("Capstone: out of memory");
  }
}

InstructionClassifier::~InstructionClassifier() {
  const CapstoneLibrary& cs = capstone();
  cs.free(static_cast<cs_insn*>(scratch_), 1);
  csh handle = handle_;
  cs.close(&handle);
}

namespace {

// The string instructions whose REP form the fast-string microcode runs
// (SDM vol. 1, 7.3.9.3 and vol. 3, "Fast-String Operation"): MOVS and STOS.
bool is_movs_or_stos(unsigned id) {
  switch (id) {
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ: return true;
    default: return false;
  }
}

bool is_string(unsigned id) {
  switch (id) {
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
    case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
    case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD: return true;
    default: return false;
  }
}

bool is_compare_string(unsigned id) {
  switch (id) {
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ: return true;
    default: return false;
  }
}

// VEX's amd64 front end (guest_amd64_toIR.c): dis_REP_op ends each run of
// a REP string instruction with an exit on rcx == 0 (and REPE/REPNE CMPS
// and SCAS with a second one on the compare); casLE, which every LOCKed
// read-modify-write but CMPXCHG goes through, exits to retry a failed CAS.
InstructionInfo::ValgrindExit valgrind_exit(const cs_insn& insn, bool locked) {
  const cs_x86& x = insn.detail->x86;
  const bool rep = x.prefix[0] == X86_PREFIX_REP || x.prefix[0] == X86_PREFIX_REPNE;
  if (rep && is_string(insn.id)) return InstructionInfo::ValgrindExit::repeat;
  if (rep && is_compare_string(insn.id)) return InstructionInfo::ValgrindExit::repeat_compare;
  const bool cmpxchg = insn.id == X86_INS_CMPXCHG || insn.id == X86_INS_CMPXCHG8B || insn.id == X86_INS_CMPXCHG16B;
  if (locked && has_memory_operand(x) && !cmpxchg) return InstructionInfo::ValgrindExit::locked_retry;
  return InstructionInfo::ValgrindExit::none;
}

}  // namespace

InstructionInfo InstructionClassifier::classify(std::span<const std::uint8_t> bytes, std::uint64_t ip) const {
  InstructionInfo out;
  const std::uint8_t* code = bytes.data();
  std::size_t size = bytes.size();
  std::uint64_t address = ip;
  auto* insn = static_cast<cs_insn*>(scratch_);
  if (!capstone().disasm_iter(handle_, &code, &size, &address, insn)) return out;
  out.known = true;
  out.branch = branch_kind(*insn);
  const cs_x86& x = insn->detail->x86;
  out.locked = x.prefix[0] == X86_PREFIX_LOCK || (insn->id == X86_INS_XCHG && has_memory_operand(x));
  out.prefetch = is_prefetch(insn->id);
  out.fast_string = x.prefix[0] == X86_PREFIX_REP && is_movs_or_stos(insn->id);
  out.valgrind_exit = valgrind_exit(*insn, out.locked);
  out.classes = execution_class(*insn);
  if (insn->id == X86_INS_DIV || insn->id == X86_INS_IDIV) out.classes.insert(condition("op.int_divide"));
  if (is_fp_divide(insn->id)) out.classes.insert(condition("op.fp_divide"));
  return out;
}

}  // namespace tagop::emulate
