#include <tagop/kernel_symbols.hpp>

#include <elfutils/libdwelf.h>  // dwelf_elf_gnu_build_id
#include <gelf.h>               // elf_begin, gelf_getsym, GElf_Sym
#include <sys/stat.h>           // ::stat
#include <unistd.h>             // ::read, ::close

#include <algorithm>  // std::stable_sort, std::upper_bound, std::is_sorted
#include <cctype>     // std::tolower
#include <cerrno>     // errno
#include <charconv>   // std::from_chars
#include <cstring>    // std::memcpy, std::strerror
#include <fstream>    // std::ifstream
#include <memory>     // std::unique_ptr
#include <sstream>    // std::istringstream

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error
#include <tagop/text.hpp>   // printable

#include "perf_data_reader_guard.hpp"  // ZeroFillScope

#include "elf_file.hpp"  // ElfFile
#include "huge_page_advice.hpp"  // advise_huge_pages

namespace tagop {

namespace {

constexpr std::uint32_t nt_gnu_build_id = 3;
constexpr std::uint64_t page = 4096;

constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t a) { return (n + a - 1) / a * a; }

std::string hex(std::span<const std::byte> bytes) {
  std::string out;
  for (std::byte b : bytes) out += fmt::format("{:02x}", std::to_integer<unsigned>(b));
  return out;
}

// The bytes of a small regular file (sysfs notes, kallsyms): `limit` bounds
// what a hostile path can make us hold.
std::optional<std::string> read_small_file(const std::string& path, std::string& problem,
                                           std::size_t limit = std::size_t{256} << 20) {
  const int fd = open_regular_file(path, problem);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      problem = std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > limit) {
      problem = fmt::format("larger than {} MiB", limit >> 20);
      ::close(fd);
      return std::nullopt;
    }
  }
  ::close(fd);
  return out;
}

std::uint64_t parse_hex(std::string_view s, bool& ok) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  ok = ec == std::errc() && end == s.data() + s.size() && !s.empty();
  return v;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::string build_id_in_notes(std::span<const std::byte> notes) {
  // Elf_Nhdr: namesz, descsz, type; name and desc each padded to 4 bytes.
  auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, notes.data() + at, 4);
    return v;
  };
  std::size_t at = 0;
  while (at + 12 <= notes.size()) {
    const std::uint64_t name_size = u32(at), desc_size = u32(at + 4);
    const std::uint32_t type = u32(at + 8);
    const std::uint64_t name_at = at + 12, desc_at = name_at + round_up(name_size, 4);
    const std::uint64_t next = desc_at + round_up(desc_size, 4);
    if (next > notes.size()) break;
    if (type == nt_gnu_build_id && name_size == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0)
      return hex(notes.subspan(desc_at, desc_size));
    at = next;
  }
  return "";
}

std::string running_kernel_build_id(const std::string& notes_path) {
  std::string problem;
  const auto bytes = read_small_file(notes_path, problem, 1 << 20);
  if (!bytes) return "";
  return build_id_in_notes(std::as_bytes(std::span(bytes->data(), bytes->size())));
}

std::vector<LoadedModule> loaded_kernel_modules(const std::string& path) {
  // "ext4 999424 1 - Live 0xffffffffc0a00000 (E)"
  std::vector<LoadedModule> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    LoadedModule m;
    std::string size, word;
    if (!(words >> m.name >> size)) continue;
    m.size = std::strtoull(size.c_str(), nullptr, 10);
    while (words >> word)
      if (word.rfind("0x", 0) == 0) {
        bool ok = false;
        m.start = parse_hex(std::string_view(word).substr(2), ok);
        break;
      }
    out.push_back(std::move(m));
  }
  return out;
}

std::string kernel_module_build_id(std::string_view module, const std::string& sys_module) {
  return running_kernel_build_id(fmt::format("{}/{}/notes/.note.gnu.build-id", sys_module, module));
}

/// Symbols as read, before perf's fix-ups decide their ends and which of
/// those at one address stays.
struct KernelSymbolsBuilder {
  enum class Binding : std::uint8_t { local, global, weak };
  struct Raw {
    std::uint64_t start = 0, end = 0;
    std::uint32_t name = 0, name_size = 0, module = 0, module_size = 0;
    char type = 'T';
    Binding binding = Binding::global;
    bool notype = false;  // an ELF label (STT_NOTYPE)
  };
  std::vector<char> names;
  std::vector<Raw> symbols;

