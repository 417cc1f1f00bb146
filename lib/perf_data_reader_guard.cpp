#include "perf_data_reader_guard.hpp"

#include <signal.h>    // sigaction, SIGBUS
#include <sys/mman.h>  // mmap
#include <unistd.h>    // sysconf

#include <array>    // std::array
#include <atomic>   // std::atomic
#include <cstdint>  // std::uintptr_t
#include <mutex>    // std::call_once, std::mutex

namespace tagop::perf_data {

namespace {

// What the handler may touch: lock-free atomics only.
struct GuardSlot {
  std::atomic<std::uintptr_t> base{0};  // 0: free
  std::atomic<std::uintptr_t> size{0};
  std::atomic<std::uint64_t> cut{~std::uint64_t{0}};  // ~0: the file has not shrunk
};

// More readers at once than this go unguarded, as before.
std::array<GuardSlot, 64> slots;
struct sigaction previous_action {};
std::uintptr_t page_size = 4096;

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (GuardSlot& slot : slots) {
    const std::uintptr_t base = slot.base.load(std::memory_order_acquire);
    const std::uintptr_t size = slot.size.load(std::memory_order_acquire);
    if (base == 0 || address < base || address - base >= size) continue;
    // Zeros over the rest of the mapping: the access that faulted is made
    // again, and reads them. mmap is a plain system call, safe here.
    const std::uintptr_t page = address & ~(page_size - 1);
    const std::uintptr_t end = (base + size + page_size - 1) & ~(page_size - 1);
    if (mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
        MAP_FAILED)
      break;
    std::uint64_t cut = slot.cut.load(std::memory_order_relaxed);
    while (page - base < cut && !slot.cut.compare_exchange_weak(cut, page - base, std::memory_order_release)) {
    }
    return;
  }
  // Not a guarded mapping: whatever was there before.
  if ((previous_action.sa_flags & SA_SIGINFO) && previous_action.sa_sigaction) {
    previous_action.sa_sigaction(signal, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
  } else {
    // The default action: the access repeats, and kills the process.
    ::signal(SIGBUS, SIG_DFL);
  }
}

void install_handler() {
  page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, &previous_action);
}

}  // namespace

ShrinkGuard::ShrinkGuard(const std::byte* base, std::size_t size) {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  static std::mutex claiming;
  const std::lock_guard lock(claiming);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    GuardSlot& slot = slots[i];
    if (slot.base.load(std::memory_order_relaxed) != 0) continue;
    slot.size.store(size, std::memory_order_relaxed);
    slot.cut.store(~std::uint64_t{0}, std::memory_order_relaxed);
    // Last: the handler reads a slot only once its base is set.
    slot.base.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

ShrinkGuard::~ShrinkGuard() {
  if (slot_ >= 0) slots[static_cast<std::size_t>(slot_)].base.store(0, std::memory_order_release);
}

std::optional<std::uint64_t> ShrinkGuard::cut() const {
  if (slot_ < 0) return std::nullopt;
  const std::uint64_t cut = slots[static_cast<std::size_t>(slot_)].cut.load(std::memory_order_acquire);
  if (cut == ~std::uint64_t{0}) return std::nullopt;
  return cut;
}

}  // namespace tagop::perf_data
