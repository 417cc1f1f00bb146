#include <tagop/profiles/pprof.hpp>

#include <cerrno>    // errno
#include <cstring>   // std::strerror
#include <fstream>   // std::ofstream
#include <ostream>   // std::ostream
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>  // fmt::format
#include <google/protobuf/arena.h>                             // Arena
#include <google/protobuf/io/gzip_stream.h>                    // GzipOutputStream
#include <google/protobuf/io/zero_copy_stream_impl.h>          // OstreamOutputStream

#include <tagop/error.hpp>  // tagop::Error
#include <tagop/text.hpp>   // valid_utf8

#include "profile.pb.h"  // generated from proto/profile.proto

namespace tagop::profiles {

namespace {

namespace pb = perftools::profiles;

constexpr const char* numeric_label_unit = "id";

/// pprof's string table: string_table[0] is "", every string once, as
/// UTF-8 (protobuf's string fields must be: a capture's names need not).
class StringTable {
 public:
  explicit StringTable(pb::Profile& out) : out_(out) { index(""); }
  std::int64_t index(std::string_view s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<std::int64_t>(ids_.size()));
    if (added) out_.add_string_table(valid_utf8(s));
    return it->second;
  }

 private:
  pb::Profile& out_;
  std::unordered_map<std::string_view, std::int64_t> ids_;  // views of strings that outlive the write
};

struct FunctionKey {
  std::int64_t name, system_name, file;
  friend bool operator==(const FunctionKey&, const FunctionKey&) = default;
};

struct FunctionKeyHash {
  std::size_t operator()(const FunctionKey& k) const {
    return std::hash<std::int64_t>{}(k.name) * 31 * 31 + std::hash<std::int64_t>{}(k.system_name) * 31 +
           std::hash<std::int64_t>{}(k.file);
  }
};

/// Fills the profile's functions: one per distinct (name, system name,
/// file), as pprof's own merge keys them.
class FunctionTable {
 public:
  FunctionTable(pb::Profile& out, StringTable& strings) : out_(out), strings_(strings) {}
  std::uint64_t id(const Frame& frame) {
    const std::int64_t name = strings_.index(frame.function);
    const FunctionKey key{name, frame.system_name.empty() ? name : strings_.index(frame.system_name),
                          strings_.index(frame.file)};
    auto [it, added] = ids_.try_emplace(key, ids_.size() + 1);
    if (added) {
      pb::Function* f = out_.add_function();
      f->set_id(it->second);
      f->set_name(key.name);
      f->set_system_name(key.system_name);
      f->set_filename(key.file);
    }
    return it->second;
  }

