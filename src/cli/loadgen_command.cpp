// `dlcbench-worker loadgen`: the serving workload's client, which `run`
// starts on the host against the server it started in an environment. It
// prints one sample line per request (its latency, and the server's queue
// and compute time), then one "load" line with the rate it achieved.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/worker_options.h"
#include "core/errors.h"
#include "workloads/registry.h"
#include "workloads/serve/load_generator.h"

namespace dlcbench::cli {
namespace {

struct LoadgenOptions {
  std::string case_json;
  std::string address = "127.0.0.1";
  int port = 0;
  double timeout_seconds = 600;
};

void print(const nlohmann::json& line) {
  const std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

std::size_t input_floats_of(const CaseSpec& spec) {
  const WorkloadInfo* network = find_workload(spec.variant);
  if (!network) throw UsageError(fmt::format("serve/{}: valid networks are fcn5, alexnet, resnet56 and lstm", spec.variant));
  std::size_t floats = 1;
  for (const auto d : network->model.input_shape()) floats *= static_cast<std::size_t>(d);
  return floats;
}

int run_loadgen(const LoadgenOptions& o) {
  const CaseSpec spec = worker_case_from_json(o.case_json);
  if (!spec.serves()) throw UsageError("loadgen drives a serve case: give one with workload serve");
  serve::LoadSettings settings;
  settings.address = o.address;
  settings.port = static_cast<std::uint16_t>(o.port);
  settings.connections = spec.clients;
  settings.rate = spec.rate;
  settings.warmup = spec.warmup;
  settings.requests = spec.iters;
  settings.input_floats = input_floats_of(spec);
  settings.seed = spec.seed;
  settings.timeout_seconds = o.timeout_seconds;
  const serve::LoadResult load = serve::generate_load(settings);
  // Written after the load, so that printing costs the timed requests nothing.
  int failed = 0, measured = 0;
  for (std::size_t i = 0; i < load.requests.size(); ++i) {
    const serve::RequestTiming& r = load.requests[i];
    failed += r.failed ? 1 : 0;
    const int iter = r.warmup ? static_cast<int>(i) : measured++;
    print({{"type", "sample"},
           {"phase", r.warmup ? "warmup" : "measured"},
           {"iter", iter},
           {"seconds", r.seconds},
           {"queue_seconds", r.queue_seconds},
           {"compute_seconds", r.compute_seconds}});
  }
  print({{"type", "load"},
         {"mode", spec.rate > 0 ? "open" : "closed"},
         {"offered_rate", spec.rate},
         {"achieved_rate", load.measured_seconds > 0 ? spec.iters / load.measured_seconds : 0.0},
         {"measured_seconds", load.measured_seconds},
         {"late_sends", load.late_sends},
         {"connections", spec.clients},
         {"address", o.address}});
  std::fflush(stdout);
  if (failed > 0) {
    const std::string message = fmt::format("{} of {} requests failed in the server's inference", failed,
                                            load.requests.size());
    print({{"type", "error"}, {"kind", "serve"}, {"message", message}});
    std::cerr << "dlcbench loadgen: " << message << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void add_loadgen_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LoadgenOptions>();
  auto* cmd = app.add_subcommand("loadgen", "Send a serve case's requests to its server and time them (used by `run`)");
  cmd->add_option("--case", options->case_json, "The serve case, as `dlcbench run` hands it over")->required();
  cmd->add_option("--address", options->address, "The server's IPv4 address")->check(CLI::ValidIPV4)->capture_default_str();
  cmd->add_option("--port", options->port, "The server's port")->required()->check(CLI::Range(1, 65535));
  cmd->add_option("--timeout", options->timeout_seconds, "Seconds for the whole load")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    try {
      exit_code = run_loadgen(*options);
    } catch (const UsageError& e) {
      print({{"type", "error"}, {"kind", "usage"}, {"message", e.what()}});
      std::cerr << "dlcbench loadgen: " << e.what() << "\n";
      exit_code = kExitUsage;
    } catch (const std::exception& e) {
      print({{"type", "error"}, {"kind", "io"}, {"message", e.what()}});
      std::cerr << "dlcbench loadgen: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
    std::fflush(stdout);
  });
}

}  // namespace dlcbench::cli
