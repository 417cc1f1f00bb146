// Rows from the walk's tallies. Every distinct (space, address), of the
// samples and of their call chains, is resolved once, with the mappings of
// its space's time; each module's addresses are named in one pass over its
// symbol table, in address order; rows are integers (RowKey), named only
// when shown.

#include <sys/stat.h>  // stat

#include <algorithm>      // std::sort, std::unique
#include <unordered_map>  // std::unordered_map

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error
#include <tagop/symbol_files.hpp>  // find_symbol_files

#include "../demangle.hpp"  // demangle_short
#include "kernel_address.hpp"
#include "radix_sort.hpp"
#include "report_state.hpp"

namespace tagop::report {

namespace {

// A call chain's context markers (PERF_CONTEXT_KERNEL, _USER ...) lie
// above PERF_CONTEXT_MAX (-4095).
constexpr std::uint64_t context_max = static_cast<std::uint64_t>(-4095);
constexpr std::uint32_t none = 0xFFFFFFFFu;
constexpr std::uint32_t frame_bit = 0x80000000u;

// An address placed in its module (identity_key's index): sorted by
// module and offset, so that each module's symbols are read in one sweep.
struct Placed {
  std::uint32_t identity;
  std::uint64_t offset;
  std::uint32_t address;
};

std::string identity_key(const MappedModule& m) {
  if (!m.build_id.empty()) {
    // perf pads a 16-byte id to 20 bytes with zeros in some records only.
    std::string id = m.build_id;
    while (id.size() > 32 && id.ends_with("00")) id.resize(id.size() - 2);
    return "b" + id;
  }
  struct stat st {};
  if (!m.kernel && !m.filename.empty() && m.filename[0] == '/' && ::stat(m.filename.c_str(), &st) == 0)
    return fmt::format("i{}:{}", st.st_dev, st.st_ino);
  return (m.kernel ? "k" : "p") + m.filename;
}

// Distinct 64-bit keys to dense ids, in the order they are first met: a
// flat open-addressing table (std::unordered_map allocated a node per
// key, 93 k of them for a build's call chains).
class KeyIds {
 public:
  explicit KeyIds(std::size_t expected) {
    std::size_t n = 1024;
    while (n < expected * 2) n *= 2;
    slots_ = Slots(n);
    mask_ = n - 1;
  }
  std::uint32_t id(std::uint64_t key) {
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id_plus_one == 0) {
        s = {key, ++size_};
        if (std::size_t{size_} * 2 > slots_.size()) grow();
        return size_ - 1;
      }
      if (s.key == key) return s.id_plus_one - 1;
    }
  }
  std::uint32_t size() const { return size_; }
  /// Calls f(key, id) for every key.
  template <typename F>
  void each(F f) const {
    for (const Slot& s : slots_)
      if (s.id_plus_one) f(s.key, s.id_plus_one - 1);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t id_plus_one = 0;  // 0: empty
  };
  static std::size_t hash(std::uint64_t key) {
    const std::uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  void grow() {
    Slots old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.id_plus_one) continue;
      std::size_t i = hash(s.key) & mask_;
      while (slots_[i].id_plus_one) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  // Huge pages: a table of 4 MiB in fresh 4 KiB pages, a fault each, was
  // a third of this step's time.
  using Slots = std::vector<Slot, HugePageAllocator<Slot>>;
  Slots slots_;
  std::size_t mask_ = 0;
  std::uint32_t size_ = 0;
};

class RowMaker {
 public:
  RowMaker(Report::State& s, const SpaceLog& spaces, std::span<const std::shared_ptr<SymbolSource>> sources)
      : s_(s), spaces_(spaces), sources_(sources) {}

