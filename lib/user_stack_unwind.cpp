#include <tagop/user_stack_unwind.hpp>

#include <elfutils/libdwfl.h>  // Dwfl, dwfl_attach_state, dwfl_getthread_frames
#include <gelf.h>              // gelf_getphdr, elf_rawfile
#include <linux/perf_event.h>  // PERF_SAMPLE_REGS_ABI_*

#include <array>          // std::array
#include <bit>            // std::popcount
#include <cstdlib>        // std::free
#include <cstring>        // std::memcpy, strdup
#include <map>            // std::map
#include <set>            // std::set
#include <unordered_map>  // sessions by pid
#include <utility>        // std::pair

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include "elf_file.hpp"                // ElfFile, load_headers
#include "perf_data_reader_guard.hpp"  // ZeroFillScope

namespace tagop {

namespace {

// perf's x86 register numbers (asm/perf_regs.h PERF_REG_X86_*) of the
// DWARF registers 0..16 of the x86_64 psABI: rax rdx rcx rbx rsi rdi rbp
// rsp r8..r15 rip, as perf's arch/x86/util/unwind-libdw.c maps them.
constexpr std::array<int, 17> perf_reg_of_dwarf = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
constexpr int perf_reg_sp = 7, perf_reg_ip = 8;

bool reg_value(const UserStack& s, int perf_reg, std::uint64_t& out) {
  if (!((s.regs_mask >> perf_reg) & 1)) return false;
  const auto index = static_cast<std::size_t>(std::popcount(s.regs_mask & ((std::uint64_t{1} << perf_reg) - 1)));
  if ((index + 1) * 8 > s.regs.size()) return false;
  std::memcpy(&out, s.regs.data() + index * 8, 8);
  return true;
}

std::string base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

UserStack UserStack::of(const perf_data::SampleRecord& s) {
  UserStack u;
  u.regs_abi = s.regs_user_abi;
  u.regs_mask = s.attr ? s.attr->attr.sample_regs_user : 0;
  u.regs = s.regs_user;
  u.stack = s.stack_user;
  u.stack_dyn_size = s.stack_user_dyn_size;
  return u;
}

struct UserStackUnwinder::Impl {
  // A module as reported to a session: what the session's Dwfl_Module's
  // userdata points to.
  struct Reported {
    std::string filename, build_id;
    std::uint64_t bias = 0;      // the run-time address less the file's address
    std::uint64_t map_base = 0;  // start - pgoff of the mapping it was reported for
    std::string debug_file;  // a separate file with .debug_frame, "" none
  };
  // One process's libdw session.
  struct Session {
    Dwfl* dwfl = nullptr;
    bool attached = false;
    std::vector<std::unique_ptr<Reported>> reported;
    std::set<std::pair<std::uint32_t, std::uint64_t>> failed;  // (table's module, map base) that could not be reported
    const ProcessTable* failed_table = nullptr;
    ~Session() {
      if (dwfl) dwfl_end(dwfl);
    }
  };
  // The files found for a module: the one to report (the binary, or a
  // debug file when only that is there) and a separate debug file.
  struct Files {
    std::string main, debug;
    std::vector<GElf_Phdr> loads;  // main's segments, for the bias of a mapping
  };
  enum class Found { yes, no, other };  // other: another file is reported there

  UserStackUnwindOptions options;
  UserStackUnwindStats stats;
  std::vector<std::string> problems;
  std::set<std::string> problem_files;
  std::unordered_map<std::uint32_t, std::unique_ptr<Session>> sessions;
  std::map<std::pair<std::string, std::string>, Files> files;

  // The sample being unwound, for the callbacks.
  const ProcessTable* table = nullptr;
  std::uint32_t pid = 0, tid = 0;
  const UserStack* stack = nullptr;
  std::uint64_t sp = 0, stack_size = 0;
  Session* session = nullptr;
  std::vector<std::uint64_t>* out = nullptr;
  std::size_t left = 0;
  bool other_module = false;

  static const Dwfl_Callbacks callbacks;
  static const Dwfl_Thread_Callbacks thread_callbacks;

  explicit Impl(UserStackUnwindOptions o) : options(std::move(o)) {}

  void problem(const std::string& file, const std::string& why) {
    if (problem_files.insert(file).second) problems.push_back(fmt::format("{}: {}", file, why));
  }

