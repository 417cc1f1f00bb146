#pragma once
// --threads, as report and diff take it: 0 (the default) lets the library
// decide from the capture and the CPUs the load leaves idle.

#include <cstddef>  // std::size_t
#include <string>   // std::string

#include <CLI/CLI.hpp>

namespace tagop::cli {

/// More threads than CPUs only wait their turn, and each takes memory: a
/// few per CPU is the most that can help.
std::size_t max_threads();

/// Adds --threads to `cmd`, from 0 to max_threads(), with `help`.
void add_threads_option(CLI::App& cmd, std::size_t& threads, const std::string& help);

}  // namespace tagop::cli