  void make() {
    const std::size_t count = s_.entries.size();
    if (count >= frame_bit) throw Error(ErrorCode::resource, "more than 2^31 distinct tallies in one report");
    s_.entry_row.assign(count, 0);
    if (s_.by == GroupBy::process && s_.keys.size() == 1) {
      for (std::size_t i = 0; i < count; ++i) {
        const Space& space = spaces_.space(s_.entries[i].space);
        s_.entry_row[i] = row({RowKey::Type::process, space.pid, space.comm});
      }
      s_.comms = spaces_.comms();
      group(s_.row_start, s_.row_entries, [&](auto add) {
        for (std::uint32_t i = 0; i < count; ++i) add(s_.entry_row[i], i);
      });
      return;
    }
    if (s_.by == GroupBy::process || s_.by == GroupBy::thread || s_.by == GroupBy::cpu) {
      // Process, thread and cpu keys only: one row, split by them.
      const std::uint32_t all = row({RowKey::Type::parts, 0, 0});
      s_.entry_row.assign(count, all);
      split_rows();
      group(s_.row_start, s_.row_entries, [&](auto add) {
        for (std::uint32_t i = 0; i < count; ++i) add(s_.entry_row[i], i);
      });
      return;
    }
    collect_addresses();
    resolve();
    if (data_view()) {
      // The code addresses' functions first (the rows that Report::line()
      // names), then every address's data row.
      std::vector<bool> code(address_ip_.size());
      for (std::uint32_t a : frame_address_) code[a] = true;
      name_addresses(GroupBy::function, &code);
      s_.entry_code_row.assign(count, none);
      for (std::size_t i = 0; i < count; ++i)
        if (has_code_[i]) s_.entry_code_row[i] = address_row_[frame_address_[i]];
      std::vector<bool> data(address_ip_.size());
      for (std::uint32_t a : entry_address_) data[a] = true;
      name_data(data);
    } else {
      name_addresses(s_.by == GroupBy::callchain ? GroupBy::function : s_.by);
    }
    const bool callchain = s_.by == GroupBy::callchain;
    for (std::size_t i = 0; i < count; ++i)
      s_.entry_row[i] = callchain ? chain_row(static_cast<std::uint32_t>(i)) : address_row_[entry_address_[i]];
    if (s_.by_process || s_.split_thread || s_.split_cpu) split_rows();
    group(s_.row_start, s_.row_entries, [&](auto add) {
      for (std::uint32_t i = 0; i < count; ++i) add(s_.entry_row[i], i);
    });
    if (s_.children && !callchain && !s_.by_process) children();
  }

 private:
  // Each entry's row, made its row in the entry's process (an entry's
  // space is one process's), thread and CPU, as the keys ask. The unsplit
  // rows stay, without entries: call chains' frames name them.
  void split_rows() {
    for (std::size_t i = 0; i < s_.entries.size(); ++i) {
      RowKey key = s_.rows[s_.entry_row[i]];
      if (s_.by_process) {
        const Space& space = spaces_.space(s_.entries[i].space);
        key.process = space.pid + 1;
        key.comm = space.comm;
      }
      if (s_.split_thread) key.thread = s_.entry_tid[i] + 1;
      if (s_.split_cpu) key.cpu = s_.entry_cpu[i] + 1;
      s_.entry_row[i] = row(key);
    }
    s_.comms = spaces_.comms();
  }

  // The row of `key`, a new one when it has none: a flat open-addressing
  // table of row ids (std::unordered_map, a node each, was a tenth of a
  // report --children of a build's capture, 129 k addresses).
  std::uint32_t row(const RowKey& key) {
    const std::size_t h = RowKeyHash{}(key);
    for (std::size_t i = h & row_mask_;; i = (i + 1) & row_mask_) {
      RowSlot& slot = row_slots_[i];
      if (slot.id_plus_one == 0) {
        const auto id = static_cast<std::uint32_t>(s_.rows.size());
        slot = {static_cast<std::uint32_t>(h), id + 1};
        s_.rows.push_back(key);
        if (s_.rows.size() * 2 > row_slots_.size()) grow_rows();
        return id;
      }
      if (slot.hash == static_cast<std::uint32_t>(h) && s_.rows[slot.id_plus_one - 1] == key) return slot.id_plus_one - 1;
    }
  }
  void grow_rows() {
    std::vector<RowSlot> old(row_slots_.size() * 2);
    old.swap(row_slots_);
    row_mask_ = row_slots_.size() - 1;
    for (const RowSlot& slot : old) {
      if (!slot.id_plus_one) continue;
      std::size_t i = RowKeyHash{}(s_.rows[slot.id_plus_one - 1]) & row_mask_;
      while (row_slots_[i].id_plus_one) i = (i + 1) & row_mask_;
      row_slots_[i] = slot;
    }
  }

