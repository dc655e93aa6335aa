// The "user's command" of the command tests: a static program (it runs in a
// root file system that holds nothing else) that does a fixed amount of
// arithmetic per step and prints "step I SECONDS s" after each, as a
// training script prints its step times.
//   command_steps STEPS [INPUT_FILE] [--exit-unless PATH CODE] [--getppid N]
// prints the size of INPUT_FILE and the variable DLCBENCH_TEST_VAR first;
// with --exit-unless, where PATH does not exist it ends with status CODE
// after writing a line to stderr; with --getppid it makes exactly N getppid
// calls first (a known count for the counting launch).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  int exit_code = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--exit-unless") == 0 && i + 2 < argc) {
      const bool exists = static_cast<bool>(std::ifstream(argv[i + 1]));
      if (!exists) exit_code = std::atoi(argv[i + 2]);
      i += 2;
    } else if (std::strcmp(argv[i], "--getppid") == 0 && i + 1 < argc) {
      const long calls = std::atol(argv[++i]);
      for (long k = 0; k < calls; ++k) (void)syscall(SYS_getppid);
    } else {
      std::ifstream in(argv[i], std::ios::binary | std::ios::ate);
      std::printf("input %s has %lld bytes\n", argv[i], in ? static_cast<long long>(in.tellg()) : -1LL);
    }
  }
  const char* var = std::getenv("DLCBENCH_TEST_VAR");
  std::printf("DLCBENCH_TEST_VAR=%s\n", var ? var : "(unset)");
  volatile double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (long k = 0; k < 4000000; ++k) sum = sum + static_cast<double>(k) * 1e-9;
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("step %d %.6f s\n", i, took.count());
    std::fflush(stdout);
  }
  if (exit_code) std::fprintf(stderr, "command_steps: failing on purpose with status %d\n", exit_code);
  return exit_code;
}
