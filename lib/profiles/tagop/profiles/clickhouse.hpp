#pragma once
// A ClickHouse server's HTTP interface, the one every version speaks
// (https://clickhouse.com/docs/en/interfaces/http): a query is a POST whose
// URL holds `query=`, and an INSERT's rows are the request's body, streamed
// with chunked transfer encoding, so memory stays flat however many rows.
// A plain HTTP/1.1 client over a POSIX socket: the project needs nothing of
// an HTTP library (no TLS, no redirects, one request per connection).
//
// Thread safety: a ClickHouseServer is a value (its URL); each call opens
// its own connection, so calls from several threads are safe.

#include <cstdint>      // std::uint16_t
#include <functional>   // std::function
#include <memory>       // std::unique_ptr
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace profiles {

/// One ClickHouse server, by the URL of its HTTP interface.
class ClickHouseServer {
 public:
  /// "http://127.0.0.1:8123", "http://host:8123/?database=fleet" (the
  /// query string goes with every request: database, user, password;
  /// and distributed_product_mode=local unless it sets that: a query of
  /// Distributed tables with a subquery of another, as a cluster's
  /// database of the store is read, asks each shard of its own tables).
  /// Throws tagop::Error for a URL that is not http://HOST[:PORT][/][?...].
  explicit ClickHouseServer(std::string_view url);

  /// Runs one statement and returns the server's answer (the rows, as the
  /// statement's FORMAT says; TabSeparated by default). Throws tagop::Error
  /// naming the URL when the server cannot be reached, and with the
  /// server's own message when it refuses the statement.
  std::string query(std::string_view sql) const;

  /// Runs an INSERT (`insert_sql`: "INSERT INTO t FORMAT TabSeparated")
  /// whose rows `next` appends to its argument, a batch per call, until it
  /// returns false. Each batch goes out as one chunk. Throws as query().
  void insert(std::string_view insert_sql, const std::function<bool(std::string&)>& next) const;

  /// The URL as given.
  const std::string& url() const { return url_; }

 private:
  friend class ClickHouseInsert;
  std::string url_, host_, parameters_;
  std::uint16_t port_ = 8123;
};

namespace detail {
class HttpSocket;
}

/// An INSERT under way: its rows are written a batch at a time (a chunk
/// each) as the caller makes them, and finish() ends it and reads the
/// server's answer. Destroyed without finish(), the request ends
/// unfinished, and the server drops the rows it had not yet written.
class ClickHouseInsert {
 public:
  /// Opens the connection and sends the request's head. Throws as query().
  ClickHouseInsert(const ClickHouseServer& server, std::string_view insert_sql);
  ~ClickHouseInsert();
  ClickHouseInsert(const ClickHouseInsert&) = delete;
  ClickHouseInsert& operator=(const ClickHouseInsert&) = delete;

  /// Sends rows (whole lines of the INSERT's format). Throws tagop::Error
  /// with the server's message when it stopped reading (it refused them).
  void write(std::string_view rows);
  /// Ends the request; throws tagop::Error with the server's message when
  /// it refused the rows.
  void finish();

 private:
  [[noreturn]] void fail();
  std::string url_;
  std::unique_ptr<detail::HttpSocket> socket_;
};

}  // namespace profiles
}  // namespace tagop