  // Rows -> items as offsets and a list (compressed rows): `each(add)`
  // calls add(row, item) for every pair.
  template <typename Each>
  void group(std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& items, Each each) {
    start.assign(s_.rows.size() + 1, 0);
    each([&](std::uint32_t r, std::uint32_t) { ++start[r + 1]; });
    for (std::size_t r = 0; r < s_.rows.size(); ++r) start[r + 1] += start[r];
    items.assign(start.back(), 0);
    std::vector<std::uint32_t> at(start.begin(), start.end() - 1);
    each([&](std::uint32_t r, std::uint32_t item) { items[at[r]++] = item; });
  }

  bool chains_needed() const { return (s_.children || s_.by == GroupBy::callchain) && s_.chains.size() > 1; }

  // Every distinct (space, ip): entry_address_ and frame_address_ name them.
  // The ips are named once each (an id, in ip order), and each space's
  // distinct ids are collected by a mark per id: sorting a reference per
  // frame of every distinct (space, chain) by (space, ip) took a fifth of
  // a report --children of a build's capture (342 k frames, 129 k
  // addresses, 87 k ips, 216 spaces).
  void collect_addresses() {
    const auto entry_count = static_cast<std::uint32_t>(s_.entries.size());
    KeyIds ips(entry_count);
    std::vector<std::uint32_t> entry_ip(entry_count);
    for (std::uint32_t i = 0; i < entry_count; ++i) entry_ip[i] = ips.id(s_.entries[i].ip);
    // Each use's (distinct (space, chain)) frames' ip ids, by slot.
    std::vector<std::uint32_t> slot_ip, use_space;
    if (chains_needed()) {
      KeyIds uses(entry_count);
      // A chain's first use, whose ids a use of it in another space copies.
      std::vector<std::uint32_t> chain_use(s_.chains.size(), none);
      use_start_.push_back(0);
      use_of_entry_.assign(entry_count, none);
      for (std::uint32_t i = 0; i < entry_count; ++i) {
        const Entry& e = s_.entries[i];
        if (!e.chain) continue;
        const std::uint32_t use = uses.id(std::uint64_t{e.space} << 32 | e.chain);
        use_of_entry_[i] = use;
        if (use + 1 < use_start_.size()) continue;  // met before
        use_space.push_back(e.space);
        if (const std::uint32_t first = chain_use[e.chain]; first != none) {
          for (std::uint32_t slot = use_start_[first]; slot < use_start_[first + 1]; ++slot)
            slot_ip.push_back(slot_ip[slot]);
        } else {
          chain_use[e.chain] = use;
          for (std::uint64_t ip : s_.chains.frames(e.chain))
            if (ip < context_max) slot_ip.push_back(ips.id(ip));
        }
        if (slot_ip.size() >= frame_bit) throw Error(ErrorCode::resource, "more than 2^31 call chain frames in one report");
        use_start_.push_back(static_cast<std::uint32_t>(slot_ip.size()));
      }
      frame_address_.assign(slot_ip.size(), 0);
    }
    // Data views: each entry's code address (the walk's pair: code,
    // access), a frame of its own: frame_address_ by entry.
    std::vector<std::uint32_t> code_ip;
    if (data_view()) {
      has_code_.assign(entry_count, false);
      frame_address_.assign(entry_count, 0);
      code_ip.assign(entry_count, none);
      for (std::uint32_t i = 0; i < entry_count; ++i) {
        const std::span<const std::uint64_t> pair = s_.chains.frames(s_.entries[i].chain);
        if (pair.size() != 2) continue;
        has_code_[i] = true;
        code_ip[i] = ips.id(pair[0]);
      }
    }
    // The ids renumbered in ip order.
    const std::uint32_t ip_count = ips.size();
    std::vector<std::uint64_t> ip_of(ip_count);
    {
      struct IdIp {
        std::uint64_t ip;
        std::uint32_t id;
      };
      std::vector<IdIp> by_ip(ip_count);
      ips.each([&](std::uint64_t ip, std::uint32_t id) { by_ip[id] = {ip, id}; });
      radix_sort(by_ip, [](const IdIp& x) { return x.ip; });
      std::vector<std::uint32_t> renumber(ip_count);
      for (std::uint32_t r = 0; r < ip_count; ++r) {
        renumber[by_ip[r].id] = r;
        ip_of[r] = by_ip[r].ip;
      }
      for (std::uint32_t& id : entry_ip) id = renumber[id];
      for (std::uint32_t& id : slot_ip) id = renumber[id];
      for (std::uint32_t& id : code_ip)
        if (id != none) id = renumber[id];
    }
    // By space, in the order the replay meets the spaces' states, then by
    // address.
    const auto space_count = static_cast<std::uint32_t>(spaces_.space_count());
    std::vector<std::uint32_t> order(space_count), rank(space_count);
    for (std::uint32_t i = 0; i < space_count; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const std::uint32_t pa = spaces_.space(a).position, pb = spaces_.space(b).position;
      return pa != pb ? pa < pb : a < b;
    });
    for (std::uint32_t r = 0; r < space_count; ++r) rank[order[r]] = r;
    // The entries and the uses by their space's rank (counting sorts).
    auto by_rank = [&](std::uint32_t n, auto space_of, std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& items) {
      start.assign(space_count + 1, 0);
      for (std::uint32_t i = 0; i < n; ++i) ++start[rank[space_of(i)] + 1];
      for (std::uint32_t r = 0; r < space_count; ++r) start[r + 1] += start[r];
      items.resize(n);
      std::vector<std::uint32_t> at(start.begin(), start.end() - 1);
      for (std::uint32_t i = 0; i < n; ++i) items[at[rank[space_of(i)]]++] = i;
    };
    std::vector<std::uint32_t> entry_start, entries_ranked, use_first, uses_ranked;
    by_rank(entry_count, [&](std::uint32_t i) { return s_.entries[i].space; }, entry_start, entries_ranked);
    by_rank(static_cast<std::uint32_t>(use_space.size()), [&](std::uint32_t u) { return use_space[u]; }, use_first,
            uses_ranked);
    // Space by space: its distinct ids (marked with the rank + 1), in
    // order, each an address.
    std::vector<std::uint32_t> mark(ip_count, 0), address_of(ip_count, 0), distinct;
    entry_address_.assign(entry_count, 0);
    for (std::uint32_t r = 0; r < space_count; ++r) {
      const std::uint32_t stamp = r + 1;
      distinct.clear();
      auto take = [&](std::uint32_t id) {
        if (mark[id] == stamp) return;
        mark[id] = stamp;
        distinct.push_back(id);
      };
      for (std::uint32_t k = entry_start[r]; k < entry_start[r + 1]; ++k) {
        const std::uint32_t i = entries_ranked[k];
        take(entry_ip[i]);
        if (!code_ip.empty() && code_ip[i] != none) take(code_ip[i]);
      }
      for (std::uint32_t k = use_first[r]; k < use_first[r + 1]; ++k) {
        const std::uint32_t u = uses_ranked[k];
        for (std::uint32_t slot = use_start_[u]; slot < use_start_[u + 1]; ++slot) take(slot_ip[slot]);
      }
      if (distinct.empty()) continue;
      std::sort(distinct.begin(), distinct.end());
      const std::uint32_t space = order[r];
      for (std::uint32_t id : distinct) {
        address_of[id] = static_cast<std::uint32_t>(address_ip_.size());
        address_ip_.push_back(ip_of[id]);
        address_space_.push_back(space);
      }
      for (std::uint32_t k = entry_start[r]; k < entry_start[r + 1]; ++k) {
        const std::uint32_t i = entries_ranked[k];
        entry_address_[i] = address_of[entry_ip[i]];
        if (!code_ip.empty() && code_ip[i] != none) frame_address_[i] = address_of[code_ip[i]];
      }
      for (std::uint32_t k = use_first[r]; k < use_first[r + 1]; ++k) {
        const std::uint32_t u = uses_ranked[k];
        for (std::uint32_t slot = use_start_[u]; slot < use_start_[u + 1]; ++slot)
          frame_address_[slot] = address_of[slot_ip[slot]];
      }
    }
  }

