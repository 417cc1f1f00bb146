#include <tagop/process_table.hpp>

namespace tagop {

namespace {

// perf gives kernel mappings pid -1, and marks them with a kernel cpumode.
bool is_kernel(const perf_data::MmapRecord& r) {
  const unsigned mode = r.misc & perf_data::misc_cpumode_mask;
  return r.pid == 0xFFFFFFFFu || mode == perf_data::misc_kernel;
}

// perf names the kernel's map "[kernel.kallsyms]_text" (the map's name and
// the symbol whose address its pgoff is: machine.c, kmmap_prefix) and its
// DSO, whose HEADER_BUILD_ID entry names it, "[kernel.kallsyms]".
std::string_view module_name(std::string_view filename, bool kernel) {
  constexpr std::string_view prefix = "[kernel.kallsyms]";
  return kernel && filename.starts_with(prefix) ? prefix : filename;
}

}  // namespace

void ProcessTable::add_build_ids(const std::vector<perf_data::BuildIdEntry>& ids) {
  for (const perf_data::BuildIdEntry& e : ids) header_build_ids_.emplace(e.filename, e.build_id);
}

void ProcessTable::comm(const perf_data::CommRecord& r) {
  // A process is named by its main thread; other threads name it only
  // until the main thread's name is known.
  if (r.pid == r.tid || r.exec || !comms_.count(r.pid)) comms_[r.pid] = std::string(r.comm);
}

std::uint32_t ProcessTable::module_of(std::string_view filename, std::string_view build_id, bool kernel) {
  std::string id(build_id);
  if (id.empty())
    if (auto it = header_build_ids_.find(std::string(filename)); it != header_build_ids_.end()) id = it->second;
  auto key = std::make_pair(std::string(filename), id);
  if (auto it = module_index_.find(key); it != module_index_.end()) return it->second;
  modules_.push_back({.filename = key.first, .build_id = key.second, .kernel = kernel});
  const auto index = static_cast<std::uint32_t>(modules_.size() - 1);
  module_index_.emplace(std::move(key), index);
  return index;
}

ProcessTable::MapSet& ProcessTable::own_maps(std::uint32_t pid) {
  auto& slot = maps_[pid];
  if (!slot) slot = std::make_shared<MapSet>();
  else if (slot.use_count() > 1) slot = std::make_shared<MapSet>(*slot);
  return *slot;
}

void ProcessTable::mmap(const perf_data::MmapRecord& r) {
  last_ = nullptr;
  if (r.len == 0) return;
  const bool kernel = is_kernel(r);
  MapSet& maps = kernel ? kernel_maps_ : own_maps(r.pid);
  // A new mapping replaces whatever it overlaps (as mmap(2) does; the
  // parts of a partly overlapped old mapping are dropped with it).
  const std::uint64_t end = r.start + r.len;
  auto it = maps.lower_bound(r.start);
  if (it != maps.begin()) {
    auto before = std::prev(it);
    if (before->second.start + before->second.len > r.start) it = before;
  }
  while (it != maps.end() && it->second.start < end) it = maps.erase(it);
  const std::string_view name = module_name(r.filename, kernel);
  const std::uint32_t module = module_of(name, r.build_id, kernel);
  maps[r.start] = Mapping{r.start, r.len, r.pgoff, module};
  // "[kernel.kallsyms]_text": pgoff is _text's address (machine.c).
  if (kernel && name.size() < r.filename.size()) {
    modules_[module].reloc_symbol = std::string(r.filename.substr(name.size()));
    modules_[module].reloc_address = r.pgoff;
  }
}

void ProcessTable::task(const perf_data::TaskRecord& r) {
  last_ = nullptr;
  if (!r.fork || r.pid == r.ppid) return;  // a new thread shares its process's maps
  // A new process (perhaps a pid used before) starts as a copy of its
  // parent, its name included, as in perf.
  if (auto it = maps_.find(r.ppid); it != maps_.end()) maps_[r.pid] = it->second;
  else maps_.erase(r.pid);
  if (auto it = comms_.find(r.ppid); it != comms_.end()) comms_[r.pid] = it->second;
  else comms_.erase(r.pid);
}

std::string_view ProcessTable::comm_of(std::uint32_t pid) const {
  const auto it = comms_.find(pid);
  return it == comms_.end() ? std::string_view{} : std::string_view(it->second);
}

const Mapping* ProcessTable::find_in(const MapSet& maps, std::uint64_t ip) {
  auto it = maps.upper_bound(ip);
  if (it == maps.begin()) return nullptr;
  --it;
  return ip - it->second.start < it->second.len ? &it->second : nullptr;
}

const Mapping* ProcessTable::find(std::uint32_t pid, std::uint64_t ip) const {
  if (last_ && last_pid_ == pid && ip - last_->start < last_->len) return last_;
  const Mapping* m = nullptr;
  if (auto it = maps_.find(pid); it != maps_.end()) m = find_in(*it->second, ip);
  if (!m) m = find_in(kernel_maps_, ip);
  if (m) {
    last_pid_ = pid;
    last_ = m;
  }
  return m;
}

}  // namespace tagop