 private:
  pb::Profile& out_;
  StringTable& strings_;
  std::unordered_map<FunctionKey, std::uint64_t, FunctionKeyHash> ids_;
};

void add_mappings(const Profile& profile, pb::Profile& out, StringTable& strings) {
  struct Resolution {
    bool functions = false, filenames = false, lines = false, inlines = false;
  };
  std::vector<Resolution> resolution(profile.mappings().size());
  for (const Location& l : profile.locations()) {
    if (!l.mapping) continue;
    Resolution& r = resolution[*l.mapping];
    r.inlines |= l.frames.size() > 1;
    for (const Frame& f : l.frames) {
      r.functions |= !f.function.empty();
      r.filenames |= !f.file.empty();
      r.lines |= f.line != 0;
    }
  }
  for (std::size_t i = 0; i < profile.mappings().size(); ++i) {
    const Mapping& m = profile.mappings()[i];
    pb::Mapping* pm = out.add_mapping();
    pm->set_id(i + 1);
    pm->set_memory_start(m.start);
    pm->set_memory_limit(m.limit);
    pm->set_file_offset(m.file_offset);
    pm->set_filename(strings.index(m.path));
    pm->set_build_id(strings.index(m.build_id));
    pm->set_has_functions(resolution[i].functions);
    pm->set_has_filenames(resolution[i].filenames);
    pm->set_has_line_numbers(resolution[i].lines);
    pm->set_has_inline_frames(resolution[i].inlines);
  }
}

void add_locations(const Profile& profile, pb::Profile& out, StringTable& strings) {
  FunctionTable functions(out, strings);
  for (std::size_t i = 0; i < profile.locations().size(); ++i) {
    const Location& l = profile.locations()[i];
    pb::Location* pl = out.add_location();
    pl->set_id(i + 1);
    if (l.mapping) pl->set_mapping_id(*l.mapping + 1);
    pl->set_address(l.address);
    for (const Frame& f : l.frames) {
      pb::Line* line = pl->add_line();
      line->set_function_id(functions.id(f));
      line->set_line(f.line);
    }
  }
}

// A numeric label carries a unit: pprof drops one whose num and unit are
// both 0 (proto3 does not write zeros), so cpu 0 and pid 0 would be lost.
void add_label(pb::Sample& sample, std::int64_t key, std::int64_t number, std::int64_t unit) {
  pb::Label* label = sample.add_label();
  label->set_key(key);
  label->set_num(number);
  label->set_num_unit(unit);
}

void add_samples(const Profile& profile, pb::Profile& out, StringTable& strings) {
  const std::int64_t pid = strings.index("pid"), tid = strings.index("tid"), cpu = strings.index("cpu"),
                     comm = strings.index("comm"), unit = strings.index(numeric_label_unit);
  const std::size_t types = profile.sample_types().size();
  out.mutable_sample()->Reserve(static_cast<int>(profile.sample_count()));
  for (std::size_t i = 0; i < profile.sample_count(); ++i) {
    const SampleView s = profile.sample(i);
    pb::Sample* ps = out.add_sample();
    ps->mutable_location_id()->Reserve(static_cast<int>(s.stack.size()));
    for (LocationId id : s.stack) ps->add_location_id(std::uint64_t{id} + 1);
    ps->mutable_value()->Reserve(static_cast<int>(types));
    for (std::size_t t = 0; t < types; ++t) ps->add_value(profile.exported_value(i, t));
    if (s.labels.pid) add_label(*ps, pid, *s.labels.pid, unit);
    if (s.labels.tid) add_label(*ps, tid, *s.labels.tid, unit);
    if (s.labels.cpu) add_label(*ps, cpu, *s.labels.cpu, unit);
    if (!s.labels.comm.empty()) {
      pb::Label* label = ps->add_label();
      label->set_key(comm);
      label->set_str(strings.index(s.labels.comm));
    }
  }
}

void fill(const Profile& profile, pb::Profile& out) {
  StringTable strings(out);
  for (const SampleType& t : profile.sample_types()) {
    pb::ValueType* v = out.add_sample_type();
    v->set_type(strings.index(t.name));
    v->set_unit(strings.index(t.unit));
  }
  add_mappings(profile, out, strings);
  add_locations(profile, out, strings);
  add_samples(profile, out, strings);
  if (!profile.period_type.type.empty() || !profile.period_type.unit.empty()) {
    out.mutable_period_type()->set_type(strings.index(profile.period_type.type));
    out.mutable_period_type()->set_unit(strings.index(profile.period_type.unit));
  }
  out.set_period(profile.period);
  for (const std::string& c : profile.comments) out.add_comment(strings.index(c));
  out.set_time_nanos(profile.time.start_ns);
  if (profile.time.end_ns > profile.time.start_ns) out.set_duration_nanos(profile.time.end_ns - profile.time.start_ns);
  if (profile.default_sample_type) {
    if (*profile.default_sample_type >= profile.sample_types().size())
      throw Error(fmt::format("pprof: default sample type {} is not one of the profile's {} sample types",
                              *profile.default_sample_type, profile.sample_types().size()));
    out.set_default_sample_type(strings.index(profile.sample_types()[*profile.default_sample_type].name));
  }
}

}  // namespace

void write_pprof(const Profile& profile, std::ostream& out) {
  google::protobuf::Arena arena;
  auto* message = google::protobuf::Arena::CreateMessage<pb::Profile>(&arena);
  fill(profile, *message);
  google::protobuf::io::OstreamOutputStream raw(&out);
  google::protobuf::io::GzipOutputStream::Options options;
  options.format = google::protobuf::io::GzipOutputStream::GZIP;
  google::protobuf::io::GzipOutputStream gzip(&raw, options);
  const bool ok = message->SerializeToZeroCopyStream(&gzip) && gzip.Close();
  if (!ok || !out.flush()) throw Error("pprof: writing the profile failed (the output stream reported an error)");
}

void write_pprof(const Profile& profile, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(fmt::format("pprof: cannot write {}: {}", path, std::strerror(errno)));
  try {
    write_pprof(profile, file);
  } catch (const Error&) {
    throw Error(fmt::format("pprof: writing {} failed: {}", path, std::strerror(errno)));
  }
}

}  // namespace tagop::profiles