  const Files& files_of(const MappedModule& m) {
    const auto key = std::make_pair(m.filename, m.build_id);
    if (auto it = files.find(key); it != files.end()) return it->second;
    Files f;
    const SymbolFileSearchResult found = find_symbol_files(m.filename, m.build_id, options.search);
    for (const SymbolFile& file : found.files) {
      const bool binary = file.origin == SymbolFileOrigin::module_path || file.origin == SymbolFileOrigin::build_id_cache;
      if (binary && f.main.empty()) f.main = file.path;
      if (!binary && f.debug.empty()) f.debug = file.path;
    }
    if (f.main.empty()) f.main = f.debug;
    if (f.main.empty())
      problem(m.filename, found.rejected.empty() ? std::string("not found") : fmt::format("not used: {}", fmt::join(found.rejected, "; ")));
    else
      try {
        f.loads = load_headers(ElfFile(f.main).elf());
      } catch (const Error&) {
        // libdw says what is wrong with the file when it is reported.
      }
    return files.emplace(key, std::move(f)).first->second;
  }

  // The load bias of the file mapped at `m` (its run-time addresses less
  // its own) that puts `address` in one of its segments. GNU ld gives each
  // segment an address equal to its file offset, where the bias is start -
  // pgoff; lld places the code a page past its offset, and packs segments
  // so that the page at pgoff can begin two of them: the one that holds
  // `address` decides.
  static std::uint64_t load_bias(const Mapping& m, const std::vector<GElf_Phdr>& loads, std::uint64_t address) {
    constexpr std::uint64_t page = 4096;
    for (const GElf_Phdr& ph : loads) {
      if (m.pgoff < (ph.p_offset & ~(page - 1)) || m.pgoff >= ph.p_offset + ph.p_filesz) continue;
      const std::uint64_t bias = m.start - m.pgoff - (ph.p_vaddr - ph.p_offset);
      const std::uint64_t vaddr = address - bias;
      if (vaddr >= (ph.p_vaddr & ~(page - 1)) && vaddr - ph.p_vaddr < ph.p_memsz) return bias;
    }
    return m.start - m.pgoff;
  }

  // Makes sure the module that holds `address` is reported to the session
  // at the bias its mapping gives.
  Found ensure_module(std::uint64_t address) {
    const Mapping* m = table->find(pid, address);
    if (!m) return Found::no;
    const MappedModule& mm = table->modules()[m->module];
    // Anonymous memory, [heap], [stack], JIT maps: no file to read CFI from.
    const bool has_file = !mm.filename.empty() && (mm.filename.front() == '/' || mm.filename == "[vdso]");
    if (mm.kernel || !has_file) return Found::no;
    const std::uint64_t map_base = m->start - m->pgoff;  // where the mapping puts the file's start
    Dwfl* dwfl = session->dwfl;
    if (Dwfl_Module* mod = dwfl_addrmodule(dwfl, address)) {
      void** userdata = nullptr;
      dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
      const auto* r = userdata ? static_cast<const Reported*>(*userdata) : nullptr;
      if (!r || r->filename != mm.filename || r->build_id != mm.build_id) return Found::other;
      if (r->map_base == map_base || r->bias == load_bias(*m, files_of(mm).loads, address)) return Found::yes;
      return Found::other;
    }
    if (session->failed_table != table) {
      session->failed.clear();
      session->failed_table = table;
    }
    if (session->failed.count({m->module, map_base})) return Found::no;
    const Files& f = files_of(mm);
    if (f.main.empty()) {
      session->failed.insert({m->module, map_base});
      return Found::no;
    }
    const std::uint64_t bias = load_bias(*m, f.loads, address);
    auto reported = std::make_unique<Reported>(Reported{mm.filename, mm.build_id, bias, map_base, f.debug});
    dwfl_report_begin_add(dwfl);
    // At the bias itself (add_p_vaddr): libdw adds the segments' addresses.
    Dwfl_Module* mod = dwfl_report_elf(dwfl, base_name(mm.filename).c_str(), f.main.c_str(), -1, bias, true);
    const std::string error = mod ? "" : dwfl_errmsg(-1);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (!mod) {
      problem(f.main, fmt::format("libdw cannot take it: {}", error));
      session->failed.insert({m->module, map_base});
      return Found::no;
    }
    void** userdata = nullptr;
    dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (userdata) *userdata = reported.get();
    session->reported.push_back(std::move(reported));
    ++stats.modules;
    if (dwfl_addrmodule(dwfl, address) != mod) return Found::other;  // the file does not cover it
    return Found::yes;
  }

