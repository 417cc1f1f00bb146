#include <tagop/sampling_session_recorder.hpp>

#include <dirent.h>       // opendir, readdir
#include <sys/utsname.h>  // uname
#include <unistd.h>       // sysconf

#include <algorithm>   // std::max, std::min, std::sort
#include <cctype>      // std::isspace
#include <cstring>     // strnlen
#include <filesystem>  // std::filesystem::read_symlink
#include <fstream>     // std::ifstream
#include <sstream>     // std::istringstream

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>           // Error
#include <tagop/kernel_symbols.hpp>  // running_kernel_text, running_kernel_build_id
#include <tagop/symbol_files.hpp>    // file_build_id, SymbolFileSearch
#include <tagop/build_id_cache.hpp>  // keep_kallsyms_in_build_id_cache
#include <tagop/vdso_image.hpp>      // this_process_vdso, save_in_build_id_cache

namespace tagop {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The value of the first "KEY ... : value" line of a /proc file.
std::string proc_value(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return "";
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

// perf's cpu__max_present_cpu(): the highest CPU in "0-3,5" plus one.
std::uint32_t present_cpus() {
  std::istringstream in(read_line("/sys/devices/system/cpu/present"));
  std::string part;
  long highest = -1;
  while (std::getline(in, part, ','))
    if (!part.empty()) highest = std::max(highest, std::strtol(part.substr(part.find('-') + 1).c_str(), nullptr, 10));
  return highest >= 0 ? static_cast<std::uint32_t>(highest + 1) : static_cast<std::uint32_t>(::sysconf(_SC_NPROCESSORS_CONF));
}

// "AMD  EPYC   7R13" -> "AMD EPYC 7R13", as perf's write_cpudesc squashes it.
std::string squash_spaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<perf_data::PmuMapping> sysfs_pmus() {
  std::vector<perf_data::PmuMapping> out;
  const std::string root = "/sys/bus/event_source/devices";
  DIR* dir = ::opendir(root.c_str());
  if (!dir) return out;
  while (const dirent* d = ::readdir(dir)) {
    if (d->d_name[0] == '.') continue;
    const std::string type = read_line(fmt::format("{}/{}/type", root, d->d_name));
    char* end = nullptr;
    const unsigned long value = std::strtoul(type.c_str(), &end, 10);
    if (!type.empty() && end && *end == '\0') out.push_back({static_cast<std::uint32_t>(value), d->d_name});
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
  return out;
}

std::string_view c_string_in(std::span<const std::byte> body, std::size_t at) {
  if (at >= body.size()) return {};
  const char* p = reinterpret_cast<const char*>(body.data()) + at;
  const std::size_t max = body.size() - at;
  return {p, strnlen(p, max)};
}

}  // namespace

perf_data::WriterFeatures this_machine_features() {
  perf_data::WriterFeatures f;
  if (const std::string id = host_cpuid(); !id.empty()) f.cpuid = id;
  struct utsname u {};
  if (::uname(&u) == 0) {
    f.hostname = u.nodename;
    f.os_release = u.release;
    f.arch = u.machine;
  }
  f.cpus = perf_data::CpuCount{present_cpus(), static_cast<std::uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN))};
  f.cpu_description = squash_spaces(proc_value("/proc/cpuinfo", "model name"));
  f.total_memory_kb = std::strtoull(proc_value("/proc/meminfo", "MemTotal").c_str(), nullptr, 10);
  f.pmu_mappings = sysfs_pmus();
  return f;
}

std::vector<std::string> this_process_cmdline() {
  std::vector<std::string> words;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string word;
  while (std::getline(in, word, '\0')) words.push_back(word);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    if (words.empty()) words.emplace_back();
    words.front() = exe.string();
  }
  return words;
}

