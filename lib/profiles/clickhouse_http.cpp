// HTTP/1.1 to ClickHouse over a POSIX socket: one POST per statement,
// `Connection: close`, the answer read to the end of the connection and
// un-chunked. Small on purpose: the server is ours to name (a loopback or
// a fleet's store), plain HTTP, and the answers are short except SELECTs.

#include <tagop/profiles/clickhouse.hpp>

#include <cerrno>    // errno
#include <cstring>   // std::strerror
#include <memory>    // std::unique_ptr

#include <netdb.h>       // getaddrinfo
#include <sys/socket.h>  // socket, connect, send, recv
#include <unistd.h>      // close

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // tagop::Error

namespace tagop::profiles {

namespace {

std::string url_encoded(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace

class detail::HttpSocket {
 public:
  HttpSocket(const std::string& url, const std::string& host, std::uint16_t port) : url_(url) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int e = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); e != 0)
      throw Error(fmt::format("{}: cannot resolve host '{}': {}", url, host, gai_strerror(e)));
    std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, freeaddrinfo);
    int error = 0;
    for (addrinfo* a = found; a; a = a->ai_next) {
      fd_ = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
      if (fd_ < 0) {
        error = errno;
        continue;
      }
      if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) return;
      error = errno;
      ::close(fd_);
      fd_ = -1;
    }
    throw Error(fmt::format("{}: cannot connect to a ClickHouse server there: {} (is clickhouse-server running, "
                            "and is this its HTTP port?)",
                            url, std::strerror(error)));
  }
  ~HttpSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  HttpSocket(const HttpSocket&) = delete;
  HttpSocket& operator=(const HttpSocket&) = delete;

  void send_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        // The server may have answered and closed (a refused INSERT): its
        // answer says why, so read it rather than report the broken pipe.
        throw std::system_error(errno, std::generic_category());
      }
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  std::string receive_all() {
    std::string out;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error(fmt::format("{}: reading the server's answer: {}", url_, std::strerror(errno)));
      }
      if (n == 0) return out;
      out.append(buffer, static_cast<std::size_t>(n));
    }
  }

 private:
  std::string url_;
  int fd_ = -1;
};

namespace {

// The body of a chunked answer.
std::string unchunked(std::string_view body, const std::string& url) {
  std::string out;
  for (;;) {
    const std::size_t eol = body.find("\r\n");
    if (eol == std::string_view::npos) throw Error(fmt::format("{}: a chunked answer ends early", url));
    const std::size_t size = std::stoul(std::string(body.substr(0, eol)), nullptr, 16);
    body.remove_prefix(eol + 2);
    if (size == 0) return out;
    if (body.size() < size) throw Error(fmt::format("{}: a chunked answer ends early", url));
    out.append(body.substr(0, size));
    body.remove_prefix(std::min(body.size(), size + 2));
  }
}

// The answer's body, or an Error with the server's message.
std::string answer_of(const std::string& response, const std::string& url) {
  const std::size_t head_end = response.find("\r\n\r\n");
  if (response.compare(0, 5, "HTTP/") != 0 || head_end == std::string::npos)
    throw Error(fmt::format("{}: the answer is not HTTP (is this a ClickHouse server's HTTP port?)", url));
  const std::string head = response.substr(0, head_end);
  std::string body = response.substr(head_end + 4);
  std::string lower;
  for (char c : head) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("transfer-encoding: chunked") != std::string::npos) body = unchunked(body, url);
  const std::size_t space = head.find(' ');
  const int status = space == std::string::npos ? 0 : std::atoi(head.c_str() + space + 1);
  if (status != 200) {
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    throw Error(fmt::format("{}: the server refused the statement (HTTP {}): {}", url, status, body));
  }
  return body;
}

}  // namespace

