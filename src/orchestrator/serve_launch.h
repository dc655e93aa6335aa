// One launch of a serve case: the server (the worker) in its environment,
// and, once it says where it listens, the load generator on the host
// against it. The load generator's lines are the samples; the server's are
// its fingerprint and the accounting of the phase the requests were timed in.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/process.h"
#include "orchestrator/outside_accounting.h"
#include "runtimes/environment.h"

namespace dlcbench {

struct ServeLaunchSpec {
  ProcessSpec server;  // as the environment launches the worker, with --listen
  // The load generator without its address and port: {program, "loadgen",
  // "--case", JSON, "--timeout", SECONDS}.
  std::vector<std::string> load_generator;
  ServeRoute route;
  double listen_timeout_seconds = 300;  // for the server to start (an image to start, a model to build)
};

struct ServeLaunchResult {
  ProcessResult result;  // the server's; or the load generator's where the server's was fine
  std::vector<double> measured;  // each measured request's latency, in seconds
  std::string error;             // an "error" line of either, as "KIND error: MESSAGE"
  std::optional<nlohmann::json> accounting;  // the server's, with the outside reading
  std::string address;                       // where the load generator reached the server
};

// `record` gets every line of both programs, parsed (untagged), one at a
// time, in the order they arrive; the server's "listening" line gains
// "address" and "path" (serve_path_name).
ServeLaunchResult run_serve_launch(const ServeLaunchSpec& spec, const std::atomic<bool>* cancel,
                                   OutsideAccounting& outside, const std::function<void(nlohmann::json)>& record);

}  // namespace dlcbench