namespace {

std::vector<perf_data::WriterEvent> writer_events(const SamplingSession& session,
                                                  const std::vector<std::string>& names) {
  if (names.size() != session.events().size())
    throw Error(fmt::format("session recorder: {} event names for {} events", names.size(), session.events().size()));
  std::vector<perf_data::WriterEvent> events;
  for (std::size_t e = 0; e < names.size(); ++e)
    events.push_back({.attr = session.events()[e].attr, .ids = session.events()[e].ids, .name = names[e]});
  return events;
}

perf_data::WriterFeatures features_with(std::vector<std::string> cmdline) {
  perf_data::WriterFeatures f = this_machine_features();
  f.cmdline = cmdline.empty() ? this_process_cmdline() : std::move(cmdline);
  return f;
}

}  // namespace

SessionRecorder::SessionRecorder(const std::string& path, const SamplingSession& session,
                                 const std::vector<std::string>& event_names, std::vector<std::string> cmdline)
    : writer_(path, writer_events(session, event_names), features_with(std::move(cmdline))),
      build_id_cache_(SymbolFileSearch::default_build_id_dir()) {}

bool SessionRecorder::synthesise_kernel(const std::string& kallsyms) {
  const std::optional<KernelText> text = running_kernel_text(kallsyms);
  if (!text) {
    warnings_.push_back(fmt::format("{} hides the kernel's addresses from this user (kernel.kptr_restrict): "
                                    "kernel samples will not be named",
                                    kallsyms));
    return false;
  }
  // perf_event__synthesize_kernel_mmap(): pid -1 (the host), pgoff the
  // address of the symbol named after the map's name.
  writer_.mmap(static_cast<std::uint32_t>(-1), 0, text->start, text->end - text->start, text->start,
               "[kernel.kallsyms]_text");
  return true;
}

void SessionRecorder::synthesise_process(pid_t pid) {
  const std::string dir = fmt::format("/proc/{}", pid);
  const std::string comm = read_line(dir + "/comm");
  if (comm.empty()) return;  // gone, or a kernel thread we cannot read
  const auto p = static_cast<std::uint32_t>(pid);
  if (DIR* tasks = ::opendir((dir + "/task").c_str())) {
    while (const dirent* t = ::readdir(tasks))
      if (t->d_name[0] != '.') {
        const auto tid = static_cast<std::uint32_t>(std::strtoul(t->d_name, nullptr, 10));
        writer_.comm(p, tid, tid == p ? comm : read_line(fmt::format("{}/task/{}/comm", dir, tid)), false);
      }
    ::closedir(tasks);
  }
  std::ifstream maps(dir + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode path
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, path);
    // Files, and the vDSO as perf synthesises it too.
    const bool vdso = path == "[vdso]";
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || (path[0] != '/' && !vdso)) continue;
    const auto dash = range.find('-');
    if (dash == std::string::npos) continue;
    const std::uint64_t start = std::strtoull(range.substr(0, dash).c_str(), nullptr, 16);
    const std::uint64_t end = std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16);
    writer_.mmap2(p, p, start, end - start, std::strtoull(offset.c_str(), nullptr, 16), path);
    if (vdso) vdso_length_ = end - start;
    else mapped_files_.insert(path);
  }
}

void SessionRecorder::synthesise_all_processes() {
  DIR* proc = ::opendir("/proc");
  if (!proc) return;
  while (const dirent* d = ::readdir(proc))
    if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
      synthesise_process(static_cast<pid_t>(std::strtol(d->d_name, nullptr, 10)));
  ::closedir(proc);
}

