// The command line as the user typed it. In the library, not in main.cpp:
// `run` records it, and everything that links the library links `run`.
#include "cli/commands.h"

namespace dlcbench::cli {
namespace {
std::vector<std::string> g_invocation;
}

void set_invocation(int argc, char** argv) { g_invocation.assign(argv, argv + argc); }
const std::vector<std::string>& invocation() { return g_invocation; }

}  // namespace dlcbench::cli
