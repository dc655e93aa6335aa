// dlcbench-allreduce: MPI_Allreduce of float sums across the ranks of one
// MPI job, timed per call, as a data-parallel training step pays for its
// gradients. `run --slurm --allreduce` starts one rank per node, on the host
// or inside a container (src/cluster/allreduce_run.cpp); rank 0 prints one
// JSON line per message size.
//
// Each call is timed between barriers on every rank, and the figure of a
// call is the slowest rank's time (an all-reduce is done when its last rank
// is). Every call's result is checked against the sum the ranks' inputs
// must give, so a wrong transport never passes for a fast one.
//
// It is started exactly as the worker is (the image's worker path, with
// --data appended), so every environment launches it unchanged; --data is
// accepted and ignored.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

struct Options {
  std::vector<long> sizes_bytes = {8 << 10, 1 << 20, 16 << 20};
  int iterations = 50;
  int warmup = 5;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr,
               "dlcbench-allreduce: %s\nusage: dlcbench-allreduce [--sizes BYTES,...] [--iterations N] [--warmup N]\n",
               what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

long parse_positive(const std::string& text, const char* option) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value <= 0) usage_error(fmt::format("{} takes a positive whole number, not '{}'", option, text));
  return value;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--sizes") {
      o.sizes_bytes.clear();
      const std::string list = value();
      for (std::size_t start = 0; start <= list.size();) {
        const auto comma = std::min(list.find(',', start), list.size());
        const long bytes = parse_positive(list.substr(start, comma - start), "--sizes");
        if (bytes % static_cast<long>(sizeof(float)) != 0)
          usage_error(fmt::format("--sizes: {} bytes is not a whole number of floats (4 bytes each)", bytes));
        o.sizes_bytes.push_back(bytes);
        start = comma + 1;
      }
    } else if (arg == "--iterations") {
      o.iterations = static_cast<int>(parse_positive(value(), "--iterations"));
    } else if (arg == "--warmup") {
      const std::string text = value();
      o.warmup = text == "0" ? 0 : static_cast<int>(parse_positive(text, "--warmup"));
    } else if (arg == "--data") {
      value();  // the worker's launch appends it; nothing here reads data
    } else {
      usage_error("unknown argument " + arg);
    }
  }
  return o;
}

std::string slurm_node_name() {
  if (const char* node = std::getenv("SLURMD_NODENAME"); node && *node) return node;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// Rank r contributes r + 1 + i % 7 at element i: the sum at i is known in
// closed form, and a transport that drops or repeats a piece shows.
void fill(std::vector<float>& buffer, int rank) {
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<float>(rank + 1 + static_cast<int>(i % 7));
}

bool correct(const std::vector<float>& sums, int ranks) {
  const double rank_sum = ranks * (ranks + 1) / 2.0;
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const double expected = rank_sum + ranks * static_cast<double>(i % 7);
    if (std::abs(sums[i] - expected) > 1e-3 * expected) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Options options = parse(argc, argv);

  // Where each rank runs, for the record.
  char node[64] = {};
  std::snprintf(node, sizeof node, "%s", slurm_node_name().c_str());
  std::vector<char> nodes(static_cast<std::size_t>(ranks) * sizeof node);
  MPI_Gather(node, sizeof node, MPI_CHAR, nodes.data(), sizeof node, MPI_CHAR, 0, MPI_COMM_WORLD);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int library_length = 0;
  MPI_Get_library_version(library, &library_length);

  int failed = 0;
  for (const long bytes : options.sizes_bytes) {
    const auto count = static_cast<std::size_t>(bytes) / sizeof(float);
    std::vector<float> input(count), output(count);
    fill(input, rank);
    std::vector<double> seconds;
    bool all_correct = true;
    for (int i = 0; i < options.warmup + options.iterations; ++i) {
      std::fill(output.begin(), output.end(), 0.0f);
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      MPI_Allreduce(input.data(), output.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double elapsed = MPI_Wtime() - start, slowest = 0;
      MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      int ok = correct(output, ranks) ? 1 : 0, all_ok = 0;
      MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (!all_ok) all_correct = false;
      if (i >= options.warmup) seconds.push_back(slowest);
    }
    if (!all_correct) failed = 1;
    if (rank != 0) continue;
    nlohmann::json line = {{"bytes", bytes}, {"ranks", ranks}, {"iterations", options.iterations},
                           {"warmup", options.warmup}, {"seconds", seconds}, {"correct", all_correct}};
    std::vector<std::string> names;
    for (int r = 0; r < ranks; ++r) names.emplace_back(&nodes[static_cast<std::size_t>(r) * sizeof node]);
    line["nodes"] = names;
    const std::string version(library, strnlen(library, sizeof library));
    line["mpi_library"] = version.substr(0, version.find('\n'));
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
  }
  MPI_Finalize();
  return failed ? 3 : 0;
}
