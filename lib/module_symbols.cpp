#include <tagop/module_symbols.hpp>

#include <tagop/error.hpp>  // Error

#include "demangle.hpp"  // demangle
#include "elf_file.hpp"  // load_headers

#include <dwarf.h>             // DW_AT_comp_dir
#include <elfutils/libdwfl.h>  // Dwfl, dwfl_report_offline, dwfl_module_*
#include <fcntl.h>             // ::open, ::fcntl
#include <gelf.h>              // gelf_getphdr, GElf_Phdr, GElf_Sym
#include <sys/stat.h>          // ::fstat, S_ISREG
#include <unistd.h>            // ::close, ::access

#include <algorithm>      // std::all_of, std::upper_bound, std::inplace_merge
#include <deque>          // std::deque
#include <cerrno>         // errno
#include <cstdlib>        // std::free, std::getenv
#include <cstring>        // std::strerror, std::strstr, std::strlen
#include <string_view>    // std::string_view
#include <filesystem>     // std::filesystem::path::lexically_normal
#include <iterator>       // std::prev
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

#include <fmt/format.h>  // fmt::format

#include "perf_data_reader_guard.hpp"  // ZeroFillScope
#include "plt_stubs.hpp"
#include "radix_sort.hpp"

namespace tagop {
namespace {

struct DwflDeleter {
  void operator()(Dwfl* dwfl) const { dwfl_end(dwfl); }
};
using DwflHandle = std::unique_ptr<Dwfl, DwflDeleter>;

// Whether DEBUGINFOD_URLS names a server (report and diff empty it unless
// TAGOP_DEBUGINFOD=1, as perf asks none by default).
bool debuginfod_servers_named() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls != nullptr && std::string_view(urls).find_first_not_of(" \t\n") != std::string_view::npos;
}

// The largest separate debug file read: its CRC is computed over the whole
// file (libLLVM's is under 2 GiB).
constexpr std::uint64_t max_debug_file = std::uint64_t{4} << 30;

// The separate debug files of a module that may be on this machine, where
// libdwfl's standard search looks (its default path ":.debug:/usr/lib/debug"):
// by build-id under /usr/lib/debug/.build-id, or by the .gnu_debuglink
// name (else the file's name and ".debug") beside the file, in its .debug/,
// or under /usr/lib/debug and the file's directory. Those that exist, and
// those of them that libdwfl must not open: a FIFO there would block its
// open() for ever, a link to /dev/zero spin its CRC, a huge file take its
// time.
struct DebugCandidates {
  bool any = false;
  std::string refused;  // the first that is not a regular file of a bounded size, and why
};

DebugCandidates local_debuginfo(Dwfl_Module* module, const char* file_name, const char* debuglink_file) {
  DebugCandidates out;
  auto look = [&](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return;
    out.any = true;
    if (!out.refused.empty()) return;
    if (!S_ISREG(st.st_mode)) out.refused = fmt::format("{} is not a regular file", path);
    else if (static_cast<std::uint64_t>(st.st_size) > max_debug_file)
      out.refused = fmt::format("{} has {} bytes, more than a debug file's {}", path, st.st_size, max_debug_file);
  };
  const unsigned char* id = nullptr;
  GElf_Addr id_vaddr = 0;
  if (const int length = dwfl_module_build_id(module, &id, &id_vaddr); length > 1) {
    std::string path = fmt::format("/usr/lib/debug/.build-id/{:02x}/", id[0]);
    for (int i = 1; i < length; ++i) path += fmt::format("{:02x}", id[i]);
    look(path + ".debug");
  }
  if (file_name == nullptr) return out;
  const std::filesystem::path file(file_name);
  const std::string dir = file.parent_path().string();
  std::vector<std::string> names;
  if (debuglink_file != nullptr) names.emplace_back(debuglink_file);
  else names = {file.filename().string() + ".debug", file.filename().string()};
  for (const std::string& name : names) {
    // The file itself is no separate debug file.
    if (name != file.filename().string()) look(dir + "/" + name);
    look(dir + "/.debug/" + name);
    look("/usr/lib/debug" + dir + "/" + name);
  }
  return out;
}

// libdwfl's standard search for a separate debug file ends, where no local
// file has it, with a debuginfod query, and loads libdebuginfod for it
// (with libcurl, GnuTLS and Kerberos: 5 ms, a sixth of a small report)
// even when no server is named. So it runs only where it can find
// something: a server is named, or a local candidate exists; and not at
// all where a candidate is something libdwfl must not open, which the
// module's notes then say (the module's own symbols are still read).
int find_debuginfo(Dwfl_Module* module, void** userdata, const char* modname, GElf_Addr base, const char* file_name,
                   const char* debuglink_file, GElf_Word debuglink_crc, char** debuginfo_file_name) {
  const DebugCandidates local = local_debuginfo(module, file_name, debuglink_file);
  if (!local.refused.empty()) {
    if (userdata != nullptr && *userdata != nullptr) {
      // Once, though libdwfl asks for the symbol table and the DWARF apart.
      auto& notes = *static_cast<std::vector<std::string>*>(*userdata);
      std::string note = fmt::format("its separate debug file is not read: {}", local.refused);
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
    }
    errno = ENOENT;
    return -1;
  }
  if (!debuginfod_servers_named() && !local.any) {
    errno = ENOENT;
    return -1;
  }
  return dwfl_standard_find_debuginfo(module, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                      debuginfo_file_name);
}

// The callbacks outlive every Dwfl that points at them; libdwfl wants a
// mutable pointer for the debuginfo search path (nullptr: its default).
char* default_debuginfo_path = nullptr;
const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &default_debuginfo_path,
};