  // Each address's module and offset, with the mappings of its space's time.
  void resolve() {
    SpaceLog::Replay replay(spaces_);
    module_.assign(address_ip_.size(), none);
    offset_.assign(address_ip_.size(), 0);
    const ProcessTable* table = nullptr;
    for (std::size_t a = 0; a < address_ip_.size(); ++a) {
      if (a == 0 || address_space_[a] != address_space_[a - 1]) table = &replay.at(address_space_[a]);
      const std::uint64_t ip = address_ip_[a];
      if (const Mapping* m = table->find(spaces_.space(address_space_[a]).pid, ip)) {
        module_[a] = m->module;
        offset_[a] = m->file_offset(ip);
      } else {
        offset_[a] = ip;
      }
    }
    s_.modules = replay.table().modules();
    std::unordered_map<std::string, std::uint32_t> identities;
    for (std::uint32_t m = 0; m < s_.modules.size(); ++m) {
      auto [it, fresh] = identities.try_emplace(identity_key(s_.modules[m]), static_cast<std::uint32_t>(s_.identities.size()));
      if (fresh) s_.identities.emplace_back();
      s_.identities[it->second].modules.push_back(m);
      s_.identity_of_module.push_back(it->second);
    }
  }

  SymbolTable* symbols(std::uint32_t identity) {
    ModuleIdentity& id = s_.identities[identity];
    if (id.tried) return id.symbols.get();
    id.tried = true;
    // The first of its paths that a source opens; one warning at most.
    std::string said;
    for (std::uint32_t m : id.modules) {
      const MappedModule& mm = s_.modules[m];
      const ModuleRef ref = ModuleRef::of(mm);
      for (const auto& source : sources_) {
        std::string problem;
        id.symbols = source->open(ref, problem);
        if (id.symbols && !problem.empty()) s_.warnings.push_back(fmt::format("{}: {}", mm.filename, problem));
        if (id.symbols) return id.symbols.get();
        if (!problem.empty() && said.empty()) said = fmt::format("{} is not used for symbols ({}): its samples show as "
                                                                 "module+offset", mm.filename, problem);
      }
    }
    if (!said.empty()) s_.warnings.push_back(said);
    return nullptr;
  }

