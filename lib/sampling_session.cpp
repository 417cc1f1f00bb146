#include <tagop/sampling_session.hpp>

#include <fcntl.h>          // O_CLOEXEC
#include <poll.h>           // poll
#include <signal.h>         // kill, sigaction, SIGTERM, SIGKILL
#include <sys/ioctl.h>      // ioctl
#include <sys/mman.h>       // mmap, munmap
#include <sys/syscall.h>    // SYS_perf_event_open
#include <sys/wait.h>       // waitpid
#include <unistd.h>         // fork, pipe2, execvp, sysconf

#include <cerrno>    // errno
#include <cstring>   // std::memcpy, std::strerror
#include <fstream>   // std::ifstream
#include <sstream>   // std::istringstream

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error
#include <tagop/user_stack_unwind.hpp>  // x86_64_user_regs_mask

namespace tagop {

namespace {

int open_perf_event(perf_event_attr* attr, pid_t pid, int cpu, int group, unsigned long flags) {
  return static_cast<int>(::syscall(SYS_perf_event_open, attr, pid, cpu, group, flags));
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string describe(const perf_event_attr& a) {
  return fmt::format("type {}, config {:#x}, precise_ip {}, {} {}", a.type, a.config, a.precise_ip,
                     a.freq ? "sample_freq" : "period", a.sample_period);
}

std::string event_name(const PerfEvent& e) {
  if (!e.pmu.empty()) return e.pmu;
  return e.description.empty() ? "the event" : e.description;
}

// The lowest perf_event_paranoid value that lets an unprivileged user do this.
int paranoid_needed(const perf_event_attr& a, bool all_cpus) {
  if (all_cpus) return 0;
  return a.exclude_kernel ? 2 : 1;
}

[[noreturn]] void throw_open_error(int err, const PerfEvent& e, const perf_event_attr& a, bool all_cpus, pid_t pid) {
  const std::string what = fmt::format("perf_event_open({}: {})", event_name(e), describe(a));
  const int needed = paranoid_needed(a, all_cpus);
  bool paranoid_forbids = false;
  std::string paranoid_text;
  if (err == EACCES || err == EPERM) {
    paranoid_text = read_first_line("/proc/sys/kernel/perf_event_paranoid");
    int paranoid = needed;
    try {
      paranoid = std::stoi(paranoid_text);
    } catch (const std::exception&) {
    }
    paranoid_forbids = ::geteuid() != 0 && paranoid > needed;
  }
  const ErrorCode code = perf_event_open_error_code(err, paranoid_forbids);
  switch (err) {
    case EACCES:
    case EPERM:
      if (paranoid_forbids)
        throw Error(code, fmt::format(
            "{}: {}: /proc/sys/kernel/perf_event_paranoid is {}, which does not allow this without privileges; "
            "allow it with `sysctl kernel.perf_event_paranoid={}` (or run with CAP_PERFMON or as root)",
            what, std::strerror(err), paranoid_text, needed));
      throw Error(code, fmt::format("{}: not permitted ({}): {}", what, std::strerror(err),
                                    all_cpus ? "sampling every CPU needs CAP_PERFMON or root"
                                             : "the process belongs to another user, or a security policy forbids it"));
    case ESRCH: throw Error(code, fmt::format("{}: no process {}", what, pid));
    case EINVAL:
    case EOPNOTSUPP:
    case ENOENT:
    case ENODEV:
      throw Error(code, fmt::format("{}: the hardware or its PMU driver refused this configuration ({}){}", what,
                                    std::strerror(err),
                                    a.precise_ip ? ": this processor cannot sample it precisely at that precise_ip, "
                                                   "or has no PMU for it"
                                                 : ""));
    case EMFILE:
      throw Error(code, fmt::format("{}: too many open files (one per event and CPU): raise `ulimit -n`", what));
    default: throw Error(code, fmt::format("{}: {}", what, std::strerror(err)));
  }
}

std::string ibs_hint(const std::string& pmu) {
  return pmu.rfind("ibs_", 0) == 0 ? " (IBS needs an AMD Family 10h or later processor, and a kernel with IBS "
                                     "support; virtual machines rarely expose it)"
                                   : "";
}

// IDENTIFIER first in every sample and last in every other record's
// trailer: how a record from a shared ring buffer names its event.
constexpr std::uint64_t session_sample_type =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

// How long the destructor lets a command still running end on SIGTERM.
constexpr std::chrono::milliseconds destructor_grace{1000};

}  // namespace

/// One CPU's ring buffer: the metadata page, then 2^n data pages.
struct SamplingSession::Buffer {
  void* base = MAP_FAILED;
  std::size_t size = 0, data_size = 0;
  int fd = -1;
  std::uint32_t cpu = 0;

