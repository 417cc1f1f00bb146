#include "read_progress.hpp"

#include <memory>  // std::make_shared

#include <tagop/profiles/progress.hpp>  // ProgressBar

namespace tagop::cli {

std::function<void(std::uint64_t, std::uint64_t)> progress_of(const perf_data::PerfDataReader& reader,
                                                               const std::string& label) {
  auto bar = std::make_shared<profiles::ProgressBar>(label, reader.info().header.data.size, "bytes");
  if (!bar->active()) return {};
  return [bar](std::uint64_t done, std::uint64_t total) {
    if (done >= total) bar->finish();
    else bar->update(done);
  };
}

}  // namespace tagop::cli
