// tagop: one model for the precise-sampling hardware of AMD and Intel CPUs.

#include <fcntl.h>   // open, fcntl
#include <unistd.h>  // STDOUT_FILENO

#include <cerrno>        // errno
#include <cstdio>        // stderr, std::fflush, std::ferror
#include <cstring>       // std::strerror
#include <new>           // std::bad_alloc
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::system_error

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "commands.hpp"
#include "ingest_command.hpp"
#include "output.hpp"

namespace {

// Writes a message to stderr and ignores failure: it is what is said when
// something failed already, and stderr may be the broken stream.
void say(std::string_view message) {
  std::fwrite(message.data(), 1, message.size(), stderr);
  std::fflush(stderr);
}

// A closed stdin, stdout or stderr would be reused by the next file opened
// (a capture, a module), and output meant for stdout would go there: each
// is opened on /dev/null, read-only, so that a write to a closed stdout
// fails with EBADF, which is reported, instead.
void keep_standard_streams_open() {
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) ::open("/dev/null", O_RDONLY);
}

std::string names_of(const std::vector<CLI::App*>& commands) {
  std::string out;
  for (const CLI::App* c : commands) out += (out.empty() ? "" : ", ") + c->get_name();
  return out;
}

// CLI11 calls an unknown command "extra", and an unknown `program` target
// only "A subcommand is required": say which word is unknown, and what
// was expected there.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path = "tagop";
  for (int i = 1;; ++i) {
    std::vector<CLI::App*> commands = level->get_subcommands([](CLI::App* c) { return !c->get_group().empty(); });
    if (commands.empty()) return std::nullopt;
    if (i == argc) {
      if (level->get_require_subcommand_min() == 0) return std::nullopt;
      return fmt::format("{}: expected a command ({})\nRun '{} --help' for usage.", path, names_of(commands), path);
    }
    const std::string_view arg = argv[i];
    if (arg.starts_with("-")) return std::nullopt;  // an option: CLI11 judges it
    CLI::App* next = nullptr;
    for (CLI::App* c : level->get_subcommands({}))
      if (c->get_name() == arg) next = c;
    if (!next)
      return fmt::format("{}: unknown command '{}' (expected one of {})\nRun '{} --help' for usage.", path,
                         tagop::cli::printable(arg), names_of(commands), path);
    level = next;
    path += " " + next->get_name();
  }
}

int run(int argc, char** argv) {
  CLI::App app{
      "tagop: one model for the precise-sampling hardware of AMD and Intel CPUs.\n"
      "Every event of every vendor's table is a predicate over one vocabulary of\n"
      "op conditions; decode raw IBS registers, program the hardware, look events up.",
      "tagop"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(TAGOP_VERSION));
  app.footer(
      "Run 'tagop COMMAND --help' for a command's options and examples.\n"
      "Names from files (process names, module paths, symbols, file names) may hold any bytes: text and CSV\n"
      "output print a control character, or a byte that is not UTF-8, as \\xNN (and a backslash as \\\\);\n"
      "JSON output replaces a byte that is not UTF-8 with U+FFFD.");
  tagop::cli::add_decode_command(app);
  tagop::cli::add_program_command(app);
  tagop::cli::add_events_command(app);
  tagop::cli::add_report_command(app);
  tagop::cli::add_annotate_command(app);
  tagop::cli::add_record_command(app);
  tagop::cli::add_compare_command(app);
  tagop::cli::add_diff_command(app);
  tagop::cli::add_cpu_command(app);
  tagop::cli::add_emulate_command(app);
  tagop::cli::add_spe_command(app);
  tagop::cli::add_ingest_command(app);
  tagop::cli::add_completion_command(app);
  if (const auto message = unknown_command(app, argc, argv)) {
    say(fmt::format("{}\n", *message));
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The hint names the command whose options were wrong, if any.
    std::string help = "tagop --help";
    for (const CLI::App* command : app.get_subcommands()) help = "tagop " + command->get_name() + " --help";
    say(fmt::format("tagop: {}\nRun '{}' for usage.\n", tagop::cli::printable(e.what()), help));
    return 2;
  } catch (const tagop::Error& e) {
    say(fmt::format("tagop: {}\n", tagop::cli::printable(e.what())));
    return 1;
  }
  return 0;
}

int write_error(int error) {
  say(fmt::format("tagop: cannot write output: {}\n", std::strerror(error)));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  keep_standard_streams_open();
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::system_error& e) {
    // fmt::print throws this when a write fails (a full disk, a closed
    // stdout, a reader gone with SIGPIPE ignored).
    if (std::ferror(stdout)) return write_error(e.code().value());
    say(fmt::format("tagop: {}\n", e.what()));
    return 1;
  } catch (const std::bad_alloc&) {
    say("tagop: out of memory\n");
    return 1;
  }
  // Output that fit in the buffer is written only now: a failure here is
  // as much a failure as one in the middle.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) return write_error(errno ? errno : EIO);
  return status;
}