std::string libdwfl_error() { return dwfl_errmsg(-1); }

std::string to_hex(const unsigned char* bytes, int length) {
  std::string hex;
  hex.reserve(static_cast<std::size_t>(length) * 2);
  for (int i = 0; i < length; ++i) hex += fmt::format("{:02x}", bytes[i]);
  return hex;
}

std::string lowercase(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// perf stores build-ids in fixed-size fields padded with zeros (a 16-byte
// MD5 id arrives as 20 bytes), so trailing zeros beyond the file's id are
// padding, not a difference.
bool same_build_id(const std::string& file_id, const std::string& recorded) {
  if (recorded.size() < file_id.size() || recorded.compare(0, file_id.size(), file_id) != 0)
    return false;
  return std::all_of(recorded.begin() + static_cast<std::ptrdiff_t>(file_id.size()), recorded.end(),
                     [](char c) { return c == '0'; });
}


// Opens `path` to be symbolised as one ELF object: returns the descriptor,
// or throws Error saying why not. Only a regular file: a module path
// comes from the capture, and a FIFO or a device there would block the
// open or the reads for ever, so the open does not wait (O_NONBLOCK) and
// anything else is refused. libdwfl would accept an archive (reporting
// every member) and gives only a generic message for a non-ELF file, so
// the kind is checked here too.
int open_elf_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw Error(ErrorCode::io, fmt::format("{}: not found on this machine", path));
    throw Error(err == EACCES ? ErrorCode::permission : ErrorCode::io,
                fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::io, fmt::format("{}: not a regular file", path));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  const Elf_Kind kind = elf != nullptr ? elf_kind(elf) : ELF_K_NONE;
  if (elf != nullptr) elf_end(elf);
  if (kind != ELF_K_ELF) {
    ::close(fd);
    throw Error(ErrorCode::damaged, fmt::format("{}: not an ELF file", path));
  }
  return fd;
}

struct LoadSegment {
  std::uint64_t file_offset = 0;
  std::uint64_t file_size = 0;
  std::uint64_t vaddr = 0;
};