  // Each address's row, by what the report groups by.
  bool data_view() const { return s_.by == GroupBy::data || s_.by == GroupBy::cacheline; }

  // Each address's row, by `by` (function, module, address or line); with
  // `only`, only the addresses it marks.
  void name_addresses(GroupBy by, const std::vector<bool>* only = nullptr) {
    const std::size_t count = address_ip_.size();
    address_row_.assign(count, 0);
    std::vector<Placed, HugePageAllocator<Placed>> placed;
    placed.reserve(count);
    for (std::uint32_t a = 0; a < count; ++a) {
      if (only && !(*only)[a]) continue;
      if (module_[a] == none) {
        const std::uint64_t ip = address_ip_[a];
        address_row_[a] = row({RowKey::Type::unmapped, kernel_address(ip) ? 1u : 0u, by == GroupBy::module ? 0 : ip});
        continue;
      }
      const std::uint32_t identity = s_.identity_of_module[module_[a]];
      if (by == GroupBy::module) address_row_[a] = row({RowKey::Type::module, identity, 0});
      else if (by == GroupBy::address) address_row_[a] = row({RowKey::Type::address, identity, offset_[a]});
      else placed.push_back({identity, offset_[a], a});
    }
    // By module, then by offset: each module's in one pass over its symbols.
    radix_sort(placed, [](const Placed& p) { return p.offset; });
    radix_sort(placed, [](const Placed& p) { return p.identity; });
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> functions;
    std::vector<SymbolTable::Line> lines;
    for (std::size_t begin = 0, end = 0; begin < placed.size(); begin = end) {
      const std::uint32_t identity = placed[begin].identity;
      offsets.clear();
      for (end = begin; end < placed.size() && placed[end].identity == identity; ++end) offsets.push_back(placed[end].offset);
      const SymbolTable* table = symbols(identity);
      if (table && by == GroupBy::function) {
        functions.resize(offsets.size());
        table->functions(offsets, functions);
      } else if (table) {
        lines.resize(offsets.size());
        table->lines(offsets, lines);
      }
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t k = i - begin;
        RowKey key{RowKey::Type::address, identity, placed[i].offset};
        if (table && by == GroupBy::function && functions[k] != SymbolTable::none)
          key = {RowKey::Type::function, identity, functions[k]};
        else if (table && by == GroupBy::line && lines[k].file != SymbolTable::none)
          key = {RowKey::Type::line, identity, std::uint64_t{lines[k].file} << 32 | lines[k].line};
        address_row_[placed[i].address] = row(key);
      }
    }
  }

  std::uint32_t region(std::string_view name) {
    auto it = std::find(s_.regions.begin(), s_.regions.end(), name);
    if (it == s_.regions.end()) it = s_.regions.insert(it, std::string(name));
    return row({RowKey::Type::region, 0, static_cast<std::uint64_t>(it - s_.regions.begin())});
  }

  // A mapping without a file, by its name as perf's MMAP2 record gives it
  // ("[heap]", "[stack]", "//anon", "[anon:name]", "[vdso]"), as a data
  // row names it: nullopt for a file.
  static std::optional<std::string> region_name(const MappedModule& m) {
    if (m.kernel) return "[kernel]";
    const std::string& f = m.filename;
    if (f.empty() || f.starts_with("//anon") || f.starts_with("[anon")) return "[anon]";
    if (f[0] != '/') return f;
    return std::nullopt;
  }

  DataObjects* data_objects(std::uint32_t identity) {
    if (s_.data_objects.size() <= identity) s_.data_objects.resize(s_.identities.size());
    if (tried_objects_.size() <= identity) tried_objects_.resize(s_.identities.size());
    if (tried_objects_[identity]) return s_.data_objects[identity].get();
    tried_objects_[identity] = true;
    const MappedModule& m = s_.modules[s_.identities[identity].modules.front()];
    const SymbolFileSearchResult found = find_symbol_files(m.filename, m.build_id, s_.data_files);
    std::string why;
    for (const SymbolFile& file : found.files) {
      try {
        s_.data_objects[identity] = DataObjects::open(file.path);
        return s_.data_objects[identity].get();
      } catch (const Error& e) {
        why = e.what();
      }
    }
    if (why.empty() && !found.rejected.empty()) why = found.rejected.front();
    if (!why.empty())
      s_.warnings.push_back(fmt::format("{} is not used for data objects ({}): its data addresses show as "
                                        "module+offset",
                                        m.filename, why));
    return nullptr;
  }

  // Each data address's row (GroupBy::data), or its cache line's
  // (GroupBy::cacheline, named by the object of its lowest address): the
  // addresses `data` marks (the others are code addresses).
  void name_data(const std::vector<bool>& data) {
    const std::size_t count = address_ip_.size();
    address_row_.assign(count, 0);
    std::vector<Placed> placed;
    for (std::uint32_t a = 0; a < count; ++a) {
      if (!data[a]) continue;
      const std::uint64_t ip = address_ip_[a];
      if (ip == 0) address_row_[a] = region("[no data address]");
      else if (module_[a] == none) address_row_[a] = region(kernel_address(ip) ? "[kernel]" : "[unknown]");
      else if (const auto name = region_name(s_.modules[module_[a]])) address_row_[a] = region(*name);
      else placed.push_back({s_.identity_of_module[module_[a]], offset_[a], a});
    }
    std::sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) {
      return x.identity != y.identity ? x.identity < y.identity : x.offset < y.offset;
    });
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> objects;
    for (std::size_t begin = 0, end = 0; begin < placed.size(); begin = end) {
      const std::uint32_t identity = placed[begin].identity;
      offsets.clear();
      for (end = begin; end < placed.size() && placed[end].identity == identity; ++end)
        offsets.push_back(placed[end].offset);
      objects.assign(offsets.size(), DataObjects::none);
      if (const DataObjects* table = data_objects(identity)) table->find(offsets, objects);
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t object = objects[i - begin];
        address_row_[placed[i].address] = object == DataObjects::none
                                              ? row({RowKey::Type::address, identity, placed[i].offset})
                                              : row({RowKey::Type::data_object, identity, object});
      }
    }
    if (s_.by != GroupBy::cacheline) return;
    // The addresses ascend within a space: a line's first is its lowest.
    std::unordered_map<std::uint64_t, std::uint32_t> lines;
    for (std::uint32_t a = 0; a < count; ++a) {
      if (!data[a]) continue;
      const std::uint64_t line = address_ip_[a] & ~std::uint64_t{63};
      auto [it, fresh] = lines.try_emplace(line, 0);
      if (fresh) it->second = row({RowKey::Type::cacheline, address_row_[a], line});
      address_row_[a] = it->second;
    }
  }

  // The rows of an entry's call chain, from its sample's own row outward;
  // the chain's first frame is usually the sample's address itself.
  void chain_of(std::uint32_t entry, std::vector<std::uint32_t>& out) const {
    out.clear();
    out.push_back(address_row_[entry_address_[entry]]);
    if (use_of_entry_.empty() || use_of_entry_[entry] == none) return;
    const std::uint32_t use = use_of_entry_[entry];
    for (std::uint32_t slot = use_start_[use]; slot < use_start_[use + 1]; ++slot) {
      const std::uint32_t a = frame_address_[slot];
      if (slot == use_start_[use] && a == entry_address_[entry]) continue;
      out.push_back(address_row_[a]);
    }
  }

  // The row of the entry's chain of rows, root first: looked up without a
  // copy, in a flat open-addressing table of chain_rows' indexes, copied
  // only when new (a std::map of copies was a fifth of a report --by
  // callchain of a build's capture, 116 k samples; a std::unordered_map of
  // copies, its nodes' mallocs and frees, a sixth).
  std::uint32_t chain_row(std::uint32_t entry) {
    chain_of(entry, scratch_);
    std::reverse(scratch_.begin(), scratch_.end());
    std::uint64_t h = scratch_.size() * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t r : scratch_) h = (h ^ r) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    for (std::size_t i = h & chain_mask_;; i = (i + 1) & chain_mask_) {
      RowSlot& slot = chain_slots_[i];
      if (slot.id_plus_one == 0) {
        const auto id = static_cast<std::uint32_t>(s_.chain_rows.size());
        slot = {static_cast<std::uint32_t>(h), id + 1};
        chain_hashes_.push_back(h);
        s_.chain_rows.push_back(scratch_);
        chain_row_ids_.push_back(row({RowKey::Type::chain, 0, id}));
        if (s_.chain_rows.size() * 2 > chain_slots_.size()) grow_chains();
        return chain_row_ids_[id];
      }
      if (slot.hash == static_cast<std::uint32_t>(h) && s_.chain_rows[slot.id_plus_one - 1] == scratch_)
        return chain_row_ids_[slot.id_plus_one - 1];
    }
  }
  void grow_chains() {
    std::vector<RowSlot> old(chain_slots_.size() * 2);
    old.swap(chain_slots_);
    chain_mask_ = chain_slots_.size() - 1;
    for (const RowSlot& slot : old) {
      if (!slot.id_plus_one) continue;
      std::size_t i = chain_hashes_[slot.id_plus_one - 1] & chain_mask_;
      while (chain_slots_[i].id_plus_one) i = (i + 1) & chain_mask_;
      chain_slots_[i] = slot;
    }
  }

  // Each row's entries whose call chains pass through it, each once.
  void children() {
    std::vector<std::uint32_t> rows;
    group(s_.child_start, s_.child_entries, [&](auto add) {
      for (std::uint32_t i = 0; i < s_.entries.size(); ++i) {
        chain_of(i, rows);
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        for (std::uint32_t r : rows) add(r, i);
      }
    });
  }

  Report::State& s_;
  const SpaceLog& spaces_;
  std::span<const std::shared_ptr<SymbolSource>> sources_;
  struct RowSlot {
    std::uint32_t hash = 0, id_plus_one = 0;  // 0: empty
  };
  std::vector<RowSlot> row_slots_ = std::vector<RowSlot>(1024);
  std::size_t row_mask_ = 1023;
  std::vector<std::uint32_t> entry_address_, frame_address_;
  std::vector<std::uint32_t> use_of_entry_, use_start_;  // an entry's (space, chain), and its frames' slots
  std::vector<std::uint64_t> address_ip_;
  std::vector<std::uint32_t> address_space_;
  std::vector<std::uint32_t> module_;  // by address; none: unmapped
  std::vector<std::uint64_t> offset_;  // by address: in its module, or the ip
  std::vector<std::uint32_t> address_row_;
  std::vector<RowSlot> chain_slots_ = std::vector<RowSlot>(1024);  // chain_rows' indexes
  std::size_t chain_mask_ = 1023;
  std::vector<std::uint64_t> chain_hashes_;  // by chain_rows' index
  std::vector<std::uint32_t> chain_row_ids_;  // by chain_rows' index: its row
  std::vector<std::uint32_t> scratch_;
  std::vector<bool> tried_objects_;  // by identity: data_objects() looked
  std::vector<bool> has_code_;       // data views, by entry: it has a code address (frame_address_)
};

}  // namespace

