// Is a user's command's figure the command's, or does it carry dlcbench's
// own cost? For each command below, `dlcbench run --envs host -- COMMAND`
// and `hyperfine -N COMMAND` alternate round by round (the order flipping
// every round, so drift cancels), and both medians are printed with their
// difference and ratio:
//
//   /bin/true, sleep 0.01   the figure is the command's run time, start to
//                           exit, as dlcbench-probe times it
//   seq 1 2000000           2 million lines and a last one with the figure,
//                           under sh, with a --metric reading every line,
//                           against the same piped to cat (a reader of the
//                           same output)
//
// Beside them, each launch's whole wall time as dlcbench waits for it (the
// probe's start, its reading of the surroundings and of the libraries): what
// a launch costs, which is not its figure.
//
//   command_vs_hyperfine [--rounds N] [--runs M]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/scratch_dir.h"
#include "core/statistics.h"
#include "hyperfine_reference.h"

namespace fs = std::filesystem;
using namespace dlcbench;

namespace {

struct Command {
  std::string name;
  std::vector<std::string> options;  // dlcbench's, before "--"
  std::vector<std::string> argv;
  std::vector<std::string> reference;  // what hyperfine -N runs
};

struct Times {
  std::vector<double> figure, launch, hyperfine;
};

// One `dlcbench run` of the command on the host: each launch's figure (the
// command's run time) and its whole wall time.
void dlcbench_times(const Command& c, int runs, const fs::path& out, Times& times) {
  std::vector<std::string> argv = {DLCBENCH_BINARY, "run",         "--envs", "host", "--runs", std::to_string(runs),
                                   "--max-runs",    std::to_string(runs), "--warmup", "0", "--out", out.string()};
  argv.insert(argv.end(), c.options.begin(), c.options.end());
  argv.push_back("--");
  argv.insert(argv.end(), c.argv.begin(), c.argv.end());
  bench::run_or_throw(argv);
  for (const auto& run : fs::directory_iterator(out)) {
    std::ifstream results(run.path() / "results.jsonl");
    for (std::string line; std::getline(results, line);) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || j.value("type", "") != "command_run") continue;
      if (j.contains("command_seconds") && j["command_seconds"].is_number())
        times.figure.push_back(j["command_seconds"].get<double>());
      times.launch.push_back(j.value("wall_seconds", 0.0));
    }
  }
}

double median_of(std::vector<double> v) { return v.empty() ? 0 : summarize(v).median; }

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3, runs = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") rounds = std::stoi(argv[i + 1]);
    else if (flag == "--runs") runs = std::stoi(argv[i + 1]);
    else throw std::runtime_error("usage: command_vs_hyperfine [--rounds N] [--runs M]");
  }
  const std::vector<Command> commands = {
      {"/bin/true", {}, {"/bin/true"}, {"/bin/true"}},
      {"sleep 0.01", {}, {"sleep", "0.01"}, {"sleep", "0.01"}},
      // A log of two million lines and one with the figure, as a training
      // script prints: the metric reads all of them.
      {"seq 1 2000000", {"--metric", "total ([0-9]+)", "--metric-unit", "lines"},
       {"sh", "-c", "seq 1 2000000; echo total 2000000"}, {"sh", "-c", "seq 1 2000000 | cat; echo total 2000000"}},
  };
  ScratchDir scratch("command-vs-hyperfine");
  std::map<std::string, Times> by_command;
  for (int round = 0; round < rounds; ++round)
    for (const auto& c : commands) {
      Times& t = by_command[c.name];
      const fs::path out = scratch.path() / fmt::format("r{}-{}", round, &c - commands.data());
      const fs::path json = scratch.path() / fmt::format("r{}-{}.json", round, &c - commands.data());
      auto reference = [&] {
        const auto v = bench::hyperfine_times(c.reference, runs, json);
        t.hyperfine.insert(t.hyperfine.end(), v.begin(), v.end());
      };
      if (round % 2) reference();
      dlcbench_times(c, runs, out, t);
      if (!(round % 2)) reference();
    }
  std::cout << fmt::format("{} rounds of {} runs each, alternating; medians in ms\n", rounds, runs);
  std::cout << fmt::format("{:<16} {:>12} {:>14} {:>11} {:>7} {:>16}\n", "command", "dlcbench", "hyperfine -N",
                           "difference", "ratio", "launch (wall)");
  for (const auto& c : commands) {
    const Times& t = by_command[c.name];
    const double d = median_of(t.figure), h = median_of(t.hyperfine), w = median_of(t.launch);
    std::cout << fmt::format("{:<16} {:>12.3f} {:>14.3f} {:>+11.3f} {:>7.3f} {:>16.3f}\n", c.name, 1e3 * d, 1e3 * h,
                             1e3 * (d - h), h > 0 ? d / h : 0.0, 1e3 * w);
  }
  return 0;
}