void SessionRecorder::note_mapping(const SessionRecord& r) {
  // MMAP: pid, tid, addr, len, pgoff, filename. MMAP2: the same, then
  // 24 bytes of device and inode (or of build-id), prot and flags, filename.
  const bool mmap2 = r.header.type == PERF_RECORD_MMAP2;
  const std::string_view name = c_string_in(r.body, mmap2 ? 64 : 32);
  if (name == "[vdso]" && r.body.size() >= 24) {
    std::memcpy(&vdso_length_, r.body.data() + 16, sizeof vdso_length_);  // pid, tid, addr, len
    return;
  }
  if (name.empty() || name.front() != '/') return;  // //anon, [heap] ...
  if (mmap2 && (r.header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && r.body.size() >= 64) {
    const auto size = std::min<std::size_t>(std::to_integer<std::size_t>(r.body[32]), 20);
    std::string id;
    for (std::size_t i = 0; i < size; ++i) id += fmt::format("{:02x}", std::to_integer<unsigned>(r.body[36 + i]));
    mapped_build_ids_.emplace(std::string(name), std::move(id));
    return;
  }
  mapped_files_.emplace(name);
}

std::size_t SessionRecorder::drain(SamplingSession& session) {
  const std::size_t n = session.read_records([&](const SessionRecord& r) {
    writer_.record(r.header.type, r.header.misc, r.body);
    if (r.header.type == PERF_RECORD_MMAP2 || r.header.type == PERF_RECORD_MMAP) note_mapping(r);
  });
  if (n) writer_.finished_round();
  return n;
}

void SessionRecorder::finish() {
  {
    std::vector<perf_data::BuildIdEntry>& ids = writer_.features().build_ids;
    if (const std::string kernel = running_kernel_build_id(); !kernel.empty()) {
      ids.push_back({.pid = -1, .cpumode = perf_data::misc_kernel, .build_id = kernel, .filename = "[kernel.kallsyms]"});
      keep_kallsyms(kernel);
    }
    add_vdso_build_id(ids);
    std::set<std::string> named;
    for (const auto& [file, id] : mapped_build_ids_)
      if (named.insert(file).second) ids.push_back({.pid = -1, .cpumode = perf_data::misc_user, .build_id = id, .filename = file});
    for (const std::string& file : mapped_files_) {
      if (named.count(file)) continue;
      std::string problem;
      // A file gone or replaced since has no build-id to give: perf too
      // leaves it out.
      if (const auto id = file_build_id(file, problem); id && !id->empty())
        ids.push_back({.pid = -1, .cpumode = perf_data::misc_user, .build_id = *id, .filename = file});
    }
  }
  writer_.finish();
}

// As perf record: a report reads the copy, not /proc/kallsyms, which the
// kernel writes anew at each read (tens of milliseconds).
void SessionRecorder::keep_kallsyms(const std::string& build_id) {
  if (build_id_cache_.empty()) return;
  try {
    keep_kallsyms_in_build_id_cache(build_id_cache_, build_id);
  } catch (const Error& e) {
    warnings_.push_back(fmt::format("the kernel's kallsyms was not kept in the build-id cache (its reports read "
                                    "/proc/kallsyms): {}", e.what()));
  }
}

void SessionRecorder::add_vdso_build_id(std::vector<perf_data::BuildIdEntry>& ids) {
  if (vdso_length_ == 0) return;
  // The sampled processes' vDSO is this process's own when it has the
  // same size: one image per ABI of the running kernel (perf's own
  // choice too; a 32-bit process's is another).
  std::string problem;
  const std::optional<VdsoImage> vdso = this_process_vdso(problem);
  if (!vdso) {
    warnings_.push_back(fmt::format("the [vdso]'s samples will not be named: {}", problem));
    return;
  }
  if (vdso->bytes.size() != vdso_length_) {
    warnings_.push_back(fmt::format("the [vdso]'s samples will not be named: the sampled [vdso] has {} bytes, "
                                    "this process's {} (another ABI: a 32-bit process?)",
                                    vdso_length_, vdso->bytes.size()));
    return;
  }
  ids.push_back({.pid = -1, .cpumode = perf_data::misc_user, .build_id = vdso->build_id, .filename = "[vdso]"});
  if (build_id_cache_.empty()) return;
  try {
    save_in_build_id_cache(*vdso, build_id_cache_);
  } catch (const Error& e) {
    warnings_.push_back(fmt::format("the [vdso]'s image was not kept, its samples will not be named: {}", e.what()));
  }
}

}  // namespace tagop
