#include "threads_option.hpp"

#include <algorithm>  // std::max
#include <thread>     // std::thread::hardware_concurrency

#include <fmt/format.h>  // fmt::format

namespace tagop::cli {

std::size_t max_threads() { return std::max<std::size_t>(16, 4 * std::thread::hardware_concurrency()); }

void add_threads_option(CLI::App& cmd, std::size_t& threads, const std::string& help) {
  cmd.add_option("--threads", threads, fmt::format("{} Up to {} (4 per CPU, at least 16); the result does not depend on it",
                                                   help, max_threads()))
      ->check(CLI::Range(std::size_t{0}, max_threads()))
      ->capture_default_str();
}

}  // namespace tagop::cli
