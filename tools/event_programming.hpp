#pragma once
// How to program one table entry: the entry handed to its own backend's
// programmer with that backend's defaults.

#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view

#include <tagop/event.hpp>        // EventEntry
#include <tagop/programming.hpp>  // Programming

#include "ibs_processor.hpp"  // IbsProcessor

namespace tagop::cli {

struct EntryProgramming {
  std::optional<Programming> programming;  // empty when the programmer refused
  std::string request;                     // the equivalent `tagop program ...` command
  std::string refused;                     // the programmer's reason, when it refused
};

/// `spelled` is what the user wrote: a P4 event's mask bits
/// (netburst::replay_event:NBOGUS) are kept from it. An IBS event is
/// programmed for `processor` (--family) when given.
EntryProgramming program_entry(const EventEntry& e, std::string_view spelled = {},
                               const std::optional<IbsProcessor>& processor = {});

}  // namespace tagop::cli