void make_rows(Report::State& s, const SpaceLog& spaces, std::span<const std::shared_ptr<SymbolSource>> sources) {
  RowMaker(s, spaces, sources).make();
}

std::string Report::State::name(const RowKey& key) const {
  if (keys.size() == 1 && key.type != RowKey::Type::parts) return base_name(key);
  std::string out;
  for (const std::string& part : parts(key)) out += (out.empty() ? "" : "  ") + part;
  return out;
}

std::vector<std::string> Report::State::parts(const RowKey& key) const {
  std::vector<std::string> out;
  const std::string comm = key.process ? comms.at(key.comm) : std::string();
  for (GroupBy k : keys) {
    switch (k) {
      case GroupBy::process:
        out.push_back(!key.process ? "" : comm.empty() ? fmt::format("[{}]", key.process - 1)
                                                     : fmt::format("{} [{}]", comm, key.process - 1));
        break;
      // As perf report --sort pid (or tid) names it: tid:comm, the
      // thread's last name, else its process's.
      case GroupBy::thread: {
        if (!key.thread) {
          out.emplace_back();
          break;
        }
        const auto named = thread_comms.find(key.thread - 1);
        const std::string& name = named != thread_comms.end() ? named->second : comm;
        out.push_back(fmt::format("{}:{}", key.thread - 1, name.empty() ? "[unknown]" : name));
        break;
      }
      case GroupBy::cpu: out.push_back(key.cpu ? fmt::format("{}", key.cpu - 1) : ""); break;
      case GroupBy::module:
        switch (key.type) {
          case RowKey::Type::address:
          case RowKey::Type::function:
          case RowKey::Type::line:
          case RowKey::Type::module: {
            const std::string& path = identity_path(key.owner);
            const auto slash = path.rfind('/');
            out.push_back(slash == std::string::npos ? path : path.substr(slash + 1));
            break;
          }
          case RowKey::Type::unmapped: out.emplace_back(key.owner ? "[kernel]" : "[unknown]"); break;
          default: out.emplace_back();
        }
        break;
      default: out.push_back(key.type == RowKey::Type::parts ? std::string() : base_name(key));
    }
  }
  return out;
}