  // The most a module's name may have: its length is a byte after the
  // symbol's name (KernelSymbol::module); the kernel's MODULE_NAME_LEN is 56.
  static constexpr std::size_t longest_module = 255;

  // A name, then its module's length and name.
  std::uint32_t store(std::string_view name, std::string_view module) {
    const auto at = static_cast<std::uint32_t>(names.size());
    names.insert(names.end(), name.begin(), name.end());
    names.push_back(static_cast<char>(static_cast<unsigned char>(module.size())));
    names.insert(names.end(), module.begin(), module.end());
    return at;
  }
  // `module` has at most longest_module bytes (the callers check it).
  void add(std::uint64_t start, std::uint64_t size, std::string_view name, std::string_view module, char type,
           Binding binding, bool notype) {
    const std::uint32_t at = store(name, module);
    Raw r{.start = start, .end = start + size, .name = at, .name_size = static_cast<std::uint32_t>(name.size()),
          .module = static_cast<std::uint32_t>(at + name.size() + 1),
          .module_size = static_cast<std::uint32_t>(module.size()), .type = type, .binding = binding,
          .notype = notype};
    symbols.push_back(r);
  }
  std::string_view name_of(const Raw& r) const { return {names.data() + r.name, r.name_size}; }

  // symbols__fixup_end(): a symbol without a size ends where the next
  // starts; in kallsyms, the last of the kernel or of a module ends a
  // page later instead of spanning the gap to the next.
  void fixup_end(bool kallsyms) {
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      Raw& prev = symbols[i];
      const Raw& curr = symbols[i + 1];
      if (prev.end != prev.start) continue;
      bool boundary = false;
      if (kallsyms) {
        const bool prev_in_module = prev.module_size != 0, curr_in_module = curr.module_size != 0;
        boundary = prev_in_module != curr_in_module || (prev_in_module && module_of(prev) != module_of(curr));
      }
      prev.end = boundary ? round_up(prev.end + page, page) : curr.start;
    }
    if (!symbols.empty() && symbols.back().end == symbols.back().start)
      symbols.back().end = round_up(symbols.back().start, page) + page;
  }
  std::string_view module_of(const Raw& r) const { return {names.data() + r.module, r.module_size}; }

  static std::size_t leading_underscores(std::string_view s) {
    const auto n = s.find_first_not_of('_');
    return n == std::string_view::npos ? s.size() : n;
  }
  // choose_best_symbol(): true when `a` is the one to keep.
  bool prefer_first(const Raw& a, const Raw& b) const {
    const bool a_sized = a.end > a.start, b_sized = b.end > b.start;
    if (a_sized != b_sized) return a_sized;
    if (a.notype != b.notype) return b.notype;
    const bool a_weak = a.binding == Binding::weak, b_weak = b.binding == Binding::weak;
    if (a_weak != b_weak) return b_weak;
    const bool a_global = a.binding == Binding::global, b_global = b.binding == Binding::global;
    if (a_global != b_global) return a_global;
    const std::string_view an = name_of(a), bn = name_of(b);
    if (leading_underscores(an) != leading_underscores(bn)) return leading_underscores(an) < leading_underscores(bn);
    if (an.size() != bn.size()) return an.size() > bn.size();
    // arch__choose_best_symbol(): not the SyS_ syscall aliases.
    return !(an.starts_with("SyS") || an.starts_with("compat_SyS"));
  }
  // symbols__fixup_duplicate(): one symbol per address; the others become
  // aliases (still found by name).
  std::vector<Raw> fixup_duplicate() {
    // In place (the kept ones are never more than those read): a second
    // table as large was the peak of a kallsyms' load.
    std::vector<Raw> dropped;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      const Raw r = symbols[i];
      if (kept == 0 || symbols[kept - 1].start != r.start) {
        symbols[kept++] = r;
      } else if (prefer_first(symbols[kept - 1], r)) {
        dropped.push_back(r);
      } else {
        dropped.push_back(symbols[kept - 1]);
        symbols[kept - 1] = r;
      }
    }
    symbols.resize(kept);
    return dropped;
  }

  KernelSymbols finish(bool kallsyms, std::string source, std::string build_id) {
    // A kallsyms lists the kernel's symbols in address order (its modules'
    // too, in most): a sorted table is left as it is (the same order a
    // stable sort keeps), where the sort's merges were a tenth of a flat
    // report of a -g capture.
    const auto by_start = [](const Raw& a, const Raw& b) { return a.start < b.start; };
    if (!std::is_sorted(symbols.begin(), symbols.end(), by_start))
      std::stable_sort(symbols.begin(), symbols.end(), by_start);
    fixup_end(kallsyms);
    std::vector<Raw> aliases = fixup_duplicate();
    KernelSymbols table;
    table.source_ = std::move(source);
    table.build_id_ = std::move(build_id);
    table.names_ = std::move(names);
    auto view = [&](std::uint32_t at, std::uint32_t n) { return std::string_view(table.names_.data() + at, n); };
    auto symbol = [&](const Raw& r) {
      return KernelSymbol{.start = r.start, .end = r.end, .name = view(r.name, r.name_size), .type = r.type};
    };
    table.symbols_.reserve(symbols.size());
    advise_huge_pages(table.symbols_.data(), table.symbols_.capacity() * sizeof(KernelSymbol));
    // The symbols read are given back 2 MiB at a time as they are copied,
    // so that the two tables are never both held whole: they were a third
    // of a report's peak memory when read while the capture is walked.
    constexpr std::size_t chunk = (std::size_t{2} << 20) / sizeof(Raw);
    for (std::size_t start = 0; start < symbols.size(); start += chunk) {
      const std::size_t end = std::min(symbols.size(), start + chunk);
      for (std::size_t i = start; i < end; ++i) table.symbols_.push_back(symbol(symbols[i]));
      give_back_pages(symbols.data() + start, symbols.data() + end);
    }
    std::vector<Raw>().swap(symbols);  // given back before the aliases are made
    table.aliases_.reserve(aliases.size());
    for (const Raw& r : aliases) table.aliases_.push_back(symbol(r));
    return table;
  }
};

