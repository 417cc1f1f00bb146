#pragma once
// tagop compare ... --counts FILE: one program's measured numbers (from
// `tagop emulate --counts FILE`) beside each vendor's events.

#include <string>  // std::string

#include <tagop/predicate.hpp>  // Predicate

#include "compare_records.hpp"  // MeasuredCounts

namespace tagop::cli {

/// Per model of the file: the ops (or fetches) that meet `target`, and the
/// count of each event of the model's vendor that measures the same.
MeasuredCounts measured_counts(const Predicate& target, const std::string& counts_file);
void print_measured_counts(const Predicate& target, const std::string& counts_file, std::size_t width);

}  // namespace tagop::cli
