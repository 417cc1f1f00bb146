#pragma once
// The units an export gives its values, shared by the profile
// (export.cpp) and the page's table (export_html.cpp).

#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/amd_ibs/derived_events.hpp>  // IbsDerivedEventSpec

namespace tagop::report {

/// The unit a derived event's value is in: its measure's, or a count.
std::string event_unit(const amd_ibs::IbsDerivedEventSpec& e);

/// A capture without IBS: the unit of an event's periods (perf report's
/// numbers), nanoseconds for the clocks, a count otherwise.
std::string period_unit(std::string_view event);

/// A derived event's name as a profile's sample type: "IBS DC miss load
/// latency" -> "ibs_dc_miss_load_latency", a name pprof's -sample_index and
/// SQL engines take without quotes.
std::string sample_type_name(std::string_view name);

}  // namespace tagop::report
