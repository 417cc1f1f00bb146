#include "perf_data_reader_guard.hpp"

#include <signal.h>    // sigaction, SIGBUS
#include <sys/mman.h>  // mmap
#include <unistd.h>    // sysconf

#include <algorithm>  // std::min
#include <array>      // std::array
#include <atomic>     // std::atomic
#include <cstdint>    // std::uintptr_t
#include <mutex>      // std::call_once, std::mutex

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
// ZeroFillScope: how many live, and the pages that read zeros (the last 64).
std::atomic<int> zero_fill_scopes{0};
std::atomic<std::size_t> zero_filled_count{0};
std::array<std::atomic<std::uintptr_t>, 64> zero_filled{};
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
  // A symbol file that shrank (ZeroFillScope): a page of zeros, noted.
  if (zero_fill_scopes.load(std::memory_order_acquire) > 0 && info->si_code == BUS_ADRERR) {
    const std::uintptr_t page = address & ~(page_size - 1);
    if (mmap(reinterpret_cast<void*>(page), page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED) {
      const std::size_t n = zero_filled_count.fetch_add(1, std::memory_order_acq_rel);
      zero_filled[n % zero_filled.size()].store(page, std::memory_order_release);
      return;
    }
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

void install_handler_once() {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
}

}  // namespace

ZeroFillScope::ZeroFillScope() {
  install_handler_once();
  zero_fill_scopes.fetch_add(1, std::memory_order_acq_rel);
}

ZeroFillScope::~ZeroFillScope() { zero_fill_scopes.fetch_sub(1, std::memory_order_acq_rel); }

bool ZeroFillScope::faulted_within(const void* base, std::size_t size) {
  const auto from = reinterpret_cast<std::uintptr_t>(base);
  const std::size_t n = std::min(zero_filled_count.load(std::memory_order_acquire), zero_filled.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uintptr_t page = zero_filled[i].load(std::memory_order_acquire);
    if (page + page_size > from && page < from + size) return true;
  }
  return false;
}

ShrinkGuard::ShrinkGuard(const std::byte* base, std::size_t size) {
  install_handler_once();
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
