// The command line as the user typed it, and what both programs (dlcbench
// and dlcbench-worker) do around their commands. In the library, not in
// main.cpp: `run` records the command line, and everything that links the
// library links `run`.
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace dlcbench::cli {
namespace {

std::vector<std::string> g_invocation;

// A closed standard descriptor (`dlcbench run >&-`) would be reused by the
// next file opened: results.jsonl as descriptor 1 would receive the console
// report. Each closed one reads and writes /dev/null instead.
void keep_standard_descriptors_open() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    const int null_fd = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
}

// DLCBENCH_PARSE_ONLY=1: the options are parsed and checked as given, and
// no command runs, so the tests can hold every command line the docs show
// to the parser (tests/check_docs.py --dlcbench). The main program's
// parse-complete callback runs after every option is parsed and validated
// and before any command's callback; this ends the parse there.
struct ParsedOnly {};

}  // namespace

void set_invocation(int argc, char** argv) { g_invocation.assign(argv, argv + argc); }
const std::vector<std::string>& invocation() { return g_invocation; }

int run_program(CLI::App& app, int argc, char** argv, int& exit_code) {
  keep_standard_descriptors_open();
  set_invocation(argc, argv);
  app.set_version_flag("--version", DLCBENCH_VERSION);
  app.require_subcommand(1);
  // CLI11 answers a misspelt command with "A subcommand is required", which
  // hides the typo: name the word, and the commands there are.
  if (argc > 1 && argv[1][0] != '-') {
    const std::vector<CLI::App*> commands = app.get_subcommands({});
    if (std::none_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->get_name() == argv[1]; })) {
      std::vector<std::string> shown;
      for (const CLI::App* c : commands)
        if (!c->get_group().empty()) shown.push_back(c->get_name());  // an empty group: hidden
      const std::string program = std::filesystem::path(argv[0]).filename().string();
      std::cerr << fmt::format("error: unknown command '{}': the commands are {} (`{} --help` says what each does)\n",
                               argv[1], fmt::join(shown, ", "), program);
      return kExitUsage;
    }
  }
  if (const char* parse_only = std::getenv("DLCBENCH_PARSE_ONLY"); parse_only && *parse_only == '1')
    app.parse_complete_callback([] { throw ParsedOnly{}; });
  try {
    app.parse(argc, argv);
  } catch (const ParsedOnly&) {
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (104, 106, ...) would contradict "2 = bad input";
    // --help and --version are the parse "errors" that succeed.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: dlcbench could not allocate what this command needs; free memory or ask "
                 "for less (a smaller --batch or size)\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    // Each command turns the errors it expects into messages; this is the
    // last line, so that nothing ends in std::terminate.
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}

}  // namespace dlcbench::cli
