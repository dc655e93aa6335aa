// Is dlcbench's start-up figure the environment's, or does it carry
// dlcbench's own cost of starting a process? `dlcbench run --workloads
// startup` and `hyperfine -N` time the same start alternately, round by round
// in one run (the order flipping every round so drift cancels), and both
// medians are printed per environment with their difference and ratio:
//
//   host    build/dlcbench-noop, as dlcbench starts it
//   runc    `runc --root STATE run --bundle BUNDLE NAME` on a bundle written by
//           dlcbench's own code (the same rootfs content and config.json as
//           its runc environment writes, less the worker's environment
//           variables), starting /opt/dlcbench/bin/dlcbench-noop
//   docker  the `docker run` command dlcbench recorded in its manifest, without
//           the container name (hyperfine cannot change it per start) and with
//           the noop program, on the image dlcbench built (kept with
//           --keep-images, removed at the end if this program made it)
//
//   startup_vs_hyperfine [--runs N] [--starts M] [--runtimes runc,docker]
//
// hyperfine's command is quoted as bench/hyperfine_reference.h says.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/companion_programs.h"
#include "hyperfine_reference.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "core/statistics.h"
#include "orchestrator/plan.h"
#include "runtimes/environment.h"
#include "runtimes/image_builder.h"
#include "runtimes/oci_bundle.h"

namespace fs = std::filesystem;
using namespace dlcbench;

namespace {

struct Settings {
  int runs = 5;
  int starts = 30;
  std::vector<std::string> runtimes = {"runc"};
};

// One environment's starts, all rounds together, in seconds.
struct Starts {
  std::vector<double> dlcbench, hyperfine;
  std::vector<std::string> hyperfine_command;  // the argument vector hyperfine was given
};

// One `dlcbench run` of the startup workload in every environment: the
// measured starts by environment, and its manifest.
std::pair<std::map<std::string, std::vector<double>>, nlohmann::json> dlcbench_starts(
    const std::vector<std::string>& envs, int starts, bool keep_images, const fs::path& out) {
  std::vector<std::string> argv = {DLCBENCH_BINARY, "run",      "--workloads", "startup",
                                   "--envs",        fmt::format("{}", fmt::join(envs, ",")),
                                   "--runs",        "1",        "--starts",    std::to_string(starts),
                                   "--out",         out.string()};
  if (keep_images) argv.push_back("--keep-images");
  bench::run_or_throw(argv);
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(out))
    if (entry.is_directory()) runs.push_back(entry.path());
  if (runs.size() != 1) throw std::runtime_error(fmt::format("expected one run folder in {}", out.string()));
  std::map<std::string, std::vector<double>> by_env;
  std::ifstream results(runs[0] / "results.jsonl");
  for (std::string line; std::getline(results, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "sample" && j.value("phase", "") == "measured")
      by_env[j.at("env").get<std::string>()].push_back(j.at("seconds").get<double>());
  }
  std::ifstream manifest(runs[0] / "manifest.json");
  return {by_env, nlohmann::json::parse(manifest)};
}

// A bundle as dlcbench's runc environment writes one for a start: the same
// rootfs content and the same config.json code, the noop program as the
// process (without the worker's environment variables, which a start of it
// does not read). Returns the runc command that starts it.
std::vector<std::string> runc_bundle(const fs::path& folder) {
  const auto runc = find_program("runc");
  if (!runc) throw std::runtime_error("runc is not installed: apt-get install runc");
  const fs::path bundle = folder / "bundle", state = folder / "state";
  fs::create_directories(bundle);
  fs::create_directories(state);
  write_rootfs(image_content_for(DLCBENCH_BINARY, false), bundle / "rootfs");
  OciBundleRequest request;
  request.rootfs = fs::absolute(bundle / "rootfs");
  request.process.args = {kImageNoopPath};
  request.cgroups_path = fmt::format("/dlcbench-hyperfine-{}", getpid());
  request.container_name = "runc";
  std::ofstream(bundle / "config.json") << oci_config(request).dump(2) << "\n";
  return {*runc, "--root", state.string(), "run", "--bundle", bundle.string(), fmt::format("dlcbench-hyperfine-{}", getpid())};
}

// The `docker run` dlcbench recorded for its worker, turned into its start
// of the noop program: no container name (hyperfine runs one command many
// times), no data volume, the image under its shared tag (the run's own tag
// goes with the run), the noop program in place of the worker.
std::vector<std::string> docker_noop_command(const nlohmann::json& description) {
  const auto recorded = description.at("command").get<std::vector<std::string>>();
  const auto worker = std::find(recorded.begin(), recorded.end(), kImageWorkerPath);
  if (worker == recorded.begin() || worker == recorded.end())
    throw std::runtime_error("the manifest's docker command starts no " + std::string(kImageWorkerPath));
  std::vector<std::string> command;
  for (auto it = recorded.begin(); it + 1 < worker; ++it) {
    const bool data_volume = *it == "--volume" && it + 2 < worker && (it + 1)->find("<data>") != std::string::npos;
    if (*it == "--name" || data_volume) {
      ++it;
      continue;
    }
    command.push_back(*it);
  }
  command.push_back(description.at("image").get<std::string>());
  command.push_back(kImageNoopPath);
  return command;
}

