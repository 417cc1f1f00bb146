#include "report_builder.hpp"

#include <unistd.h>  // isatty

#include <algorithm>  // std::find
#include <cstdio>     // stderr
#include <thread>     // std::thread::hardware_concurrency

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::cli {

namespace {

constexpr std::uint32_t no_module = 0xFFFFFFFFu;

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Linux x86-64 puts the kernel in the upper half.
bool kernel_address(std::uint64_t ip) { return ip >> 63; }

std::uint64_t key_of(std::uint32_t module, std::uint64_t value) {
  // Offsets inside a module are far below 2^40; modules far below 2^24.
  return std::uint64_t{module} << 40 ^ value;
}

}  // namespace

ReportBuilder::ReportBuilder(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, RowKind by,
                             ReportFilters filters, bool show_progress, std::size_t threads)
    : capture_(capture),
      file_(reader.bytes().data()),
      by_(by),
      filters_(std::move(filters)),
      show_progress_(show_progress),
      symbols_(processes_) {
  filtering_ = !filters_.cpus.empty() || !filters_.pids.empty() || !filters_.comms.empty();
  fast_ = capture_ && !filtering_;
  processes_.add_build_ids(reader.info().build_ids);
  shapes_.resize(reader.info().attrs.size());
  for (std::size_t e = 0; e < shapes_.size(); ++e)
    if (const auto at = perf_data::fixed_offset(reader.info().attrs[e].attr, PERF_SAMPLE_TID))
      shapes_[e].pid_at = static_cast<std::uint16_t>(sizeof(perf_data::RecordHeader) + *at);
  if (!threads) threads = std::max(1u, std::thread::hardware_concurrency());
  const Predicate* where = filters_.where ? &*filters_.where : nullptr;
  if (capture_)
    pool_ = std::make_unique<BatchPool<IbsWork, IbsTally>>(threads, [&] { return IbsTally(*capture_, where, file_); });
}

ReportBuilder::~ReportBuilder() = default;

void ReportBuilder::mmap(const perf_data::MmapRecord& r) {
  processes_.mmap(r);
  ++generation_;
}

void ReportBuilder::task(const perf_data::TaskRecord& r) {
  processes_.task(r);
  ++generation_;
}

void ReportBuilder::progress(std::uint64_t done, std::uint64_t total) {
  if (!show_progress_) return;
  if (done >= total) {
    fmt::print(stderr, "\r{:60}\r", "");
    return;
  }
  fmt::print(stderr, "\rtagop report: {:3.0f}% of {:.1f} MiB read", 100.0 * static_cast<double>(done) / static_cast<double>(total),
             static_cast<double>(total) / (1 << 20));
  std::fflush(stderr);
}

bool ReportBuilder::passes(std::uint32_t pid, std::uint32_t cpu) {
  const ReportFilters& f = filters_;
  if (!f.cpus.empty() && std::find(f.cpus.begin(), f.cpus.end(), cpu) == f.cpus.end()) return false;
  if (!f.pids.empty() && std::find(f.pids.begin(), f.pids.end(), pid) == f.pids.end()) return false;
  if (!f.comms.empty()) {
    auto [it, fresh] = comm_passes_.try_emplace(pid, false);
    if (fresh) {
      const std::string_view comm = processes_.comm_of(pid);
      it->second = std::find(f.comms.begin(), f.comms.end(), comm) != f.comms.end();
    }
    if (!it->second) return false;
  }
  return true;
}

std::uint32_t ReportBuilder::row_named(Row row) {
  const std::string key = row.module + '\0' + row.name;
  auto [it, fresh] = row_by_name_.try_emplace(key, static_cast<std::uint32_t>(rows_.size()));
  if (fresh && rows_.size() == IbsWork::not_kept)  // a row number must fit in 31 bits
    throw Error(fmt::format("more than {} report rows: try a coarser --by", IbsWork::not_kept));
  if (fresh) rows_.push_back(std::move(row));
  return it->second;
}

template <typename MakeRow>
std::uint32_t ReportBuilder::row_for(std::uint64_t key, MakeRow&& make) {
  std::uint32_t row = row_by_key_.find(key);
  if (row == FlatIndex<std::uint64_t>::none) {
    row = row_named(make());
    row_by_key_.insert(key, row);
  }
  return row;
}

std::uint32_t ReportBuilder::resolve_row(std::uint32_t pid, std::uint64_t ip) {
  if (by_ == RowKind::process) {
    return row_for(pid, [&] { return Row{.name = "", .module = "", .offset = 0, .pid = pid, .has_offset = false}; });
  }
  const Mapping* m = processes_.find(pid, ip);
  const std::uint32_t module = m ? m->module : no_module;
  const std::uint64_t offset = m ? m->file_offset(ip) : ip;
  auto module_path = [&]() -> std::string {
    if (m) return processes_.modules()[module].filename;
    return kernel_address(ip) ? "[kernel]" : "[unknown]";
  };
  if (by_ == RowKind::module) {
    const std::uint64_t key = m ? module : (kernel_address(ip) ? no_module : no_module - 1);
    return row_for(key, [&] {
      return Row{.name = basename_of(module_path()), .module = module_path(), .offset = 0, .pid = 0, .has_offset = false};
    });
  }
  return row_for(key_of(module, offset), [&] {
    const std::string path = module_path();
    Row row{.name = fmt::format("{}+{:#x}", basename_of(path), offset), .module = path, .offset = offset, .pid = 0,
            .has_offset = true};
    if (by_ == RowKind::address || !m) return row;
    if (const auto loc = symbols_.lookup(module, offset)) {
      if (by_ == RowKind::function && !loc->function.empty()) {
        row.name = loc->function;
        row.has_offset = false;
      } else if (by_ == RowKind::line && !loc->file.empty()) {
        row.name = fmt::format("{}:{}", loc->file, loc->line);
        row.has_offset = false;
      }
    }
    return row;
  });
}

std::uint64_t ReportBuilder::sample_fields() const {
  // An IBS sample's address is in its payload, or the record's own when
  // IbsRipInvalid says so (IbsCapture::ip_of); CPU only for --cpu.
  return PERF_SAMPLE_TID | PERF_SAMPLE_RAW | PERF_SAMPLE_IP | (filtering_ ? PERF_SAMPLE_CPU : 0);
}

void ReportBuilder::learn_shape(const perf_data::SampleRecord& r, amd_ibs::IbsUnit unit) {
  SampleShape& shape = shapes_[r.event];
  const auto place = capture_->ip_offset(unit, r.raw.size());
  if (!shape.pid_at || !place) return;
  const auto raw_at = static_cast<std::uint16_t>(r.raw.data() - (file_ + r.offset));
  shape = {r.size,
           shape.pid_at,
           raw_at,
           static_cast<std::uint16_t>(raw_at + place->at),
           static_cast<std::uint16_t>(raw_at + place->invalid_at),
           place->invalid_mask,
           static_cast<std::uint32_t>(r.raw.size()),
           unit};
}

void ReportBuilder::sample(const perf_data::SampleRecord& r) {
  // Without TID, pid 0 (the record's unwritten field stays 0).
  const std::uint32_t pid = r.id.pid, cpu = r.id.cpu;
  if (!capture_) {
    ++other_;
    if (filtering_ && !passes(pid, cpu)) return;
    const std::uint32_t row = row_of(pid, r.ip);
    if (row >= plain_counts_.size()) plain_counts_.resize(row + 1);
    ++plain_counts_[row];
    return;
  }
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  std::string_view problem;
  switch (capture_->classify(r, unit, problem)) {
    case amd_ibs::IbsCapture::Result::not_ibs: ++other_; return;
    case amd_ibs::IbsCapture::Result::damaged: counts_.damaged.add(r.offset, problem); return;
    case amd_ibs::IbsCapture::Result::ok: break;
  }
  if (fast_) learn_shape(r, unit);
  capture_->check_payload(unit, r.raw, r.offset);
  // Filtered-out samples go on too: the report counts every sample read.
  const std::uint32_t row =
      (!filtering_ || passes(pid, cpu)) ? row_of(pid, capture_->ip_of(unit, r).ip) : IbsWork::not_kept;
  pool_->add(IbsWork(file_ + r.offset, r.raw, row, unit));
}

void ReportBuilder::finish() {
  if (pool_) {
    for (IbsTally& tally : pool_->finish()) tally.drain_into(aggregator_, counts_);
    pool_.reset();
  }
  for (Row& row : rows_) {
    if (by_ != RowKind::process) continue;
    const std::string_view comm = processes_.comm_of(row.pid);
    row.name = comm.empty() ? fmt::format("[{}]", row.pid) : fmt::format("{} [{}]", comm, row.pid);
  }
}

}  // namespace tagop::cli
