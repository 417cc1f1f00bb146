#pragma once
// What the model needs to know of an instruction that the trace does not
// say: whether it is a branch and of which kind, whether it is locked, a
// software prefetch, and its execution class (Pentium 4 execution
// tagging, Goldmont divides). Decoded once per address with Capstone.
// Not thread-safe: an InstructionClassifier holds one Capstone handle, used
// from one thread.

#include <cstdint>  // std::uint8_t, std::uint64_t
#include <span>     // std::span

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/conditions.hpp>  // ConditionSet

namespace tagop TAGOP_API {
namespace emulate {

enum class BranchKind : std::uint8_t {
  none,
  conditional,    ///< Jcc, JrCXZ, LOOPcc
  jump,           ///< JMP rel
  indirect_jump,  ///< JMP r/m
  call,           ///< CALL rel
  indirect_call,  ///< CALL r/m
  ret,            ///< RET (near)
  far,            ///< far transfers, INT, SYSCALL, IRET: not modelled as branches
};

struct InstructionInfo {
  BranchKind branch = BranchKind::none;
  bool known = false;     ///< its bytes were found and decoded
  bool locked = false;    ///< LOCK prefix, or XCHG with memory (implicitly locked)
  bool prefetch = false;  ///< a software prefetch
  bool fast_string = false;  ///< REP MOVS or REP STOS: run by the fast-string microcode (fast_strings.hpp)
  /// How Valgrind's translation (VEX) runs it when it is no branch on the
  /// hardware, yet a conditional exit there, which Cachegrind counts and
  /// predicts as a conditional branch (CacheBehaviour::cachegrind_branches).
  enum class ValgrindExit : std::uint8_t {
    none,
    repeat,          ///< REP string: one exit per run, taken while it iterates (rcx != 0)
    repeat_compare,  ///< REPE/REPNE CMPS, SCAS: a second exit per iteration, on the compare
    locked_retry,    ///< a LOCKed read-modify-write (not CMPXCHG): the exit that retries a failed CAS
  };
  ValgrindExit valgrind_exit = ValgrindExit::none;
  /// uop.* classes and op.int_divide / op.fp_divide.
  ConditionSet classes{};
};

class InstructionClassifier {
 public:
  InstructionClassifier();
  ~InstructionClassifier();
  InstructionClassifier(const InstructionClassifier&) = delete;
  InstructionClassifier& operator=(const InstructionClassifier&) = delete;

  /// Decodes the x86-64 instruction at the start of `bytes` (which holds
  /// up to 15 bytes from `ip`). known is false when it does not decode.
  InstructionInfo classify(std::span<const std::uint8_t> bytes, std::uint64_t ip) const;

 private:
  std::size_t handle_ = 0;  ///< csh
  void* scratch_ = nullptr; ///< cs_insn, allocated once
};

}  // namespace emulate
}  // namespace tagop
