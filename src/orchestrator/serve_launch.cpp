#include "orchestrator/serve_launch.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace dlcbench {
namespace {

nlohmann::json parse_line(std::string_view line) {
  auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (record.is_discarded() || !record.is_object()) record = {{"type", "worker_output"}, {"text", std::string(line)}};
  return record;
}

std::string error_words(const nlohmann::json& record) {
  return fmt::format("{} error: {}", record.value("kind", "worker"), record.value("message", ""));
}

}  // namespace

ServeLaunchResult run_serve_launch(const ServeLaunchSpec& spec, const std::atomic<bool>* cancel,
                                   OutsideAccounting& outside, const std::function<void(nlohmann::json)>& record) {
  ServeLaunchResult out;
  std::mutex lock;  // `record`, `out` and the state below, between the two readers
  std::condition_variable changed;
  bool server_ended = false;
  std::optional<std::uint16_t> port;
  // The server is stopped from here when the load generator could not run
  // to its end (or the user interrupts): it would wait for requests forever.
  std::atomic<bool> stop_server{false};
  ProcessSpec server = spec.server;
  server.cancel = &stop_server;
  ProcessResult server_result;

  std::thread server_thread([&] {
    server_result = run_process(server, [&](std::string_view line) {
      nlohmann::json r = parse_line(line);
      const std::string type = r.value("type", "");
      std::lock_guard guard(lock);
      if (type == "phase") outside.start();
      if (type == "accounting") {
        r["outside"] = outside.finish();
        out.accounting = r;
      }
      if (type == "error") out.error = error_words(r);
      if (type == "listening" && !port) {
        const auto addresses = r.value("addresses", std::vector<std::string>{});
        if (spec.route.reach == ServeRoute::Reach::loopback) out.address = "127.0.0.1";
        else if (!addresses.empty()) out.address = addresses.front();
        port = r.value("port", std::uint16_t{0});
        r["address"] = out.address;
        r["path"] = serve_path_name(spec.route.path);
        changed.notify_all();
      }
      record(std::move(r));
    });
    std::lock_guard guard(lock);
    server_ended = true;
    changed.notify_all();
  });

  // Until the server listens, or ends, or the time is up.
  {
    std::unique_lock guard(lock);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.listen_timeout_seconds);
    while (!port && !server_ended && std::chrono::steady_clock::now() < give_up && !(cancel && *cancel))
      changed.wait_for(guard, std::chrono::milliseconds(100));
  }
  ProcessResult load_result;
  bool load_ran = false;
  std::string unreachable;
  {
    std::lock_guard guard(lock);
    if (port && out.address.empty())
      unreachable = "the server listens, but printed no address outside loopback for the load generator to reach";
    else if (!port && !server_ended && !(cancel && *cancel))
      unreachable = fmt::format("the server did not start listening within {:.0f} s", spec.listen_timeout_seconds);
  }
  if (port && unreachable.empty()) {
    ProcessSpec load;
    load.argv = spec.load_generator;
    load.argv.insert(load.argv.end(), {"--address", out.address, "--port", std::to_string(*port)});
    load.timeout_seconds = server.timeout_seconds;
    load.cancel = cancel;
    load_ran = true;
    load_result = run_process(load, [&](std::string_view line) {
      nlohmann::json r = parse_line(line);
      const std::string type = r.value("type", "");
      std::lock_guard guard(lock);
      if (type == "sample" && r.value("phase", "") == "measured") out.measured.push_back(r.value("seconds", 0.0));
      if (type == "error") out.error = error_words(r);
      record(std::move(r));
    });
  }
  // A server whose load generator ended early, or never ran, would wait on.
  if (!load_ran || !load_result.ok()) stop_server = true;
  else {
    // It stops by itself after the shutdown message; give it a moment.
    std::unique_lock guard(lock);
    changed.wait_for(guard, std::chrono::seconds(60), [&] { return server_ended; });
    if (!server_ended) stop_server = true;
  }
  server_thread.join();

  out.result = server_result;
  if (server_result.ok() || server_result.cancelled) {
    if (!unreachable.empty()) {
      out.result.exec_error = unreachable;
      out.result.cancelled = false;
    } else if (load_ran && !load_result.ok()) {
      out.result = load_result;
    }
  }
  if (cancel && *cancel) out.result.cancelled = true;
  return out;
}

}  // namespace dlcbench