double ms(double seconds) { return seconds * 1e3; }

// The image dlcbench builds for docker: removed at the end (also when a
// round fails) unless it was there before.
struct DockerImage {
  std::string tag;
  bool was_there = true;
  DockerImage() = default;
  DockerImage(const DockerImage&) = delete;
  DockerImage& operator=(const DockerImage&) = delete;
  ~DockerImage() {
    if (!was_there) capture_output({"docker", "rmi", tag}, 300);
  }
};

}  // namespace

int measure(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--runs") s.runs = std::stoi(value);
    else if (flag == "--starts") s.starts = std::stoi(value);
    else if (flag == "--runtimes") s.runtimes = split_list(value);
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::cerr << "usage: startup_vs_hyperfine [--runs N] [--starts M] [--runtimes runc,docker]\n";
    return 2;
  }
  std::vector<std::string> envs = {"host"};
  for (const auto& runtime : s.runtimes) {
    if (runtime != "runc" && runtime != "docker") {
      std::cerr << "runtime " << runtime << ": only runc and docker are compared\n";
      return 2;
    }
    envs.push_back(runtime);
  }
  const bool docker = std::find(envs.begin(), envs.end(), "docker") != envs.end();
  if (!find_program("hyperfine")) {
    std::cerr << "hyperfine is not installed: apt-get install hyperfine (scripts/install-deps.sh)\n";
    return 1;
  }
  std::cerr << fmt::format("startup_vs_hyperfine: {} rounds of {} starts, environments {}\n", s.runs, s.starts,
                           fmt::join(envs, ","));

  ScratchDir scratch("dlcbench-startup-vs-hyperfine");
  std::map<std::string, Starts> starts;
  starts["host"].hyperfine_command = {noop_program_beside(DLCBENCH_BINARY).string()};
  if (std::find(envs.begin(), envs.end(), "runc") != envs.end())
    starts["runc"].hyperfine_command = runc_bundle(scratch.path() / "runc");
  // dlcbench keeps the image it builds (--keep-images), so every round
  // starts the same one and hyperfine can use it; it goes at the end unless
  // it was there before.
  DockerImage image;
  if (docker) {
    const auto content = image_content_for(DLCBENCH_BINARY, false);
    image.tag = "dlcbench-worker:" + content.content_id.substr(0, 16);
    image.was_there = capture_output({"docker", "image", "inspect", image.tag}, 60).result.ok();
  }

  for (int round = 0; round < s.runs; ++round) {
    const fs::path out = scratch.path() / fmt::format("round-{}", round);
    auto measure_dlcbench = [&] {
      auto [by_env, manifest] = dlcbench_starts(envs, s.starts, docker, out);
      for (const auto& env : envs) {
        if (!by_env.count(env)) throw std::runtime_error("dlcbench measured no start in " + env);
        auto& all = starts[env].dlcbench;
        all.insert(all.end(), by_env[env].begin(), by_env[env].end());
      }
      if (docker && starts["docker"].hyperfine_command.empty())
        starts["docker"].hyperfine_command = docker_noop_command(manifest.at("environments").at("docker"));
    };
    auto measure_hyperfine = [&] {
      for (const auto& env : envs) {
        auto& one = starts[env];
        const auto times = bench::hyperfine_times(one.hyperfine_command, s.starts, scratch.path() / (env + ".json"));
        one.hyperfine.insert(one.hyperfine.end(), times.begin(), times.end());
      }
    };
    // The docker command comes from dlcbench's manifest, so dlcbench goes
    // first in the first round; later rounds alternate.
    if (round % 2 == 0) measure_dlcbench(), measure_hyperfine();
    else measure_hyperfine(), measure_dlcbench();
    fs::remove_all(out);
    std::cerr << fmt::format("round {}/{} done\n", round + 1, s.runs);
  }

  std::cout << fmt::format("\n{:<8} {:>7} {:>14} {:>14} {:>10} {:>7}  {}\n", "env", "starts", "dlcbench ms",
                           "hyperfine ms", "diff ms", "ratio", "hyperfine -N ran");
  for (const auto& env : envs) {
    const auto& one = starts[env];
    const double ours = median(one.dlcbench), theirs = median(one.hyperfine);
    std::cout << fmt::format("{:<8} {:>7} {:>14.3f} {:>14.3f} {:>+10.3f} {:>7.3f}  {}\n", env,
                             fmt::format("{}/{}", one.dlcbench.size(), one.hyperfine.size()), ms(ours), ms(theirs),
                             ms(ours - theirs), ours / theirs, fmt::join(one.hyperfine_command, " "));
  }
  std::cout << "(medians over every measured start of every round; starts: dlcbench/hyperfine)\n";
  return 0;
}

int main(int argc, char** argv) {
  try {
    return measure(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "startup_vs_hyperfine: " << e.what() << "\n";
    return 1;
  }
}
