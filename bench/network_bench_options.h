// The options of the benchmarks that launch `dlcbench worker` on the four
// networks: which networks, how many rounds, and each launch's batches.
#pragma once

#include <iostream>
#include <optional>
#include <string>

namespace dlcbench::bench {

struct NetworkBenchOptions {
  std::string workloads = "fcn5,alexnet,resnet56,lstm";
  int runs = 10;
  int batch = 0;  // 0: each network's default
  int warmup = 5;
  int iters = 20;
  int threads = 2;
};

// "--flag value" pairs; an unknown flag or a value that is not a number is
// reported on stderr and gives nullopt.
inline std::optional<NetworkBenchOptions> parse_network_bench_options(int argc, char** argv,
                                                                      NetworkBenchOptions o = {}) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::cerr << flag << " needs a value\n";
      return std::nullopt;
    }
    const std::string value = argv[i + 1];
    try {
      if (flag == "--workloads") o.workloads = value;
      else if (flag == "--runs") o.runs = std::stoi(value);
      else if (flag == "--batch") o.batch = std::stoi(value);
      else if (flag == "--warmup") o.warmup = std::stoi(value);
      else if (flag == "--iters") o.iters = std::stoi(value);
      else if (flag == "--threads") o.threads = std::stoi(value);
      else {
        std::cerr << "unknown option " << flag
                  << ": the options are --workloads, --runs, --batch, --warmup, --iters and --threads\n";
        return std::nullopt;
      }
    } catch (const std::exception&) {
      std::cerr << flag << " " << value << ": not a number\n";
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace dlcbench::bench
