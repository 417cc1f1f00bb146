#include <tagop/emulate/counts_file.hpp>

#include <fstream>  // std::ifstream

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // reading the file

#include <tagop/emulate/core_model.hpp>  // CoreModel::modelled
#include <tagop/error.hpp>               // Error

namespace tagop::emulate {

using json = nlohmann::ordered_json;

std::optional<std::uint64_t> CountsFile::Model::count(const Predicate& p) const {
  const ConditionSet used = p.used();
  const bool fetch = used.contains(condition("fetch"));
  if (!(fetch ? modelled_fetch : modelled_op).contains_all(used)) return std::nullopt;
  std::uint64_t n = 0;
  for (const Signature& s : signatures)
    if (p.matches(s.conditions)) n += s.count;
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
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
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
      m.ops = jm.at("ops").get<std::uint64_t>();
      m.fetches = jm.at("fetches").get<std::uint64_t>();
      const std::string where = "model " + m.model;
      m.modelled_op = conditions(jm.at("modelled").at("op"), where);
      m.modelled_fetch = conditions(jm.at("modelled").at("fetch"), where);
      for (const json& s : jm.at("signatures"))
        m.signatures.push_back({s.at("kind") == "fetch" ? SampleKind::fetch : SampleKind::op,
                                conditions(s.at("conditions"), where), s.at("count").get<std::uint64_t>()});
      for (const json& e : jm.at("events")) {
        CountsFile::Event ev{e.at("name").get<std::string>(), e.at("code").get<std::string>(),
                             e.at("predicate").get<std::string>(),
                             e.at("kind") == "fetch" ? SampleKind::fetch : SampleKind::op, std::nullopt};
        if (!e.at("count").is_null()) ev.count = e.at("count").get<std::uint64_t>();
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