struct FunctionSymbol {
  std::uint64_t start = 0;  // libdwfl address (bias included)
  std::uint64_t end = 0;    // one past the last byte
  const char* name = nullptr;  // in libelf's string table, alive with the Dwfl
  int binding = STB_LOCAL;
  bool sizeless = false;
  bool plt_stub = false;  // named "<name>@plt" (plt_stubs.hpp)
  bool label = false;     // STT_NOTYPE: code entered by a jump, as ld.so's _start
};

// Function symbols sorted by address. dwfl_module_addrinfo scans the whole
// symbol table on every call (5 ms per address in libLLVM's 45k symbols),
// too slow for a report's ~100k addresses; this answers in a binary search.
class FunctionIndex {
 public:
  explicit FunctionIndex(Dwfl_Module* module) {
    int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym{};
      GElf_Addr address = 0;
      GElf_Word section = 0;
      Elf* elf = nullptr;
      Dwarf_Addr bias = 0;
      const char* name = dwfl_module_getsym_info(module, i, &sym, &address, &section, &elf, &bias);
      if (elf) symbol_file_ = elf;
      int type = GELF_ST_TYPE(sym.st_info);
      // Unnamed by st_name, as perf's elf_sym__is_function asks, not by the
      // name's first byte: that read touched every page of the string
      // table (libLLVM's: megabytes, a page fault each), where only the
      // names of the functions with samples are read.
      if (name == nullptr || sym.st_name == 0 || section == SHN_UNDEF || section >= SHN_LORESERVE) continue;
      const bool label = type == STT_NOTYPE;
      if (label ? !text_label(sym, elf, section) : type != STT_FUNC && type != STT_GNU_IFUNC) continue;
      bool sizeless = sym.st_size == 0;
      symbols_.push_back({.start = address,
                          .end = sizeless ? section_end(elf, section, bias) : address + sym.st_size,
                          .name = name,
                          .binding = GELF_ST_BIND(sym.st_info),
                          .sizeless = sizeless,
                          .label = label});
    }
    // As perf reads a symbol table (dso__load_sym in its util/): by
    // address, aliases in table order; a sizeless symbol runs up to the next
    // one (hand-written assembly and _init often leave the size 0), within
    // its own section; then, of aliases at one address, the one that
    // choose_best_symbol() keeps names the function. By a radix sort:
    // std::stable_sort took 2 ms of a report on libLLVM's 45 k symbols.
    radix_sort(symbols_, start_of);
    for (std::size_t i = 0; i + 1 < symbols_.size(); ++i)
      if (symbols_[i].sizeless) symbols_[i].end = std::min(symbols_[i].end, symbols_[i + 1].start);
    keep_best_aliases();
    add_plt_stubs(module);
  }

  static constexpr std::size_t none = ~std::size_t{0};

  /// The ELF file whose symbol table this is (the module's or its debug file).
  Elf* symbol_file() const { return symbol_file_; }

  /// The function holding `address`, or none; `from`: an index no greater
  /// than the answer's (for addresses in ascending order).
  std::size_t index_at(std::uint64_t address, std::size_t from = 0) const {
    auto after = std::upper_bound(
        symbols_.begin() + static_cast<std::ptrdiff_t>(std::min(from, symbols_.size())), symbols_.end(), address,
        [](std::uint64_t a, const FunctionSymbol& s) { return a < s.start; });
    if (after == symbols_.begin()) return none;
    const FunctionSymbol& symbol = *std::prev(after);
    if (address >= symbol.end && !(symbol.end == symbol.start && address == symbol.start)) return none;
    return static_cast<std::size_t>(std::prev(after) - symbols_.begin());
  }

  /// The demangled name of a function (by index_at()); a PLT stub's is
  /// its target's demangled, then "@plt", as perf writes it.
  const std::string& name(std::size_t index) const {
    auto cached = demangled_.find(index);
    if (cached == demangled_.end())
      cached = demangled_.emplace(index, demangle(symbols_[index].name) + plt_suffix(index)).first;
    return cached->second;
  }

  /// Where a function (by index_at()) starts: a libdwfl address.
  std::uint64_t start(std::size_t index) const { return symbols_[index].start; }

  /// The name as the symbol table has it (--no-demangle).
  std::string symbol(std::size_t index) const { return symbols_[index].name + plt_suffix(index); }

  /// The demangled name of the function holding `address`, "" if none.
  std::string name_at(std::uint64_t address) const {
    const std::size_t index = index_at(address);
    return index == none ? std::string() : name(index);
  }

 private:
  // A label that names code, as perf takes them (elf_sym__is_label and
  // elf_sec__is_text in its util/symbol-elf.c): visible, in an allocated
  // section whose name has "text" in it. Assembly entry points are such
  // labels (ld.so's _start, where every process begins).
  static bool text_label(const GElf_Sym& sym, Elf* elf, GElf_Word section) {
    const unsigned char visibility = GELF_ST_VISIBILITY(sym.st_other);
    if (visibility == STV_HIDDEN || visibility == STV_INTERNAL || elf == nullptr) return false;
    GElf_Shdr header{};
    std::size_t names = 0;
    Elf_Scn* scn = elf_getscn(elf, section);
    if (scn == nullptr || gelf_getshdr(scn, &header) == nullptr || !(header.sh_flags & SHF_ALLOC) ||
        elf_getshdrstrndx(elf, &names) != 0)
      return false;
    const char* name = elf_strptr(elf, names, header.sh_name);
    return name != nullptr && std::strstr(name, "text") != nullptr;
  }

  static std::uint64_t start_of(const FunctionSymbol& s) { return s.start; }
  static bool by_start(const FunctionSymbol& a, const FunctionSymbol& b) { return a.start < b.start; }

  // Of the symbols at one address (sorted), the one that names the function.
  void keep_best_aliases() {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < symbols_.size(); ++i) {
      if (kept && symbols_[kept - 1].start == symbols_[i].start) {
        if (!better_alias(symbols_[kept - 1], symbols_[i])) symbols_[kept - 1] = symbols_[i];
        continue;
      }
      symbols_[kept++] = symbols_[i];
    }
    symbols_.resize(kept);
  }

  // The PLT's stubs (plt_stubs.hpp), from the module's own file (a
  // separate debug file has no .plt contents), merged in. An ifunc's stub
  // is named by the symbol at its resolver, as perf names it since Linux
  // 6.2, else as objdump labels it ("*ABS*+0x9f550@plt").
  void add_plt_stubs(Dwfl_Module* module) {
    Dwarf_Addr bias = 0;
    std::vector<FunctionSymbol> stubs;
    for (const PltStub& stub : plt_stubs(dwfl_module_getelf(module, &bias))) {
      const char* name = stub.name;
      if (name == nullptr) {
        const std::size_t at = index_at(stub.resolver + bias);
        name = at != none && symbols_[at].start == stub.resolver + bias
                   ? symbols_[at].name
                   : owned_names_.emplace_back(fmt::format("*ABS*+{:#x}", stub.resolver)).c_str();
      }
      stubs.push_back({.start = stub.address + bias,
                       .end = stub.address + bias + stub.size,
                       .name = name,
                       .binding = STB_GLOBAL,
                       .plt_stub = true});
    }
    if (stubs.empty()) return;
    radix_sort(stubs, start_of);
    const auto middle = static_cast<std::ptrdiff_t>(symbols_.size());
    symbols_.insert(symbols_.end(), stubs.begin(), stubs.end());
    std::inplace_merge(symbols_.begin(), symbols_.begin() + middle, symbols_.end(), by_start);
    keep_best_aliases();
  }

  std::string plt_suffix(std::size_t index) const { return symbols_[index].plt_stub ? "@plt" : ""; }

  static std::uint64_t section_end(Elf* elf, GElf_Word section, Dwarf_Addr bias) {
    GElf_Shdr header{};
    Elf_Scn* scn = elf != nullptr ? elf_getscn(elf, section) : nullptr;
    if (scn == nullptr || gelf_getshdr(scn, &header) == nullptr) return 0;
    return header.sh_addr + header.sh_size + bias;
  }

  // Whether `a` names the function rather than `b`, at the same address
  // (perf's choose_best_symbol): one that spans bytes, then a function
  // rather than a label, then one that is not weak, then a global one, then fewer leading underscores, then the
  // longer name; on a tie, the first.
  static bool better_alias(const FunctionSymbol& a, const FunctionSymbol& b) {
    const bool a_spans = a.end > a.start, b_spans = b.end > b.start;
    if (a_spans != b_spans) return a_spans;
    if (a.label != b.label) return b.label;
    if ((a.binding == STB_WEAK) != (b.binding == STB_WEAK)) return b.binding == STB_WEAK;
    if ((a.binding == STB_GLOBAL) != (b.binding == STB_GLOBAL)) return a.binding == STB_GLOBAL;
    const std::string_view an(a.name), bn(b.name);
    const std::size_t au = an.find_first_not_of('_'), bu = bn.find_first_not_of('_');
    if (au != bu) return au < bu;
    return an.size() >= bn.size();
  }

  std::vector<FunctionSymbol> symbols_;
  Elf* symbol_file_ = nullptr;  // whose string table the names are in
  std::deque<std::string> owned_names_;  // names of no string table (a deque: they stay put)
  mutable std::unordered_map<std::size_t, std::string> demangled_;
};

