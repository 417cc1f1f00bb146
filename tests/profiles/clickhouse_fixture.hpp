#pragma once
// A local clickhouse-server for the store's tests: started once per test
// executable (the first test that asks), on free loopback ports, its data
// in a temporary folder, and stopped (folder removed) at exit. Without the
// binary (clickhouse-server, Debian's package; TAGOP_CLICKHOUSE_SERVER names
// another) the tests that need it are skipped with a message saying so.
// Several servers can be started at once (the two shards of a cluster);
// each config may name the cluster's shards (remote_servers).

#include <csignal>     // kill
#include <cstdlib>     // std::getenv, mkdtemp
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <memory>      // std::unique_ptr
#include <optional>    // std::optional
#include <string>      // std::string
#include <thread>      // std::this_thread
#include <vector>      // std::vector

#include <fcntl.h>       // open
#include <netinet/in.h>  // sockaddr_in
#include <sys/prctl.h>   // prctl
#include <sys/socket.h>  // socket, bind
#include <sys/wait.h>    // waitpid
#include <unistd.h>      // fork, execl

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>                // tagop::Error
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer

namespace tagop::test {

/// The clickhouse-server binary, or "" when it is not installed.
inline std::string clickhouse_binary() {
  if (const char* named = std::getenv("TAGOP_CLICKHOUSE_SERVER")) return access(named, X_OK) == 0 ? named : "";
  for (const char* path : {"/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server", "/usr/bin/clickhouse"})
    if (access(path, X_OK) == 0) return path;
  return "";
}

/// A loopback TCP port no one listens on now (the kernel's choice).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t size = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  ::close(fd);
  return ntohs(a.sin_port);
}

class LocalClickHouse {
 public:
  /// Ports of this server: HTTP for tagop, TCP for the other shards.
  int http_port = free_port(), tcp_port = free_port();

  /// `cluster`: the name and the TCP ports of a cluster's shards, one
  /// replica each, written into the config's remote_servers.
  /// `tcp`: this server's TCP port, when the cluster's config must name it
  /// before it starts (0: a free one).
  LocalClickHouse(const std::string& binary, const std::string& cluster_name = {},
                  const std::vector<int>& shard_ports = {}, int tcp = 0) {
    if (tcp) tcp_port = tcp;
    std::string pattern = (std::filesystem::temp_directory_path() / "tagop-clickhouse.XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot make a temporary folder for clickhouse-server");
    dir_ = pattern;
    std::string shards;
    for (int port : shard_ports)
      shards += fmt::format("<shard><replica><host>127.0.0.1</host><port>{}</port></replica></shard>", port);
    std::ofstream(dir_ / "config.xml") << fmt::format(
        R"(<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>0</console><log>{0}/server.log</log><errorlog>{0}/error.log</errorlog></logger>
  <http_port>{1}</http_port><tcp_port>{2}</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>{0}/data/</path><tmp_path>{0}/tmp/</tmp_path><user_files_path>{0}/user_files/</user_files_path>
  <format_schema_path>{0}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <remote_servers>{3}</remote_servers>
</yandex>
)",
        dir_.string(), http_port, tcp_port,
        cluster_name.empty() ? "" : fmt::format("<{0}>{1}</{0}>", cluster_name, shards));
    std::ofstream(dir_ / "users.xml") << R"(<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
)";
    pid_ = fork();
    if (pid_ == 0) {
      // A test killed (a timeout, a crash) takes its server with it.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      // Its start-up lines ("Logging warning to ...") would fill the test's output.
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      if (chdir(dir_.c_str()) != 0) _exit(126);
      const std::string config = "--config-file=" + (dir_ / "config.xml").string();
      execl(binary.c_str(), binary.c_str(), config.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Ready when its HTTP port answers a query (a few seconds at most).
    const profiles::ClickHouseServer server(url());
    for (int i = 0; i < 300; ++i) {
      try {
        server.query("SELECT 1");
        return;
      } catch (const Error&) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          throw Error(fmt::format("clickhouse-server exited at start; see {}", (dir_ / "error.log").string()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    throw Error(fmt::format("clickhouse-server did not answer on port {} in 15 s", http_port));
  }
  ~LocalClickHouse() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  LocalClickHouse(const LocalClickHouse&) = delete;
  LocalClickHouse& operator=(const LocalClickHouse&) = delete;

  std::string url() const { return fmt::format("http://127.0.0.1:{}", http_port); }
  /// Stops the server now (for the test of a server that is down).
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

/// The executable's one server, started on first use; null (after a
/// message) when clickhouse-server is not installed.
inline LocalClickHouse* shared_clickhouse() {
  static std::unique_ptr<LocalClickHouse> server = [] {
    const std::string binary = clickhouse_binary();
    if (binary.empty()) {
      fmt::print(stderr, "SKIP: clickhouse-server is not installed (scripts/install-deps.sh installs it); "
                         "the store's tests need it\n");
      return std::unique_ptr<LocalClickHouse>();
    }
    return std::make_unique<LocalClickHouse>(binary);
  }();
  return server.get();
}

}  // namespace tagop::test