  Session& session_of(std::uint32_t process) {
    std::unique_ptr<Session>& s = sessions[process];
    if (!s) {
      // Bounded: a capture of many short processes does not keep every
      // file of every one open.
      if (sessions.size() > 256) {
        sessions.clear();
        return session_of(process);
      }
      s = std::make_unique<Session>();
      s->dwfl = dwfl_begin(&callbacks);
      ++stats.sessions;
    }
    return *s;
  }

  // One try: false when another file was met where the session has one
  // (the mappings changed): the caller makes the session again.
  bool walk(std::uint64_t ip, std::string& why) {
    other_module = false;
    const Found found = session->dwfl ? ensure_module(ip) : Found::no;
    if (found == Found::other) return false;
    if (found == Found::no) {
      out->push_back(ip);
      // No address in the words: a report counts samples by reason.
      why = "the ip is in no mapped file with CFI (anonymous memory, a JIT's code, a file not found)";
      return true;
    }
    if (!session->attached) {
      if (!dwfl_attach_state(session->dwfl, nullptr, static_cast<pid_t>(pid), &thread_callbacks, this)) {
        out->push_back(ip);
        why = fmt::format("libdw cannot unwind here: {}", dwfl_errmsg(-1));
        return true;
      }
      session->attached = true;
    }
    const std::size_t before = out->size();
    const int rc = dwfl_getthread_frames(session->dwfl, static_cast<pid_t>(tid), frame, this);
    if (other_module) {
      out->resize(before);
      return false;
    }
    (void)rc;  // an error ends every unwinding at the stack copy's end or at a frame without CFI
    if (out->size() == before) {
      out->push_back(ip);
      why = fmt::format("libdw gave no frame: {}", dwfl_errmsg(-1));
    }
    return true;
  }

  static int frame(Dwfl_Frame* state, void* arg) {
    Impl& u = *static_cast<Impl*>(arg);
    Dwarf_Addr pc = 0;
    if (!dwfl_frame_pc(state, &pc, nullptr)) return DWARF_CB_ABORT;
    // The caller's module, before libdw looks for its CFI.
    if (u.ensure_module(pc) == Found::other) {
      u.other_module = true;
      return DWARF_CB_ABORT;
    }
    u.out->push_back(pc);
    return --u.left == 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
  }

  static pid_t next_thread(Dwfl*, void* dwfl_arg, void** thread_argp) {
    if (*thread_argp) return 0;  // one thread: the sample's
    *thread_argp = dwfl_arg;
    return static_cast<pid_t>(static_cast<Impl*>(dwfl_arg)->tid);
  }

  static bool get_thread(Dwfl*, pid_t, void* dwfl_arg, void** thread_argp) {
    *thread_argp = dwfl_arg;
    return true;
  }

  static bool memory_read(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
    const Impl& u = *static_cast<const Impl*>(arg);
    if (addr >= u.sp && u.stack_size >= 8 && addr - u.sp <= u.stack_size - 8) {
      std::memcpy(result, u.stack->stack.data() + (addr - u.sp), 8);
      return true;
    }
    // Elsewhere, the mapped file's bytes (as perf reads its dso's data).
    Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
    if (!mod) return false;
    Dwarf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(mod, &bias);
    if (!elf || addr < bias) return false;
    const std::uint64_t vaddr = addr - bias;
    std::size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) != 0) return false;
    std::size_t size = 0;
    const char* image = elf_rawfile(elf, &size);
    if (!image) return false;
    for (std::size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
      if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz || ph.p_filesz - (vaddr - ph.p_vaddr) < 8) continue;
      const std::uint64_t offset = ph.p_offset + (vaddr - ph.p_vaddr);
      if (offset > size || size - offset < 8) return false;
      std::memcpy(result, image + offset, 8);
      return true;
    }
    return false;
  }

  static bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
    const Impl& u = *static_cast<const Impl*>(thread_arg);
    for (int dwarf = 0; dwarf < static_cast<int>(perf_reg_of_dwarf.size()); ++dwarf) {
      std::uint64_t value = 0;
      if (!reg_value(*u.stack, perf_reg_of_dwarf[static_cast<std::size_t>(dwarf)], value)) continue;
      const Dwarf_Word word = value;
      if (!dwfl_thread_state_registers(thread, dwarf, 1, &word)) return false;
    }
    std::uint64_t ip = 0;
    if (!reg_value(*u.stack, perf_reg_ip, ip)) return false;
    dwfl_thread_state_register_pc(thread, ip);
    return true;
  }

  static int find_debuginfo(Dwfl_Module*, void** userdata, const char*, Dwarf_Addr, const char*, const char*,
                            GElf_Word, char** debuginfo_file_name) {
    // The search has looked in every place already (under --symfs too),
    // so no look at this machine's own /usr/lib/debug.
    const auto* r = userdata ? static_cast<const Reported*>(*userdata) : nullptr;
    if (!r || r->debug_file.empty()) return -1;
    std::string problem;
    const int fd = open_regular_file(r->debug_file, problem);
    if (fd >= 0) *debuginfo_file_name = strdup(r->debug_file.c_str());
    return fd;
  }
};

