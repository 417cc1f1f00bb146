#pragma once
// A Programming (lib) as the CLI's output record (output_records.hpp).

#include <tagop/programming.hpp>  // Programming

#include "output_records.hpp"

namespace tagop::cli {

/// `pmu` types are read from this machine's sysfs (null where it has no such PMU).
ProgramRecord program_record(const Programming& p);

}  // namespace tagop::cli