std::string Report::State::base_name(const RowKey& key) const {
  auto base = [](const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  switch (key.type) {
    case RowKey::Type::address: return fmt::format("{}+{:#x}", base(identity_path(key.owner)), key.value);
    case RowKey::Type::function: {
      const SymbolTable& symbols = *identities[key.owner].symbols;
      const auto function = static_cast<std::uint32_t>(key.value);
      return function_name(symbols, function);
    }
    case RowKey::Type::line:
      return fmt::format("{}:{}", identities[key.owner].symbols->file_name(static_cast<std::uint32_t>(key.value >> 32)),
                         key.value & 0xFFFFFFFFu);
    case RowKey::Type::module: return base(identity_path(key.owner));
    case RowKey::Type::unmapped: {
      const char* what = key.owner ? "[kernel]" : "[unknown]";
      return by == GroupBy::module ? std::string(what) : fmt::format("{}+{:#x}", what, key.value);
    }
    case RowKey::Type::process: {
      const std::string& comm = comms[key.value];
      // As perf names a thread it saw no COMM for (":pid"); pid -1 as a
      // signed number, as perf reads it (a pid_t).
      const auto pid = static_cast<std::int32_t>(key.owner);
      return comm.empty() ? fmt::format(":{}", pid) : fmt::format("{} [{}]", comm, pid);
    }
    case RowKey::Type::parts: return {};
    case RowKey::Type::data_object: {
      // Demangled as perf names it (a C++ static: _ZL14private_buffer).
      const std::string& symbol = data_objects[key.owner]->name(static_cast<std::uint32_t>(key.value));
      return demangle && symbol.starts_with("_Z") ? demangle_short(symbol.c_str()) : symbol;
    }
    case RowKey::Type::region: return regions[key.value];
    case RowKey::Type::cacheline: return fmt::format("{:#x}  {}", key.value, base_name(rows[key.owner]));
    case RowKey::Type::chain: {
      std::string out;
      for (std::uint32_t r : chain_rows[key.value]) out += (out.empty() ? "" : ";") + base_name(rows[r]);
      return out;
    }
  }
  return {};
}

}  // namespace tagop::report