  ~Buffer() {
    if (base != MAP_FAILED) ::munmap(base, size);
  }
  perf_event_mmap_page* meta() const { return static_cast<perf_event_mmap_page*>(base); }
  const std::byte* data() const { return static_cast<const std::byte*>(base) + meta()->data_offset; }
};

std::vector<int> online_cpus() {
  // "0-3,5,7-8"
  std::vector<int> cpus;
  std::istringstream in(read_first_line("/sys/devices/system/cpu/online"));
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  if (cpus.empty())
    for (long c = 0, n = ::sysconf(_SC_NPROCESSORS_ONLN); c < n; ++c) cpus.push_back(static_cast<int>(c));
  return cpus;
}

// The state letter of /proc/PID/stat ('R', 'S', 'Z' ...), or 0 for no such process.
char process_state(pid_t pid) {
  if (pid <= 0) return 0;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, the
  // state follows the last ')'.
  const std::string stat = read_first_line(fmt::format("/proc/{}/stat", pid));
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return 0;
  return stat[paren + 2];
}

bool process_ended(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

bool process_running(pid_t pid) {
  const char state = process_state(pid);
  return state != 0 && !process_ended(state);
}

std::string host_cpuid() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, vendor, family, model, stepping;
  auto value = [&] { return line.substr(line.find(':') + 2); };
  while (std::getline(in, line) && !line.empty()) {
    if (line.find(':') == std::string::npos || line.find(':') + 2 > line.size()) continue;
    if (line.rfind("vendor_id", 0) == 0) vendor = value();
    else if (line.rfind("cpu family", 0) == 0) family = value();
    else if (line.rfind("model\t", 0) == 0) model = value();
    else if (line.rfind("stepping", 0) == 0) stepping = value();
  }
  if (vendor.empty() || family.empty()) return "";
  return fmt::format("{},{},{},{}", vendor, family, model.empty() ? "0" : model, stepping.empty() ? "0" : stepping);
}

SamplingSession::SamplingSession(SessionOptions options) : options_(std::move(options)) {
  if (options_.events.empty()) throw Error("sampling session: no event to sample");
  const bool has_pid = options_.pid >= 0, has_command = !options_.command.empty();
  if (options_.all_cpus + has_pid + has_command != 1)
    throw Error("sampling session: give exactly one of all_cpus, pid or command");
  if (options_.buffer_pages == 0 || (options_.buffer_pages & (options_.buffer_pages - 1)))
    throw Error(fmt::format("sampling session: buffer_pages {} is not a power of two", options_.buffer_pages));
  if (options_.user_stack_bytes % 8 || options_.user_stack_bytes > 65528)
    throw Error(fmt::format("sampling session: user_stack_bytes {} is not a multiple of 8 up to 65528 (the most "
                            "that fits a sample record)",
                            options_.user_stack_bytes));
  cpus_ = online_cpus();
  decoders_.resize(options_.events.size());
  samples_by_event_.resize(options_.events.size());
  // The kernel lets a zombie be sampled, and its samples never come: say so
  // rather than write an empty recording.
  if (has_pid && process_ended(process_state(options_.pid)))
    throw Error(ErrorCode::not_found,
                fmt::format("process {} has ended (its parent has not yet reaped it): nothing to record", options_.pid));
  try {
    if (has_command) fork_command();
    open_events();
    map_buffers();
  } catch (...) {
    close_all();
    throw;
  }
}

SamplingSession::~SamplingSession() { close_all(); }

void SamplingSession::close_all() noexcept {
  buffers_.clear();
  for (int& fd : fds_)
    if (fd >= 0) ::close(fd), fd = -1;
  fds_.clear();
  // A command never let go ends as soon as its pipe closes.
  const bool never_started = go_fd_ >= 0;
  for (int* fd : {&go_fd_, &exec_error_fd_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  if (child_ > 0 && !child_status_) {
    if (never_started) reap(true);
    else end_child(destructor_grace);
  }
}

void SamplingSession::reap(bool block) noexcept {
  if (child_ <= 0 || child_status_) return;
  int status = 0;
  pid_t r;
  while ((r = ::waitpid(child_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == child_) child_status_ = status;
}

bool SamplingSession::signal_child(int signal) {
  if (!child_running()) return false;
  return ::kill(child_, signal) == 0;
}

void SamplingSession::end_child(std::chrono::milliseconds grace) {
  if (!signal_child(SIGTERM)) return;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    reap(false);
    if (child_status_) return;
    ::usleep(5000);
  }
  ::kill(child_, SIGKILL);
  reap(true);
}

bool SamplingSession::target_running() {
  if (child_ > 0) return child_running();
  if (options_.pid >= 0) return process_running(options_.pid);
  return true;
}

void SamplingSession::fork_command() {
  // The child waits on `go` before its exec, so that its events exist
  // first; a CLOEXEC pipe tells the parent whether the exec worked.
  int go[2], report[2];
  if (::pipe2(go, O_CLOEXEC) != 0) throw Error(ErrorCode::resource, fmt::format("pipe: {}", std::strerror(errno)));
  if (::pipe2(report, O_CLOEXEC) != 0) {
    ::close(go[0]), ::close(go[1]);
    throw Error(ErrorCode::resource, fmt::format("pipe: {}", std::strerror(errno)));
  }
  std::vector<char*> argv;
  for (std::string& a : options_.command) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    for (int fd : {go[0], go[1], report[0], report[1]}) ::close(fd);
    throw Error(ErrorCode::resource, fmt::format("fork: {}", std::strerror(err)));
  }
  if (pid == 0) {
    // The command starts with the signals as a new process has them, not
    // with this one's handlers (a test framework's, record's) or its mask.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; ++signal) {
      struct sigaction old {};
      if (::sigaction(signal, nullptr, &old) == 0 && old.sa_handler != SIG_IGN && old.sa_handler != SIG_DFL)
        ::sigaction(signal, &default_action, nullptr);
    }
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::close(go[1]);
    ::close(report[0]);
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) ::_exit(127);  // the session went away
    ::execvp(argv[0], argv.data());
    const int err = errno;
    [[maybe_unused]] auto n = ::write(report[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(report[1]);
  child_ = pid;
  go_fd_ = go[1];
  exec_error_fd_ = report[0];
}

void SamplingSession::open_events() {
  const pid_t pid = options_.all_cpus ? -1 : (child_ > 0 ? child_ : options_.pid);
  events_.resize(options_.events.size());
  for (std::size_t e = 0; e < options_.events.size(); ++e) {
    const PerfEvent& event = options_.events[e];
    perf_event_attr a = event.attr;
    a.size = sizeof a;
    if (!event.pmu.empty()) {
      const int type = sysfs_pmu_type(event.pmu);
      if (type < 0)
        throw Error(ErrorCode::no_pmu, fmt::format("/sys/bus/event_source/devices/{}: no such PMU on this machine{}", event.pmu,
                                ibs_hint(event.pmu)));
      a.type = static_cast<std::uint32_t>(type);
    }
    a.sample_type |= session_sample_type;
    if (options_.callchains) a.sample_type |= PERF_SAMPLE_CALLCHAIN;
    if (options_.user_stack_bytes) {
      // As perf record --call-graph dwarf sets them.
      a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      a.exclude_callchain_user = 1;
      a.sample_regs_user = x86_64_user_regs_mask;
      a.sample_stack_user = options_.user_stack_bytes;
    }
    a.sample_id_all = 1;
    a.disabled = 1;
    a.inherit = pid >= 0;
    a.enable_on_exec = child_ > 0;
    if (e == 0 && options_.track_processes) {
      a.comm = 1, a.comm_exec = 1, a.mmap = 1, a.mmap2 = 1, a.task = 1;
      // The mappings of data too, as perf record --call-graph dwarf asks
      // for them: perf's unwinder reads a module's .eh_frame_hdr through
      // the process's memory, and it lies in a mapping that is not
      // executable.
      if (options_.user_stack_bytes) a.mmap_data = 1;
    }
    if (!a.sample_period) throw Error(fmt::format("{}: no sampling period or frequency", event_name(event)));
    events_[e].attr = a;
    events_[e].name = event_name(event);
  }
  for (std::size_t e = 0; e < events_.size(); ++e)
    for (std::size_t c = 0; c < cpus_.size(); ++c) {
      const int fd = open_perf_event(&events_[e].attr, pid, cpus_[c], -1, PERF_FLAG_FD_CLOEXEC);
      if (fd < 0) throw_open_error(errno, options_.events[e], events_[e].attr, options_.all_cpus, pid);
      fds_.push_back(fd);
      std::uint64_t id = 0;
      if (::ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) events_[e].ids.push_back(id);
    }
}

void SamplingSession::map_buffers() {
  // The first event's fd of each CPU owns the CPU's buffer; the kernel
  // lets the others write into it only once it is mapped.
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t c = 0; c < cpus_.size(); ++c) {
    auto b = std::make_unique<Buffer>();
    b->fd = fds_[c];
    b->cpu = static_cast<std::uint32_t>(cpus_[c]);
    b->data_size = page * options_.buffer_pages;
    b->size = page + b->data_size;
    b->base = ::mmap(nullptr, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
    if (b->base == MAP_FAILED)
      throw Error(ErrorCode::resource, fmt::format("mmap of CPU {}'s ring buffer ({} pages): {}{}", cpus_[c], options_.buffer_pages + 1,
                              std::strerror(errno),
                              errno == EPERM ? " (over /proc/sys/kernel/perf_event_mlock_kb: use fewer pages)" : ""));
    buffers_.push_back(std::move(b));
  }
  for (std::size_t e = 1; e < events_.size(); ++e)
    for (std::size_t c = 0; c < cpus_.size(); ++c)
      if (::ioctl(fds_[e * cpus_.size() + c], PERF_EVENT_IOC_SET_OUTPUT, fds_[c]) != 0)
        throw Error(ErrorCode::not_supported, fmt::format("{}: cannot write into CPU {}'s ring buffer (PERF_EVENT_IOC_SET_OUTPUT): {}",
                                event_name(options_.events[e]), cpus_[c], std::strerror(errno)));
}

void SamplingSession::start() {
  if (started_) return;
  started_ = true;
  if (child_ > 0) {
    const char go = 1;
    if (::write(go_fd_, &go, 1) != 1) throw Error(ErrorCode::io, fmt::format("cannot start the command: {}", std::strerror(errno)));
    ::close(go_fd_), go_fd_ = -1;
    int err = 0;
    const ssize_t n = ::read(exec_error_fd_, &err, sizeof err);
    ::close(exec_error_fd_), exec_error_fd_ = -1;
    if (n == static_cast<ssize_t>(sizeof err)) {
      reap(true);  // it exits at once: nothing to signal
      throw Error(ErrorCode::not_found, fmt::format("cannot run '{}': {}", options_.command.front(), std::strerror(err)));
    }
    return;  // enable_on_exec did the rest
  }
  for (int fd : fds_)
    if (::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) throw Error(ErrorCode::io, fmt::format("enabling sampling: {}", std::strerror(errno)));
}

void SamplingSession::stop() {
  for (int fd : fds_) ::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

bool SamplingSession::child_running() {
  if (child_ <= 0 || child_status_) return false;
  reap(false);
  return !child_status_;
}

void SamplingSession::wait(std::chrono::milliseconds timeout) {
  std::vector<pollfd> fds;
  for (const auto& b : buffers_) fds.push_back({.fd = b->fd, .events = POLLIN, .revents = 0});
  ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
}

std::size_t SamplingSession::event_of(const perf_data::RecordHeader& h, std::span<const std::byte> body) const {
  if (events_.size() == 1) return 0;
  // IDENTIFIER puts the id first in a sample and last in the trailer.
  std::uint64_t id = 0;
  if (body.size() < 8) return 0;
  std::memcpy(&id, h.type == PERF_RECORD_SAMPLE ? body.data() : body.data() + body.size() - 8, 8);
  for (std::size_t e = 0; e < events_.size(); ++e)
    for (std::uint64_t x : events_[e].ids)
      if (x == id) return e;
  return 0;
}

std::size_t SamplingSession::read_records(const std::function<void(const SessionRecord&)>& each) {
  std::size_t count = 0;
  for (const auto& b : buffers_) {
    perf_event_mmap_page* meta = b->meta();
    const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    std::uint64_t tail = meta->data_tail;
    const std::byte* data = b->data();
    const std::uint64_t mask = b->data_size - 1;
    while (tail + sizeof(perf_event_header) <= head) {
      perf_data::RecordHeader h;
      const std::size_t at = static_cast<std::size_t>(tail & mask);
      // The header is 8-byte aligned, so it never wraps.
      std::memcpy(&h, data + at, sizeof h);
      if (h.size < sizeof h || tail + h.size > head) break;
      std::span<const std::byte> record;
      if (at + h.size <= b->data_size) {
        record = {data + at, h.size};
      } else {
        scratch_.resize(h.size);
        const std::size_t first = b->data_size - at;
        std::memcpy(scratch_.data(), data + at, first);
        std::memcpy(scratch_.data() + first, data, h.size - first);
        record = scratch_;
      }
      SessionRecord r{.event = 0, .cpu = b->cpu, .header = h, .body = record.subspan(sizeof h)};
      r.event = event_of(h, r.body);
      if (h.type == PERF_RECORD_SAMPLE) ++samples_, ++samples_by_event_[r.event];
      if (h.type == PERF_RECORD_LOST && r.body.size() >= 16) {
        std::uint64_t lost = 0;
        std::memcpy(&lost, r.body.data() + 8, 8);
        lost_ += lost;
      }
      each(r);
      ++count;
      tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  }
  return count;
}

Sample SamplingSession::plain_sample(const perf_data::SampleRecord& r) const {
  Sample s;
  s.conditions.insert(condition("op"));
  s.observed.insert(condition("op"));
  s.ip = r.ip;
  s.pid = r.id.pid;
  s.tid = r.id.tid;
  s.cpu = r.id.cpu;
  s.time = r.id.time;
  s.ip_exact = (r.misc & PERF_RECORD_MISC_EXACT_IP) != 0;
  return s;
}

std::size_t SamplingSession::read_samples(const std::function<void(const Sample&)>& each) {
  std::size_t count = 0;
  read_records([&](const SessionRecord& r) {
    if (r.header.type != PERF_RECORD_SAMPLE) return;
    perf_data::SampleRecord rec;
    rec.misc = r.header.misc;
    rec.size = r.header.size;
    rec.attr = &events_[r.event];
    rec.event = static_cast<std::uint32_t>(r.event);
    if (!perf_data::parse_sample(events_[r.event].attr, r.body, rec).empty()) {
      ++undecoded_;
      return;
    }
    if (const SampleDecoder& decode = decoders_[r.event]) {
      Sample s;
      if (!decode(rec, s)) {
        ++undecoded_;
        return;
      }
      each(s);
    } else {
      each(plain_sample(rec));
    }
    ++count;
  });
  return count;
}

std::vector<Sample> SamplingSession::collect(std::chrono::milliseconds limit) {
  std::vector<Sample> out;
  auto keep = [&](const Sample& s) { out.push_back(s); };
  start();
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end && (child_ <= 0 || child_running())) {
    wait(std::chrono::milliseconds(20));
    read_samples(keep);
  }
  stop();
  read_samples(keep);
  return out;
}

void SamplingSession::set_decoder(std::size_t event, SampleDecoder decoder) {
  if (event >= decoders_.size()) throw Error(ErrorCode::internal, fmt::format("sampling session: no event {}", event));
  decoders_[event] = std::move(decoder);
}

}  // namespace tagop