namespace {

// A kallsyms' lines, parsed one at a time: from_kallsyms() hands them on
// as it reads, so that the file's text is never held whole (its 5-20 MB
// were a quarter of a flat report's peak memory on a -g capture).
class KallsymsParser {
 public:
  KallsymsParser(const std::string& name, std::size_t text_size) : name_(name) {
    // Room for every line at once (some 45 bytes a line): growing the
    // table a doubling at a time moved it and faulted in fresh pages again
    // and again; pages never written to cost nothing.
    builder_.symbols.reserve(text_size / 32);
    builder_.names.reserve(text_size);
    advise_huge_pages(builder_.symbols.data(), builder_.symbols.capacity() * sizeof(KernelSymbolsBuilder::Raw));
    advise_huge_pages(builder_.names.data(), builder_.names.capacity());
  }

  void line(std::string_view line) {
    using Binding = KernelSymbolsBuilder::Binding;
    ++line_number_;
    if (line.empty()) return;
    // "ADDRESS TYPE NAME" or "ADDRESS TYPE NAME\t[MODULE]"
    const auto space = line.find(' ');
    bool ok = space != std::string_view::npos && line.size() >= space + 4 && line[space + 2] == ' ';
    const std::uint64_t address = ok ? parse_hex(line.substr(0, space), ok) : 0;
    if (!ok)
      throw Error(fmt::format("{}:{}: expected 'ADDRESS TYPE NAME', found '{}'", name_, line_number_,
                              line.substr(0, 80)));
    ++lines_;
    any_address_ |= address != 0;
    const char type = line[space + 1];
    std::string_view symbol = line.substr(space + 3), module;
    if (const auto tab = symbol.find('\t'); tab != std::string_view::npos) {
      module = symbol.substr(tab + 1);
      symbol = symbol.substr(0, tab);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']') module = module.substr(1, module.size() - 2);
      if (module.size() > KernelSymbolsBuilder::longest_module)
        throw Error(fmt::format("{}:{}: a module's name of {} bytes (at most {}): '{}...'", name_, line_number_,
                                module.size(), KernelSymbolsBuilder::longest_module, module.substr(0, 40)));
    }
    // perf keeps text, weak, data and bss symbols (symbol_type__filter),
    // not ARM's local '$' symbols, nor x86's entry trampoline. (ASCII
    // letters without the locale's calls: one a line was 2% of a load.)
    const bool is_upper = type >= 'A' && type <= 'Z';
    const char upper = type >= 'a' && type <= 'z' ? static_cast<char>(type - 'a' + 'A') : type;
    if (upper != 'T' && upper != 'W' && upper != 'D' && upper != 'B') return;
    if (symbol.empty() || symbol.front() == '$' || symbol == "__entry_SYSCALL_64_trampoline") return;
    // kallsyms2elf_binding(): only 'W' is weak.
    const Binding binding = type == 'W' ? Binding::weak : is_upper ? Binding::global : Binding::local;
    builder_.add(address, 0, symbol, module, type, binding, false);
  }

