// JSON lines: a line checked by hand, strings byte for byte against
// nlohmann (tagop's other JSON), the schema file against the record's
// declaration, and every line of a varied run against that schema with
// python3-jsonschema.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include <tagop/error.hpp>
#include <tagop/profiles/sample_lines.hpp>

#include "peer_tools.hpp"

using namespace tagop;
using namespace tagop::profiles;

namespace {

/// An IBS op sample: a load that missed the DC, with its latency.
Sample load_miss() {
  Sample s;
  s.conditions = {condition("op"), condition("load"), condition("dc.miss"), condition("dc.lin_addr_valid")};
  s.observed = s.conditions | ConditionSet{condition("store"), condition("dtlb.l1_miss"), condition("branch")};
  s.set_measure(measure("dc.miss_latency"), 180);
  s.set_measure(measure("op.tag_to_retire"), 212);
  s.ip = 0x555555557340;
  s.data_linear = 0x7ffd1234;
  s.time = 123456789;
  s.pid = 4242;
  s.tid = 4243;
  s.cpu = 3;
  return s;
}

std::string lines_of(const std::function<void(SampleLineWriter&)>& write, ConditionSet scope = every_condition()) {
  std::ostringstream out;
  {
    SampleLineWriter w(out, scope);
    write(w);
  }
  return out.str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("one sample line, written out by hand", "[profiles][jsonl]") {
  const ConditionSet scope{condition("op"), condition("load"), condition("store"), condition("dc.miss"),
                           condition("dc.lin_addr_valid"), condition("dtlb.l1_miss"), condition("branch"),
                           condition("l2.miss")};
  const std::string line = lines_of([](SampleLineWriter& w) { w.write(load_miss(), {"hash_join", "/usr/bin/prog"}); },
                                    scope);
  CHECK(line ==
        R"({"kind":"op","time":123456789,"pid":4242,"tid":4243,"cpu":3,"ip":"0x555555557340","ip_exact":true,)"
        R"("ip_physical":null,"data_linear":"0x7ffd1234","data_physical":null,"branch_target":null,)"
        R"("conditions":["op","load","dc.lin_addr_valid","dc.miss"],"unknown":["l2.miss"],)"
        R"("measures":{"op.tag_to_retire":212,"dc.miss_latency":180},"symbol":"hash_join","module":"/usr/bin/prog"})"
        "\n");
  // Parsed back, it is the same sample.
  const auto j = nlohmann::json::parse(line);
  CHECK(j["measures"]["dc.miss_latency"] == 180);
  CHECK(j["pid"] == 4242);
}

TEST_CASE("a fetch sample without symbol: nulls, and its physical address", "[profiles][jsonl]") {
  Sample s;
  s.conditions = {condition("fetch"), condition("fetch.completed"), condition("itlb.translated")};
  s.observed = s.conditions;
  s.ip = 0xffffffff81a2b3c0;  // a kernel address: above 2^63, exact as a string
  s.ip_physical = 0x1a2b3c0;
  s.ip_exact = false;
  s.set_measure(measure("fetch.latency"), 7);
  const std::string line = lines_of([&](SampleLineWriter& w) { w.write(s); }, s.observed);
  CHECK(line ==
        R"({"kind":"fetch","time":0,"pid":0,"tid":0,"cpu":0,"ip":"0xffffffff81a2b3c0","ip_exact":false,)"
        R"("ip_physical":"0x1a2b3c0","data_linear":null,"data_physical":null,"branch_target":null,)"
        R"("conditions":["fetch","fetch.completed","itlb.translated"],"unknown":[],)"
        R"("measures":{"fetch.latency":7},"symbol":null,"module":null})"
        "\n");
}

TEST_CASE("strings are the bytes nlohmann's dump writes, U+FFFD for what is not UTF-8", "[profiles][jsonl]") {
  auto nlohmann_string = [](const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  auto ours = [](const std::string& s) {
    std::string out;
    append_json_string(out, s);
    return out;
  };
  // Cases by hand: escapes, overlong, surrogate, truncated, stray bytes.
  CHECK(ours("a\"b\\c\n\x01\x7f/") == "\"a\\\"b\\\\c\\n\\u0001\x7f/\"");
  CHECK(ours("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  CHECK(ours("\xC3\x28") == "\"\xEF\xBF\xBD(\"");                  // a lead byte without its continuation
  CHECK(ours("\xE0\x80\xAF") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // overlong: each byte
  CHECK(ours("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  CHECK(ours("x\xE2\x82") == "\"x\xEF\xBF\xBD\"");                 // truncated at the end: one
  CHECK(ours("\xF0\x9F\x98\x80") == "\"\xF0\x9F\x98\x80\"");       // a four-byte character
  for (const char* s : {"a\"b\\c\n\x01\x7f/", "\xC3\x28", "\xE0\x80\xAF", "\xED\xA0\x80", "x\xE2\x82"})
    CHECK(ours(s) == nlohmann_string(s));

  // And on random bytes, weighted towards the hard ones.
  std::mt19937 random(19);
  const unsigned char pool[] = {'a', '"', '\\', 0x01, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed,
                                0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f, '\n', 'z'};
  for (int i = 0; i < 20000; ++i) {
    std::string s(random() % 12, '\0');
    for (char& c : s) c = static_cast<char>(pool[random() % sizeof pool]);
    INFO("case " << i);
    REQUIRE(ours(s) == nlohmann_string(s));
  }
}

TEST_CASE("the schema file is the one the record's declaration generates", "[profiles][jsonl]") {
  const std::string file = read_file(source_path("lib/profiles/schemas/sample-line.schema.json"));
  CHECK(file == sample_line_schema());
  const auto schema = nlohmann::json::parse(file);
  CHECK(schema["required"].size() == 16);
  CHECK(schema["properties"]["conditions"]["items"]["enum"].size() == condition_count);
}

TEST_CASE("the event lines' schema file is the one their declaration generates", "[profiles][jsonl]") {
  const std::string file = read_file(source_path("lib/profiles/schemas/event-line.schema.json"));
  CHECK(file == event_line_schema());
  CHECK(nlohmann::json::parse(file)["required"].size() == 9);
}

TEST_CASE("an event line, written out by hand: a null cpu when the capture has none", "[profiles][jsonl]") {
  std::string event;
  append_json_string(event, "cpu-clock:u");
  const std::string line = lines_of([&](SampleLineWriter& w) {
    w.write_event({event, 99, 7, 8, std::nullopt, 0x401000, 100000}, EscapedSymbol::of({"main", "/bin/a\"b"}));
    w.write_event({event, 100, 7, 8, 3, 0xffffffff81000000, 1}, EscapedSymbol{});
  });
  CHECK(line ==
        R"({"event":"cpu-clock:u","time":99,"pid":7,"tid":8,"cpu":null,"ip":"0x401000","period":100000,)"
        R"("symbol":"main","module":"/bin/a\"b"})"
        "\n"
        R"({"event":"cpu-clock:u","time":100,"pid":7,"tid":8,"cpu":3,"ip":"0xffffffff81000000","period":1,)"
        R"("symbol":null,"module":null})"
        "\n");
}

TEST_CASE("every line of a varied run validates against the schema (python3-jsonschema)", "[profiles][jsonl]") {
  const std::string python = peers::python3();
  if (run_shell(python + " -c 'import jsonschema'").exit_code != 0)
    FAIL(python + " has no jsonschema: install python3-jsonschema (scripts/install-deps.sh does)");
  const std::string path = (peers::scratch() / "samples.jsonl").string();
  std::mt19937_64 random(42);
  {
    std::ofstream out(path);
    SampleLineWriter w(out);
    for (int i = 0; i < 3000; ++i) {
      Sample s;
      s.conditions.insert(i % 3 ? condition("op") : condition("fetch"));
      for (std::size_t c = 2; c < condition_count; ++c) {
        if (random() % 8 == 0) s.conditions.insert(Condition{static_cast<std::uint8_t>(c)});
        if (random() % 2 == 0) s.observed.insert(Condition{static_cast<std::uint8_t>(c)});
      }
      s.observed |= s.conditions;
      for (std::size_t m = 0; m < measure_count; ++m)
        if (random() % 3 == 0) s.set_measure(Measure{static_cast<std::uint8_t>(m)}, static_cast<std::uint32_t>(random()));
      s.ip = random();
      s.data_linear = random();
      s.branch_target = random() % 2 ? random() : 0;
      s.time = random();
      s.pid = static_cast<std::uint32_t>(random());
      s.cpu = static_cast<std::uint32_t>(random() % 256);
      const std::string symbol = i % 5 == 0 ? std::string("bad \xff\xfe utf-8 \"quoted\"\n") : "f" + std::to_string(i);
      w.write(s, {symbol, i % 7 == 0 ? "" : "/usr/lib/libx.so"});
    }
    w.flush();
    CHECK(w.lines() == 3000);
  }
  const RunResult r = peers::validate_lines("lib/profiles/schemas/sample-line.schema.json", path);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "valid 3000\n");
}

TEST_CASE("memory stays flat: lines reach the stream in bounded chunks as they are written", "[profiles][jsonl]") {
  struct CountingBuffer : std::streambuf {
    std::size_t writes = 0, largest = 0, total = 0;
    std::streamsize xsputn(const char*, std::streamsize n) override {
      ++writes;
      largest = std::max(largest, static_cast<std::size_t>(n));
      total += static_cast<std::size_t>(n);
      return n;
    }
  } counting;
  std::ostream out(&counting);
  SampleLineWriter w(out);
  const Sample s = load_miss();
  for (int i = 0; i < 20000; ++i) w.write(s, {"hash_join", "/usr/bin/prog"});
  CHECK(counting.writes >= 5);                  // written as it goes, not held to the end
  CHECK(counting.largest < (1u << 20) + 4096);  // never more than the buffer and a line
  w.flush();
  CHECK(counting.total > 20000u * 300);
}

TEST_CASE("event lines: numbers of every length read back as written (nlohmann's parser, strtoull for hex)",
          "[profiles][jsonl]") {
  // Every digit count: 10^k - 1, 10^k and 10^k + 1, each power of two and
  // the one below it, and random values of every width.
  std::vector<std::uint64_t> values{0, std::numeric_limits<std::uint64_t>::max()};
  for (std::uint64_t p = 1; p <= 10'000'000'000'000'000'000u; p *= 10) {
    values.insert(values.end(), {p - 1, p, p + 1});
    if (p > std::numeric_limits<std::uint64_t>::max() / 10) break;
  }
  for (int bit = 0; bit < 64; ++bit) values.insert(values.end(), {std::uint64_t{1} << bit, (std::uint64_t{1} << bit) - 1});
  std::mt19937_64 random(38);
  for (int i = 0; i < 20000; ++i) values.push_back(random() >> (random() % 64));
  std::string event;
  append_json_string(event, "cycles");
  const EscapedSymbol symbol = EscapedSymbol::of({"main", "/bin/a"});
  const std::string text = lines_of([&](SampleLineWriter& w) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint64_t v = values[i], other = values[values.size() - 1 - i];
      w.write_event({event, v, static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(other), std::nullopt, other, v},
                    symbol);
    }
  });
  std::istringstream lines(text);
  std::string line;
  std::size_t i = 0;
  for (; std::getline(lines, line); ++i) {
    REQUIRE(i < values.size());
    const std::uint64_t v = values[i], other = values[values.size() - 1 - i];
    const auto j = nlohmann::json::parse(line);
    INFO(line);
    CHECK(j["time"].get<std::uint64_t>() == v);
    CHECK(j["pid"].get<std::uint32_t>() == static_cast<std::uint32_t>(v));
    CHECK(j["tid"].get<std::uint32_t>() == static_cast<std::uint32_t>(other));
    CHECK(j["period"].get<std::uint64_t>() == v);
    const std::string ip = j["ip"].get<std::string>();
    REQUIRE(ip.rfind("0x", 0) == 0);
    CHECK(std::strtoull(ip.c_str() + 2, nullptr, 16) == other);
    CHECK((ip.size() == 3 || ip[2] != '0'));  // no leading zeros
  }
  CHECK(i == values.size());
}

TEST_CASE("held lines: their symbols given later, the text is the lines written in order with them",
          "[profiles][jsonl]") {
  std::string event;
  append_json_string(event, "cpu-clock");
  const EscapedSymbol user = EscapedSymbol::of({"main", "/bin/a"});
  const EscapedSymbol kernel = EscapedSymbol::of({"do_syscall_64", "[kernel.kallsyms]"});
  // Every third line's symbol is late, over more lines than a write's
  // worth, written on the writer's own thread or not; and over more than
  // the buffer holds (64 MiB), which it grows to hold.
  const auto [lines, behind] = GENERATE(table<int, bool>({{30000, false}, {30000, true}, {500000, true}}));
  INFO(lines << " lines, write_behind " << behind);
  const auto kernel_line = [](int i) { return i % 3 == 1; };
  const auto sample = [&](int i) {
    return EventSample{event, static_cast<std::uint64_t>(i), 7, 8, 1, 0x401000u + static_cast<std::uint64_t>(i), 1};
  };
  const std::string direct = lines_of([&](SampleLineWriter& w) {
    for (int i = 0; i < lines; ++i) w.write_event(sample(i), kernel_line(i) ? kernel : user);
  });
  std::ostringstream out;
  std::size_t written_before_fill = 0;
  {
    SampleLineWriter w(out);
    w.write_behind(behind);
    w.write_event(sample(0), user);
    w.flush();
    const std::size_t first = out.str().size();
    std::vector<const EscapedSymbol*> late;
    for (int i = 1; i < lines; ++i) {
      if (kernel_line(i)) {
        w.write_event_held(sample(i));
        late.push_back(&kernel);
      } else {
        w.write_event(sample(i), user);
      }
    }
    CHECK(w.held() == late.size());
    CHECK(w.held_bytes() > (2u << 20));  // more than the buffer holds unheld
    w.flush();                           // only what comes before the first held symbol
    written_before_fill = out.str().size();
    CHECK(written_before_fill > first);
    CHECK(direct.compare(0, written_before_fill, out.str()) == 0);
    CHECK(out.str().find('\n', first) == std::string::npos);  // the first held line is not ended
    const std::vector<const EscapedSymbol*> too_few(late.begin(), late.end() - 1);
    CHECK_THROWS_AS(w.fill_held(too_few), Error);
    w.fill_held(late);
    CHECK(w.held() == 0);
    CHECK(w.lines() == static_cast<std::uint64_t>(lines));
  }
  CHECK(out.str() == direct);
}

TEST_CASE("held IBS lines: the same bytes as lines written with their symbols", "[profiles][jsonl]") {
  const Sample s = load_miss();
  const EscapedSymbol symbol = EscapedSymbol::of({"hash_join", "/usr/bin/prog"});
  const std::string direct = lines_of([&](SampleLineWriter& w) {
    w.write_escaped(s, symbol);
    w.write_escaped(s, EscapedSymbol{});
  });
  const std::string held = lines_of([&](SampleLineWriter& w) {
    w.write_held(s);
    w.write_held(s);
    const EscapedSymbol none;
    const std::vector<const EscapedSymbol*> late{&symbol, &none};
    w.fill_held(late);
  });
  CHECK(held == direct);
}
