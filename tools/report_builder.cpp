#include "report_builder.hpp"

#include <unistd.h>  // isatty

#include <algorithm>  // std::find
#include <cstdio>     // stderr

#include <fmt/format.h>  // fmt::format

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

std::size_t FlatIndex::slot(std::uint64_t key) const {
  const std::size_t mask = keys_.size() - 1;
  std::size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
  while (values_[i] != 0 && keys_[i] != key) i = (i + 1) & mask;
  return i;
}

const std::uint32_t* FlatIndex::find(std::uint64_t key) const {
  const std::size_t i = slot(key);
  return values_[i] ? &values_[i] : nullptr;
}

void FlatIndex::insert(std::uint64_t key, std::uint32_t value) {
  if ((size_ + 1) * 2 > keys_.size()) {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<std::uint32_t> values = std::move(values_);
    keys_.assign(keys.size() * 2, 0);
    values_.assign(keys.size() * 2, 0);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (values[i]) {
        const std::size_t j = slot(keys[i]);
        keys_[j] = keys[i];
        values_[j] = values[i];
      }
  }
  const std::size_t i = slot(key);
  if (!values_[i]) ++size_;
  keys_[i] = key;
  values_[i] = value + 1;
}

ReportBuilder::ReportBuilder(const perf_data::FileInfo& info, const amd_ibs::IbsCapture* capture, RowKind by,
                             ReportFilters filters, bool show_progress)
    : capture_(capture), by_(by), filters_(std::move(filters)), show_progress_(show_progress), symbols_(processes_) {
  processes_.add_build_ids(info.build_ids);
}

void ReportBuilder::mmap(const perf_data::MmapRecord& r) {
  processes_.mmap(r);
  last_key_ = ~std::uint64_t{0};  // the same address may now be another module
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

bool ReportBuilder::passes(const Sample& s) {
  const ReportFilters& f = filters_;
  if (!f.cpus.empty() && std::find(f.cpus.begin(), f.cpus.end(), s.cpu) == f.cpus.end()) return false;
  if (!f.pids.empty() && std::find(f.pids.begin(), f.pids.end(), s.pid) == f.pids.end()) return false;
  if (!f.comms.empty()) {
    auto [it, fresh] = comm_passes_.try_emplace(s.pid, false);
    if (fresh) {
      const std::string_view comm = processes_.comm_of(s.pid);
      it->second = std::find(f.comms.begin(), f.comms.end(), comm) != f.comms.end();
    }
    if (!it->second) return false;
  }
  if (f.where) {
    // A sample that did not observe what the predicate tests cannot be
    // said to meet it (a fetch sample knows nothing of dc.miss).
    if (!s.observed.contains_all(f.where->used())) {
      ++where_undecided_;
      return false;
    }
    if (!f.where->matches(s.conditions)) return false;
  }
  return true;
}

std::uint32_t ReportBuilder::row_named(Row row) {
  const std::string key = row.module + '\0' + row.name;
  auto [it, fresh] = row_by_name_.try_emplace(key, static_cast<std::uint32_t>(rows_.size()));
  if (fresh) rows_.push_back(std::move(row));
  return it->second;
}

template <typename MakeRow>
std::uint32_t ReportBuilder::row_for(std::uint64_t key, MakeRow&& make) {
  if (key == last_key_) return last_row_;
  std::uint32_t row;
  if (const std::uint32_t* known = row_by_key_.find(key)) {
    row = *known - 1;
  } else {
    row = row_named(make());
    row_by_key_.insert(key, row);
  }
  last_key_ = key;
  return last_row_ = row;
}

std::uint32_t ReportBuilder::row_of(const Sample& s) {
  if (by_ == RowKind::process) {
    return row_for(s.pid, [&] { return Row{.name = "", .module = "", .offset = 0, .pid = s.pid, .has_offset = false}; });
  }
  const Mapping* m = processes_.find(s.pid, s.ip);
  const std::uint32_t module = m ? m->module : no_module;
  const std::uint64_t offset = m ? m->file_offset(s.ip) : s.ip;
  auto module_path = [&]() -> std::string {
    if (m) return processes_.modules()[module].filename;
    return kernel_address(s.ip) ? "[kernel]" : "[unknown]";
  };
  if (by_ == RowKind::module) {
    const std::uint64_t key = m ? module : (kernel_address(s.ip) ? no_module : no_module - 1);
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

void ReportBuilder::sample(const perf_data::SampleRecord& r) {
  Sample s;
  if (!capture_) {
    s.ip = r.ip, s.pid = r.id.pid, s.tid = r.id.tid, s.cpu = r.id.cpu, s.time = r.id.time;
    ++other_;
    if (!passes(s)) return;
    const std::uint32_t row = row_of(s);
    if (row >= plain_counts_.size()) plain_counts_.resize(row + 1);
    ++plain_counts_[row];
    return;
  }
  amd_ibs::IbsSampleInfo info;
  std::string problem;
  switch (capture_->decode(r, s, info, problem)) {
    case amd_ibs::IbsCapture::Result::not_ibs: ++other_; return;
    case amd_ibs::IbsCapture::Result::damaged: damaged_.add(r.offset, problem); return;
    case amd_ibs::IbsCapture::Result::ok: break;
  }
  const int u = static_cast<int>(info.unit);
  ++read_[u];
  PeriodSeen& p = period_[u];
  ++p.samples;
  p.sum += info.period;
  p.min = std::min(p.min, info.period);
  p.max = std::max(p.max, info.period);
  p.counts_ops = p.counts_ops || info.counts_ops;
  if (!passes(s)) return;
  ++kept_[u];
  tally(s, row_of(s), info.kind);
}

void ReportBuilder::tally(const Sample& s, std::uint32_t row, std::uint32_t kind) {
  if (kind == amd_ibs::FastIbsDecoder::no_kind) {
    aggregator_.add(s, row);
    return;
  }
  const std::uint64_t key = std::uint64_t{row} << 32 | kind;
  std::uint32_t index;
  if (const std::uint32_t* known = tally_by_key_.find(key)) {
    index = *known - 1;
  } else {
    index = static_cast<std::uint32_t>(tallies_.size());
    tallies_.emplace_back(Signature{row, s.measured, s.conditions, s.observed}, Tally{});
    tally_by_key_.insert(key, index);
  }
  Tally& t = tallies_[index].second;
  ++t.count;
  for (std::size_t m = 0; m < measure_count; ++m) t.totals[m] += s.measures[m];
}

void ReportBuilder::finish() {
  for (const auto& [signature, t] : tallies_) aggregator_.add(signature, t);
  tallies_.clear();
  for (Row& row : rows_) {
    if (by_ != RowKind::process) continue;
    const std::string_view comm = processes_.comm_of(row.pid);
    row.name = comm.empty() ? fmt::format("[{}]", row.pid) : fmt::format("{} [{}]", comm, row.pid);
  }
}

}  // namespace tagop::cli