  KernelSymbols finish() {
    if (lines_ > 0 && !any_address_)
      throw Error(ErrorCode::permission, fmt::format("{}: every address is 0: the kernel hides them from this user "
                              "(/proc/sys/kernel/kptr_restrict); read it as root, or use a copy made by root",
                              name_));
    return builder_.finish(true, name_, "");
  }

 private:
  const std::string& name_;
  KernelSymbolsBuilder builder_;
  std::size_t line_number_ = 0, lines_ = 0;
  bool any_address_ = false;
};

}  // namespace

KernelSymbols KernelSymbols::from_kallsyms(const std::string& path) {
  // A /proc/kallsyms is some 5-20 MB (100-300 k symbols, modules
  // included); a table costs some 8 times its text, so a larger file is
  // refused rather than read into gigabytes. Its size is not known before
  // it is read (stat says 0): room for 16 MiB is kept, not touched.
  constexpr std::size_t limit = std::size_t{64} << 20;
  const auto cannot = [&](const std::string& problem) {
    return Error(ErrorCode::io, fmt::format("{}: cannot read the kernel's symbols: {}", path, problem));
  };
  std::string problem;
  const int fd = open_regular_file(path, problem);
  if (fd < 0) throw cannot(problem);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  KallsymsParser parser(path, std::size_t{16} << 20);
  std::string pending;  // a line cut by the buffer's end
  std::size_t total = 0;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw cannot(std::strerror(errno));
    if (n == 0) break;
    total += static_cast<std::size_t>(n);
    if (total > limit) throw cannot(fmt::format("larger than {} MiB", limit >> 20));
    std::string_view chunk(buffer, static_cast<std::size_t>(n));
    for (auto eol = chunk.find('\n'); eol != std::string_view::npos; eol = chunk.find('\n')) {
      if (pending.empty()) {
        parser.line(chunk.substr(0, eol));
      } else {
        pending.append(chunk.substr(0, eol));
        parser.line(pending);
        pending.clear();
      }
      chunk.remove_prefix(eol + 1);
    }
    pending.append(chunk);
  }
  if (!pending.empty()) parser.line(pending);
  return parser.finish();
}

KernelSymbols KernelSymbols::parse_kallsyms(std::string_view text, const std::string& name) {
  KallsymsParser parser(name, text.size());
  while (!text.empty()) {
    const auto eol = text.find('\n');
    parser.line(text.substr(0, eol));
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
  }
  return parser.finish();
}

KernelSymbols KernelSymbols::from_vmlinux(const std::string& path) {
  using Binding = KernelSymbolsBuilder::Binding;
  // A vmlinux cut short while it is read gives zeros, not SIGBUS; and its
  // symbols are then refused (below).
  const perf_data::ZeroFillScope zero_fill;
  const ElfFile file(path);
  Elf* elf = file.elf();

  Elf_Scn* symtab = nullptr;
  GElf_Shdr symtab_header{};
  for (const Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* s = elf_nextscn(elf, nullptr); s && !symtab; s = elf_nextscn(elf, s)) {
      GElf_Shdr h;
      if (gelf_getshdr(s, &h) && h.sh_type == wanted) symtab = s, symtab_header = h;
    }
    if (symtab) break;
  }
  if (!symtab) throw Error(fmt::format("{}: has no symbol table (.symtab or .dynsym)", path));
  Elf_Data* data = elf_getdata(symtab, nullptr);
  if (!data || symtab_header.sh_entsize == 0) throw Error(fmt::format("{}: unreadable symbol table", path));

  KernelSymbolsBuilder b;
  const std::size_t count = symtab_header.sh_size / symtab_header.sh_entsize;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
    const unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
    const unsigned visibility = GELF_ST_VISIBILITY(sym.st_other);
    if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
    const bool code = type == STT_FUNC || type == STT_GNU_IFUNC;
    // perf keeps functions, objects and (in a kernel) labels: untyped
    // symbols of a section, visible (elf_sym__is_label).
    const bool label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS && visibility != STV_HIDDEN &&
                       visibility != STV_INTERNAL;
    if (!code && type != STT_OBJECT && !label) continue;
    bool exec = code, nobits = false;
    if (sym.st_shndx < SHN_LORESERVE) {
      GElf_Shdr h;
      Elf_Scn* section = elf_getscn(elf, sym.st_shndx);
      if (!section || !gelf_getshdr(section, &h) || !(h.sh_flags & SHF_ALLOC)) continue;
      exec = (h.sh_flags & SHF_EXECINSTR) != 0;
      nobits = h.sh_type == SHT_NOBITS;
    }
    const char* name = elf_strptr(elf, symtab_header.sh_link, sym.st_name);
    if (!name || !*name) continue;
    const Binding binding = bind == STB_WEAK ? Binding::weak : bind == STB_LOCAL ? Binding::local : Binding::global;
    char letter = exec ? 'T' : nobits ? 'B' : 'D';
    if (binding == Binding::weak) letter = exec ? 'W' : 'V';
    else if (binding == Binding::local) letter = static_cast<char>(std::tolower(letter));
    b.add(sym.st_value, sym.st_size, name, "", letter, binding, type == STT_NOTYPE);
  }
  if (b.symbols.empty()) throw Error(fmt::format("{}: no function or object symbols", path));
  const void* id = nullptr;
  const ssize_t id_size = dwelf_elf_gnu_build_id(elf, &id);
  std::string build_id =
      id_size > 0 ? hex(std::span(static_cast<const std::byte*>(id), static_cast<std::size_t>(id_size))) : "";
  std::size_t size = 0;
  if (const char* image = elf_rawfile(elf, &size); image && perf_data::ZeroFillScope::faulted_within(image, size))
    throw Error(ErrorCode::io, fmt::format("{}: the file shrank while it was read: its symbols are not used", path));
  return b.finish(false, path, std::move(build_id));
}

