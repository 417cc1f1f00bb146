#include <tagop/emulate/counts_file.hpp>

#include <fcntl.h>     // open
#include <sys/stat.h>  // fstat
#include <unistd.h>    // close

#include <cerrno>   // errno
#include <cstring>  // std::strerror
#include <string>   // the file's text

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // reading the file

#include <tagop/emulate/core_model.hpp>  // CoreModel::modelled
#include <tagop/error.hpp>               // Error

namespace tagop::emulate {

using json = nlohmann::ordered_json;

namespace {

// A counts file has a few signatures per model: kilobytes.
constexpr off_t max_counts_file_size = off_t{64} << 20;

}  // namespace

std::optional<std::uint64_t> CountsFile::Model::count(const Predicate& p) const {
  const ConditionSet used = p.used();
  const bool fetch = used.contains(condition("fetch"));
  if (!(fetch ? modelled_fetch : modelled_op).contains_all(used)) return std::nullopt;
  std::uint64_t n = 0;
  for (const Signature& s : signatures) {
    // Saturates: only a crafted file's counts sum past 2^64.
    if (p.matches(s.conditions) && __builtin_add_overflow(n, s.count, &n)) return UINT64_MAX;
  }
  return n;
}

CountsFile::Model counts_of(const ModelResult& r) {
  CountsFile::Model m;
  m.model = std::string(r.spec->name);
  m.title = std::string(r.spec->title);
  m.backend = std::string(r.spec->backend);
  m.ops = r.ops;
  m.fetches = r.fetches;
  m.modelled_op = CoreModel::modelled(SampleKind::op);
  m.modelled_fetch = CoreModel::modelled(SampleKind::fetch);
  for (const SignatureCount& s : r.op_signatures) m.signatures.push_back({SampleKind::op, s.conditions, s.count});
  for (const SignatureCount& s : r.fetch_signatures) m.signatures.push_back({SampleKind::fetch, s.conditions, s.count});
  return m;
}

CountsFile read_counts_file(const std::string& path) {
  // A regular file of a bounded size, opened without waiting (a FIFO would
  // block for ever), and read from that descriptor.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(ErrorCode::io, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  std::string text;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && st.st_size <= max_counts_file_size) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    for (ssize_t n; done < text.size() && (n = ::read(fd, text.data() + done, text.size() - done)) > 0;)
      done += static_cast<std::size_t>(n);
    text.resize(done);
  }
  ::close(fd);
  if (!regular) throw Error(ErrorCode::io, fmt::format("{}: not a regular file", path));
  if (st.st_size > max_counts_file_size)
    throw Error(ErrorCode::resource, fmt::format("{}: {} bytes, more than a counts file has ({} at most)", path,
                                                 st.st_size, max_counts_file_size));
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  // A count is a non-negative integer: a float or a negative number would
  // convert to one without a word (or, past 2^64, with undefined behaviour).
  const auto count_at = [&](const json& object, const char* key, const std::string& where) {
    const json& n = object.at(key);
    if (!n.is_number_unsigned())
      throw Error(fmt::format("{}: {}: \"{}\" is {}, not a count (an integer from 0 to 2^64-1)", path, where, key,
                              n.dump()));
    return n.get<std::uint64_t>();
  };
  if (!j.is_object() || j.value("format", "") != counts_format)
    throw Error(fmt::format("{}: not a counts file of tagop emulate (no \"format\": \"{}\")", path, counts_format));
  auto conditions = [&](const json& list, const std::string& where) {
    ConditionSet c;
    for (const json& n : list) {
      const auto found = n.is_string() ? find_condition(n.get<std::string>()) : std::nullopt;
      if (!found) throw Error(fmt::format("{}: {}: unknown condition {}", path, where, n.dump()));
      c.insert(*found);
    }
    return c;
  };
  CountsFile out;
  try {
    out.command = j.at("command").get<std::string>();
    for (const json& jm : j.at("models")) {
      CountsFile::Model m;
      m.model = jm.at("model").get<std::string>();
      m.title = jm.value("title", "");
      m.backend = jm.at("backend").get<std::string>();
      const std::string where = "model " + m.model;
      m.ops = count_at(jm, "ops", where);
      m.fetches = count_at(jm, "fetches", where);
      m.modelled_op = conditions(jm.at("modelled").at("op"), where);
      m.modelled_fetch = conditions(jm.at("modelled").at("fetch"), where);
      for (const json& s : jm.at("signatures"))
        m.signatures.push_back({s.at("kind") == "fetch" ? SampleKind::fetch : SampleKind::op,
                                conditions(s.at("conditions"), where), count_at(s, "count", where)});
      for (const json& e : jm.at("events")) {
        CountsFile::Event ev{e.at("name").get<std::string>(), e.at("code").get<std::string>(),
                             e.at("predicate").get<std::string>(),
                             e.at("kind") == "fetch" ? SampleKind::fetch : SampleKind::op, std::nullopt};
        if (!e.at("count").is_null()) ev.count = count_at(e, "count", where);
        m.events.push_back(std::move(ev));
      }
      out.models.push_back(std::move(m));
    }
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: malformed counts file: {}", path, e.what()));
  }
  return out;
}

}  // namespace tagop::emulate