class DwflModuleSymbols final : public ModuleSymbols {
 public:
  DwflModuleSymbols(DwflHandle dwfl, Dwfl_Module* module, std::vector<LoadSegment> segments,
                    std::uint64_t bias, std::string build_id, std::unique_ptr<std::vector<std::string>> notes)
      : notes_(std::move(notes)),
        dwfl_(std::move(dwfl)),
        module_(module),
        segments_(std::move(segments)),
        bias_(bias),
        build_id_(std::move(build_id)),
        functions_(module) {}

  // Not thread-safe: libdwfl fills its line caches lazily, and so does the
  // demangled-name cache.
  std::optional<SourceLocation> lookup(std::uint64_t file_offset) const override {
    std::optional<std::uint64_t> address = address_of(file_offset);
    if (!address) return std::nullopt;

    SourceLocation location;
    location.function = functions_.name_at(*address);
    dwarf_read_ = true;
    if (Dwfl_Line* line = dwfl_module_getsrc(module_, static_cast<Dwarf_Addr>(*address))) {
      int line_number = 0;
      if (const char* file = dwfl_lineinfo(line, nullptr, &line_number, nullptr, nullptr, nullptr)) {
        // Build systems compile "../src/x.cpp" from the build directory;
        // the normal form is what a reader recognises.
        location.file = std::filesystem::path(file).lexically_normal().string();
        location.line = line_number > 0 ? static_cast<unsigned>(line_number) : 0;
      }
    }
    return location;
  }