std::optional<KernelSymbolHit> KernelSymbols::find(std::uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](std::uint64_t a, const KernelSymbol& s) { return a < s.start; });
  if (it == symbols_.begin()) return std::nullopt;
  const KernelSymbol& s = *--it;
  if (address < s.end || address == s.start) return KernelSymbolHit{&s, address - s.start};
  return std::nullopt;
}

std::vector<std::optional<KernelSymbolHit>> KernelSymbols::find_sorted(std::span<const std::uint64_t> addresses) const {
  if (!std::is_sorted(addresses.begin(), addresses.end()))
    throw Error("kernel symbols: find_sorted() needs the addresses in ascending order");
  std::vector<std::optional<KernelSymbolHit>> out(addresses.size());
  const auto starts_past = [](std::uint64_t a, const KernelSymbol& s) { return a < s.start; };
  std::size_t next = 0;  // the first symbol that starts past the address
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::uint64_t a = addresses[i];
    // Galloping: a report's few kernel addresses skip most of a table of
    // 100-300 k symbols (a step at a time, that walk was 3% of a flat
    // report); many addresses close together cost a step or two each.
    std::size_t step = 1, from = next;
    while (next < symbols_.size() && symbols_[next].start <= a) {
      from = next;
      next = std::min(symbols_.size(), next + step);
      step *= 2;
    }
    next = static_cast<std::size_t>(
        std::upper_bound(symbols_.begin() + static_cast<std::ptrdiff_t>(from),
                         symbols_.begin() + static_cast<std::ptrdiff_t>(next), a, starts_past) -
        symbols_.begin());
    if (next == 0) continue;
    const KernelSymbol& s = symbols_[next - 1];
    if (a < s.end || a == s.start) out[i] = KernelSymbolHit{&s, a - s.start};
  }
  return out;
}

std::optional<std::uint64_t> KernelSymbols::address_of(std::string_view name) const {
  for (const auto* list : {&symbols_, &aliases_})
    for (const KernelSymbol& s : *list)
      if (s.name == name) return s.start;
  return std::nullopt;
}

void KernelSymbols::relocate(std::int64_t delta) {
  const auto d = static_cast<std::uint64_t>(delta);
  for (auto* list : {&symbols_, &aliases_})
    for (KernelSymbol& s : *list) s.start += d, s.end += d;
}

std::optional<KernelText> running_kernel_text(const std::string& kallsyms) {
  std::ifstream in(kallsyms);
  std::string line;
  KernelText text;
  while (std::getline(in, line) && (!text.start || !text.end)) {
    // "ffffffff81000000 T _text"
    const auto space = line.find(' ');
    if (space == std::string::npos || line.size() < space + 4) continue;
    const std::string_view symbol = std::string_view(line).substr(space + 3);
    if (symbol != "_text" && symbol != "_etext") continue;
    bool ok = false;
    const std::uint64_t address = parse_hex(std::string_view(line).substr(0, space), ok);
    if (ok) (symbol == "_text" ? text.start : text.end) = address;
  }
  if (!text.start || !text.end || text.end <= text.start) return std::nullopt;
  return text;
}