const Dwfl_Callbacks UserStackUnwinder::Impl::callbacks = {
    nullptr,                             // find_elf: modules are reported with their file
    &UserStackUnwinder::Impl::find_debuginfo,
    &dwfl_offline_section_address,
    nullptr,
};

const Dwfl_Thread_Callbacks UserStackUnwinder::Impl::thread_callbacks = {
    &UserStackUnwinder::Impl::next_thread,
    &UserStackUnwinder::Impl::get_thread,
    &UserStackUnwinder::Impl::memory_read,
    &UserStackUnwinder::Impl::set_initial_registers,
    nullptr,
    nullptr,
};

UserStackUnwinder::UserStackUnwinder(UserStackUnwindOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

UserStackUnwinder::~UserStackUnwinder() = default;

bool UserStackUnwinder::supports(std::string_view arch) { return arch.empty() || arch == "x86_64"; }

const std::vector<std::string>& UserStackUnwinder::module_problems() const { return impl_->problems; }

const UserStackUnwindStats& UserStackUnwinder::stats() const { return impl_->stats; }

void UserStackUnwinder::clear() { impl_->sessions.clear(); }

std::string UserStackUnwinder::unwind(const ProcessTable& table, std::uint32_t pid, std::uint32_t tid,
                                      const UserStack& stack, std::size_t max_frames,
                                      std::vector<std::uint64_t>& frames) {
  Impl& u = *impl_;
  ++u.stats.samples;
  if (!supports(u.options.arch))
    return fmt::format("a capture of {}: only x86_64's user stacks are unwound", u.options.arch);
  if (stack.regs_abi == PERF_SAMPLE_REGS_ABI_NONE || stack.regs.empty())
    return "the sample has no user registers (PERF_SAMPLE_REGS_USER)";
  if (stack.regs_abi == PERF_SAMPLE_REGS_ABI_32) return "a 32-bit process: its user stack is not unwound";
  if (stack.regs_abi != PERF_SAMPLE_REGS_ABI_64) return fmt::format("unknown register ABI {}", stack.regs_abi);
  if (stack.regs.size() != static_cast<std::size_t>(std::popcount(stack.regs_mask)) * 8)
    return fmt::format("{} bytes of user registers, not the {} that sample_regs_user {:#x} asks for",
                       stack.regs.size(), std::popcount(stack.regs_mask) * 8, stack.regs_mask);
  std::uint64_t ip = 0;
  if (!reg_value(stack, perf_reg_ip, ip) || !reg_value(stack, perf_reg_sp, u.sp))
    return fmt::format("the user registers lack the ip or the stack pointer (sample_regs_user {:#x})", stack.regs_mask);
  if (stack.stack.empty()) return "the sample has no user stack copy (PERF_SAMPLE_STACK_USER)";
  if (stack.stack_dyn_size > stack.stack.size())
    return fmt::format("the stack copy says it holds {} bytes, more than its {}", stack.stack_dyn_size,
                       stack.stack.size());
  if (max_frames == 0) return "";
  u.stack_size = stack.stack_dyn_size;
  u.table = &table;
  u.pid = pid;
  u.tid = tid;
  u.stack = &stack;
  u.out = &frames;
  // libdw reads the modules' CFI from mappings of their files: one that
  // shrinks meanwhile reads zeros there, not SIGBUS.
  const perf_data::ZeroFillScope zero_fill;
  const std::size_t before = frames.size();
  std::string why;
  for (int attempt = 0; attempt < 2; ++attempt) {
    u.session = &u.session_of(pid);
    u.left = max_frames;
    if (u.walk(ip, why)) break;
    // Another file where the session has one: the process's mappings
    // changed; a new session for them (once).
    u.sessions.erase(pid);
    if (attempt == 1) {
      frames.push_back(ip);
      why = "the process's mappings disagree with themselves";
    }
  }
  u.session = nullptr;
  u.stack = nullptr;
  u.stats.frames += frames.size() - before;
  return why;
}

}  // namespace tagop