  std::string build_id() const override { return build_id_; }
  std::vector<std::string> notes() const override {
    std::vector<std::string> notes = *notes_;
    // The files read, mapped: the module's, and the debug file's where
    // lines or symbols came from one.
    GElf_Addr bias = 0;
    std::vector<Elf*> files = {dwfl_module_getelf(module_, &bias), functions_.symbol_file()};
    if (dwarf_read_)
      if (Dwarf* dwarf = dwfl_module_getdwarf(module_, &bias)) files.push_back(dwarf_getelf(dwarf));
    for (Elf* elf : files) {
      std::size_t size = 0;
      const char* image = elf ? elf_rawfile(elf, &size) : nullptr;
      if (image && perf_data::ZeroFillScope::faulted_within(image, size)) {
        notes.push_back("a symbol file shrank while it was read: what it held past its new end was read as zeros, "
                        "so some names or lines may be missing");
        break;
      }
    }
    return notes;
  }

  void find_functions(std::span<const std::uint64_t> file_offsets, std::span<std::uint32_t> out) const override {
    std::size_t from = 0;
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < file_offsets.size(); ++i) {
      out[i] = none;
      const std::optional<std::uint64_t> address = address_of(file_offsets[i]);
      if (!address) continue;
      if (*address < last) from = 0;  // another segment, lower in memory
      last = *address;
      const std::size_t index = functions_.index_at(*address, from);
      if (index == FunctionIndex::none) continue;
      from = index;
      out[i] = static_cast<std::uint32_t>(index);
    }
  }

  std::string function_name(std::uint32_t function) const override { return functions_.name(function); }
  std::string symbol_name(std::uint32_t function) const override { return functions_.symbol(function); }
  std::optional<std::uint64_t> function_start(std::uint32_t function) const override {
    const std::uint64_t address = functions_.start(function);
    for (const LoadSegment& s : segments_)
      if (address - bias_ >= s.vaddr && address - bias_ - s.vaddr < s.file_size)
        return address - bias_ - s.vaddr + s.file_offset;
    return std::nullopt;
  }

  void find_lines(std::span<const std::uint64_t> file_offsets, std::span<LineRef> out) const override {
    // Each compile unit's line table and its rows' addresses, made once a
    // call: where units interleave (one's code between another's), the
    // offsets, in ascending order, go back and forth between them, and
    // making a unit's addresses anew at each change was quadratic.
    struct UnitLines {
      Dwarf_Lines* lines = nullptr;
      std::vector<Dwarf_Addr> addresses;
    };
    std::unordered_map<const void*, UnitLines> units;
    dwarf_read_ = true;
    for (std::size_t i = 0; i < file_offsets.size(); ++i) {
      out[i] = LineRef{};
      const std::optional<std::uint64_t> address = address_of(file_offsets[i]);
      if (!address) continue;
      Dwarf_Addr bias = 0;
      Dwarf_Die* die = dwfl_module_addrdie(module_, *address, &bias);
      if (die == nullptr) continue;
      auto [unit, fresh] = units.try_emplace(die->addr);
      Dwarf_Lines*& lines = unit->second.lines;
      std::vector<Dwarf_Addr>& line_addresses = unit->second.addresses;
      if (fresh) {
        std::size_t count = 0;
        if (dwarf_getsrclines(die, &lines, &count) != 0) lines = nullptr;
        for (std::size_t l = 0; lines && l < count; ++l) {
          Dwarf_Addr a = 0;
          dwarf_lineaddr(dwarf_onesrcline(lines, l), &a);
          line_addresses.push_back(a);
        }
      }
      if (!lines) continue;
      // The last row at or before the address, unless it ends a sequence.
      const Dwarf_Addr at = *address - bias;
      const auto after = std::upper_bound(line_addresses.begin(), line_addresses.end(), at);
      if (after == line_addresses.begin()) continue;
      Dwarf_Line* line = dwarf_onesrcline(lines, static_cast<std::size_t>(after - line_addresses.begin() - 1));
      bool end_sequence = false;
      int number = 0;
      if (dwarf_lineendsequence(line, &end_sequence) != 0 || end_sequence) continue;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      if (file == nullptr || dwarf_lineno(line, &number) != 0) continue;
      const std::uint32_t index = file_index(file);
      // Where a relative name is relative to: its compile unit's directory.
      if (file_dirs_.size() < files_.size()) {
        Dwarf_Attribute attribute;
        const char* dir = dwarf_formstring(dwarf_attr(die, DW_AT_comp_dir, &attribute));
        file_dirs_.resize(files_.size());
        file_dirs_[index] = dir ? dir : "";
      }
      out[i] = LineRef{index, number > 0 ? static_cast<std::uint32_t>(number) : 0};
    }
  }

  std::string_view file_name(std::uint32_t file) const override { return files_[file]; }

  std::string source_path(std::uint32_t file) const override {
    const std::filesystem::path name(files_[file]);
    if (name.is_absolute() || file >= file_dirs_.size() || file_dirs_[file].empty()) return files_[file];
    return (std::filesystem::path(file_dirs_[file]) / name).lexically_normal().string();
  }

  std::vector<Symbol> symbols() const override {
    std::vector<Symbol> out;
    const int count = dwfl_module_getsymtab(module_);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym{};
      GElf_Addr address = 0;
      GElf_Word section = 0;
      const char* name = dwfl_module_getsym_info(module_, i, &sym, &address, &section, nullptr, nullptr);
      if (name == nullptr || sym.st_name == 0 || *name == '\0' || section == SHN_UNDEF) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      const bool code = type == STT_FUNC || type == STT_GNU_IFUNC;
      if (!code && type != STT_OBJECT && type != STT_TLS && type != STT_COMMON) continue;
      const std::uint64_t elf_address = address - bias_;
      out.push_back({.name = name,
                     .address = elf_address,
                     .size = sym.st_size,
                     .offset = offset_of_address(elf_address),
                     .code = code,
                     .global = GELF_ST_BIND(sym.st_info) != STB_LOCAL});
    }
    return out;
  }

  std::optional<std::uint64_t> address_of_offset(std::uint64_t file_offset) const override {
    const std::optional<std::uint64_t> address = address_of(file_offset);
    if (!address) return std::nullopt;
    return *address - bias_;
  }

  std::optional<std::uint64_t> offset_of_address(std::uint64_t address) const override {
    for (const LoadSegment& s : segments_)
      if (address >= s.vaddr && address - s.vaddr < s.file_size) return address - s.vaddr + s.file_offset;
    return std::nullopt;
  }

 private:
  // A file offset names an address through the loadable segment holding it;
  // libdwfl addresses are that plus where it placed the module (the bias).
  std::optional<std::uint64_t> address_of(std::uint64_t file_offset) const {
    for (const LoadSegment& s : segments_)
      if (file_offset >= s.file_offset && file_offset - s.file_offset < s.file_size)
        return file_offset - s.file_offset + s.vaddr + bias_;
    return std::nullopt;
  }

  std::uint32_t file_index(const char* file) const {
    auto [it, fresh] = file_indexes_.try_emplace(file, static_cast<std::uint32_t>(files_.size()));
    // Build systems compile "../src/x.cpp" from the build directory; the
    // normal form is what a reader recognises.
    if (fresh) files_.push_back(std::filesystem::path(file).lexically_normal().string());
    return it->second;
  }

  // A symbol file that shrinks under its mapping reads zeros instead of
  // killing the process (SIGBUS), while this lives: first, so it outlives
  // every read of the mappings.
  perf_data::ZeroFillScope zero_fill_;
  // Where libdwfl's search for the separate debug file says what it refused
  // (the module's user data points here); before dwfl_, which uses it.
  std::unique_ptr<std::vector<std::string>> notes_;
  DwflHandle dwfl_;
  Dwfl_Module* module_;  // owned by dwfl_
  std::vector<LoadSegment> segments_;
  std::uint64_t bias_;
  std::string build_id_;
  FunctionIndex functions_;  // after dwfl_: its names live in dwfl_'s ELF
  mutable std::vector<std::string> files_;
  mutable std::vector<std::string> file_dirs_;  // by file: its compile unit's directory
  mutable std::unordered_map<std::string, std::uint32_t> file_indexes_;  // by libdw's spelling
  mutable bool dwarf_read_ = false;  // the debug information was loaded (lines were looked up)
};