ClickHouseServer::ClickHouseServer(std::string_view url) : url_(url) {
  constexpr std::string_view scheme = "http://";
  if (url.substr(0, scheme.size()) != scheme)
    throw Error(fmt::format("'{}': a ClickHouse URL is http://HOST[:PORT][/?PARAMETERS] (its HTTP interface; "
                            "https is not supported)",
                            url));
  std::string_view rest = url.substr(scheme.size());
  const std::size_t end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, end);
  if (end != std::string_view::npos) {
    std::string_view tail = rest.substr(end);
    if (tail.front() == '/') tail.remove_prefix(1);
    if (!tail.empty() && tail.front() == '?') tail.remove_prefix(1);
    else if (!tail.empty())
      throw Error(fmt::format("'{}': a ClickHouse URL has no path (its parameters go after '?')", url));
    parameters_ = std::string(tail);
  }
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']') == std::string_view::npos) {
    const std::string port(authority.substr(colon + 1));
    char* stop = nullptr;
    const unsigned long value = std::strtoul(port.c_str(), &stop, 10);
    if (port.empty() || *stop != '\0' || value == 0 || value > 65535)
      throw Error(fmt::format("'{}': the port '{}' is not a number from 1 to 65535", url, port));
    port_ = static_cast<std::uint16_t>(value);
    authority = authority.substr(0, colon);
  }
  if (authority.empty()) throw Error(fmt::format("'{}': the URL names no host", url));
  host_ = std::string(authority);
  // Through a cluster's Distributed tables (report::create_cluster_store),
  // `capture IN (SELECT capture FROM captures)` is a Distributed table's
  // in another's, which ClickHouse refuses unless told how to read it:
  // each shard against its own tables, where tagop's ingest puts a
  // capture's rows and its captures' row together.
  if (("&" + parameters_).find("&distributed_product_mode=") == std::string::npos)
    parameters_ += std::string(parameters_.empty() ? "" : "&") + "distributed_product_mode=local";
}

std::string ClickHouseServer::query(std::string_view sql) const {
  return answer_of(
      [&] {
        detail::HttpSocket socket(url_, host_, port_);
        const std::string target = parameters_.empty() ? "/" : "/?" + parameters_;
        socket.send_all(fmt::format("POST {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: "
                                    "{}\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n",
                                    target, host_, sql.size()));
        socket.send_all(sql);
        return socket.receive_all();
      }(),
      url_);
}

void ClickHouseServer::insert(std::string_view insert_sql, const std::function<bool(std::string&)>& next) const {
  ClickHouseInsert insert(*this, insert_sql);
  std::string batch;
  for (bool more = true; more;) {
    batch.clear();
    more = next(batch);
    insert.write(batch);
  }
  insert.finish();
}

ClickHouseInsert::ClickHouseInsert(const ClickHouseServer& server, std::string_view insert_sql)
    : url_(server.url_), socket_(std::make_unique<detail::HttpSocket>(server.url_, server.host_, server.port_)) {
  const std::string& parameters = server.parameters_;
  const std::string target =
      fmt::format("/?{}{}query={}", parameters, parameters.empty() ? "" : "&", url_encoded(insert_sql));
  try {
    socket_->send_all(fmt::format("POST {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nTransfer-Encoding: "
                                  "chunked\r\n\r\n",
                                  target, server.host_));
  } catch (const std::system_error&) {
    fail();
  }
}

ClickHouseInsert::~ClickHouseInsert() = default;

void ClickHouseInsert::fail() {
  // The server stopped reading: its answer says why.
  answer_of(socket_->receive_all(), url_);
  throw Error(fmt::format("{}: the server closed the connection during the INSERT", url_));
}

void ClickHouseInsert::write(std::string_view rows) {
  if (rows.empty()) return;
  try {
    socket_->send_all(fmt::format("{:x}\r\n", rows.size()));
    socket_->send_all(rows);
    socket_->send_all("\r\n");
  } catch (const std::system_error&) {
    fail();
  }
}

void ClickHouseInsert::finish() {
  try {
    socket_->send_all("0\r\n\r\n");
  } catch (const std::system_error&) {
    fail();
  }
  answer_of(socket_->receive_all(), url_);
}

}  // namespace tagop::profiles