KernelSymbolSearchResult find_kernel_symbols(std::string_view build_id, const KernelSymbolSearch& search) {
  KernelSymbolSearchResult result;
  auto usable_vmlinux = [&](const std::string& path, const std::string& why) {
    std::string problem;
    const auto id = file_build_id(path, problem);
    if (!id) result.rejected.push_back(fmt::format("{}: {}", path, problem));
    else if (!build_id.empty() && !same_build_id(*id, build_id))
      result.rejected.push_back(fmt::format("{}: build-id {}, not the recorded {}", path, id->empty() ? "none" : *id,
                                            build_id));
    else result.found = KernelSymbolSource{path, true, why};
    return result.found.has_value();
  };
  if (!search.kallsyms.empty()) {
    result.found = KernelSymbolSource{search.kallsyms, false, "--kallsyms"};
    return result;
  }
  if (!search.vmlinux.empty() && usable_vmlinux(search.vmlinux, "--vmlinux")) return result;
  // perf's vmlinux_path (symbol.c vmlinux_path__init), each under symfs.
  std::vector<std::string> paths = {"vmlinux", "/boot/vmlinux"};
  // The release names a file of each place: a capture's "../.." would
  // lead out of --symfs, so one that could is not used.
  const std::string_view release = search.os_release;
  const bool usable_release = !release.empty() && release != "." && release != ".." &&
                              std::none_of(release.begin(), release.end(), [](char c) {
                                return c == '/' || static_cast<unsigned char>(c) < 0x20;
                              });
  if (!release.empty() && !usable_release)
    result.rejected.push_back(fmt::format("the capture's OS release '{}' is not a release's name (it holds a '/' or a "
                                          "control character, or is '.' or '..'): perf's places named by the release "
                                          "were not searched",
                                          printable(release)));
  if (usable_release)
    for (const char* form : {"/boot/vmlinux-{}", "/usr/lib/debug/boot/vmlinux-{}", "/lib/modules/{}/build/vmlinux",
                             "/usr/lib/debug/lib/modules/{}/vmlinux", "/usr/lib/debug/boot/vmlinux-{}.debug"})
      paths.push_back(fmt::format(fmt::runtime(form), search.os_release));
  for (const std::string& p : paths) {
    const std::string path = p.front() == '/' ? search.files.symfs + p : p;
    if (exists(path) && usable_vmlinux(path, "a vmlinux in perf's places")) return result;
  }
  // perf does not fall back to this machine's files when given a symfs.
  if (!search.files.symfs.empty()) {
    result.rejected.push_back(fmt::format("{}: no vmlinux there, and the running kernel's kallsyms is not used "
                                          "with --symfs", search.files.symfs));
    return result;
  }
  // The kallsyms perf record kept of the capture's kernel.
  const auto cached = [&]() -> std::optional<KernelSymbolSource> {
    if (build_id.empty() || search.files.build_id_dir.empty()) return std::nullopt;
    std::string path = fmt::format("{}/[kernel.kallsyms]/{}/kallsyms", search.files.build_id_dir, build_id);
    if (!exists(path)) return std::nullopt;
    return KernelSymbolSource{std::move(path), false, "perf's build-id cache"};
  };
  const std::string running = running_kernel_build_id(search.running_notes);
  if (build_id.empty() || same_build_id(running, build_id)) {
    const KernelSymbolSource proc{search.running_kallsyms, false,
                                  build_id.empty() ? "the running kernel's (the capture records no kernel build-id)"
                                                   : "the running kernel's (the same build-id)"};
    if (auto copy = cached()) {
      result.found = std::move(copy);
      result.found->why = "perf's build-id cache (the running kernel's build-id)";
      result.fallback = proc;
    } else {
      result.found = proc;
    }
    return result;
  }
  result.rejected.push_back(fmt::format("{}: the running kernel's build-id is {}, not the recorded {}",
                                        search.running_kallsyms, running.empty() ? "unknown" : running, build_id));
  result.found = cached();
  return result;
}

KernelSymbols load_kernel_symbols(const KernelSymbolSource& source) {
  return source.vmlinux ? KernelSymbols::from_vmlinux(source.path) : KernelSymbols::from_kallsyms(source.path);
}

}  // namespace tagop