// Whether `elf` is a separate debug file (objcopy --only-keep-debug, as
// Debian's -dbgsym packages hold): its executable segments have no bytes
// in the file, so no file offset of a sample falls in them. Such a file
// names a module through the module's own file (find_debuginfo finds it
// there), as perf takes the segments from the runtime file.
bool separate_debug_file(Elf* elf) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return false;
  bool code = false, code_bytes = false;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr{};
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD ||
        !(phdr.p_flags & PF_X) || phdr.p_memsz == 0)
      continue;
    code = true;
    code_bytes = code_bytes || phdr.p_filesz > 0;
  }
  return code && !code_bytes;
}

std::vector<LoadSegment> load_segments(Elf* elf) {
  std::vector<LoadSegment> segments;
  for (const GElf_Phdr& phdr : load_headers(elf))
    segments.push_back({.file_offset = phdr.p_offset, .file_size = phdr.p_filesz,
                        .vaddr = phdr.p_vaddr});
  return segments;
}

}  // namespace

std::unique_ptr<ModuleSymbols> ModuleSymbols::open(
    const std::string& path, const std::optional<std::string>& expected_build_id) {
  const perf_data::ZeroFillScope zero_fill;  // the reads below, before the table's own scope
  const int fd = open_elf_file(path);

  DwflHandle dwfl(dwfl_begin(&offline_callbacks));
  if (!dwfl) {
    ::close(fd);
    throw Error(ErrorCode::damaged, fmt::format("{}: libdwfl: {}", path, libdwfl_error()));
  }
  dwfl_report_begin(dwfl.get());
  // The descriptor checked above, not the path again, which could name
  // something else by now; libdwfl keeps it on success only.
  Dwfl_Module* module = dwfl_report_offline(dwfl.get(), path.c_str(), path.c_str(), fd);
  if (module == nullptr) {
    ::close(fd);
    throw Error(ErrorCode::damaged, fmt::format("{}: cannot read as ELF: {}", path, libdwfl_error()));
  }
  if (dwfl_report_end(dwfl.get(), nullptr, nullptr) != 0) {
    throw Error(ErrorCode::damaged, fmt::format("{}: libdwfl: {}", path, libdwfl_error()));
  }

  const unsigned char* id_bytes = nullptr;
  GElf_Addr id_vaddr = 0;
  int id_length = dwfl_module_build_id(module, &id_bytes, &id_vaddr);
  std::string build_id = id_length > 0 ? to_hex(id_bytes, id_length) : std::string();
  if (expected_build_id && !expected_build_id->empty()) {
    std::string recorded = lowercase(*expected_build_id);
    if (build_id.empty()) {
      throw Error(ErrorCode::not_found, fmt::format("{}: has no build-id but the recorded one is {} (not used)", path, recorded));
    }
    if (!same_build_id(build_id, recorded)) {
      throw Error(ErrorCode::not_found, fmt::format("{}: build-id {} does not match the recorded {} (not used)", path,
                            build_id, recorded));
    }
  }

  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module, &bias);
  if (elf == nullptr) {
    throw Error(ErrorCode::damaged, fmt::format("{}: libdwfl: {}", path, libdwfl_error()));
  }
  if (separate_debug_file(elf)) {
    throw Error(ErrorCode::not_found,
                fmt::format("{}: a separate debug file, without the code (its module's own file is read, and this "
                            "file with it)",
                            path));
  }
  std::vector<LoadSegment> segments = load_segments(elf);
  if (segments.empty()) {
    throw Error(ErrorCode::damaged, fmt::format("{}: has no loadable segment (not an executable or shared library)", path));
  }
  // The search for its separate debug file runs from here on (the symbol
  // table first): it writes what it refused where the user data points.
  auto notes = std::make_unique<std::vector<std::string>>();
  void** userdata = nullptr;
  dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (userdata != nullptr) *userdata = notes.get();
  return std::make_unique<DwflModuleSymbols>(std::move(dwfl), module, std::move(segments), bias,
                                             std::move(build_id), std::move(notes));
}

}  // namespace tagop
