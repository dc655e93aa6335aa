#include "core/case_spec.h"

#include <cstdint>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/limits.h"

namespace dlcbench {
namespace {

// 1048576 -> "1M", 4096 -> "4K", 1000 -> "1000": exact binary units only, so
// the id names the size exactly.
std::string byte_label(std::int64_t bytes) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++u;
  return fmt::format("{}{}", bytes, units[u]);
}

}  // namespace

std::string CaseSpec::id() const {
  if (workload == "startup") return workload;  // no back end, device or batch
  if (is_command()) return "cmd:" + command.name;
  if (serves())
    return rate > 0 ? fmt::format("{}/{}/t{}/r{:g}", workload, variant, workers, rate)
                    : fmt::format("{}/{}/t{}/c{}", workload, variant, workers, clients);
  if (micro() && workers > 0)
    return fmt::format("{}/{}/w{}/p{}/b{}/e{}", workload, variant, workers, prefetch, batch, size);
  if (micro()) {
    std::string id = workload;
    if (!variant.empty()) id += "/" + variant;
    if (!io_mode.empty()) id += "/" + io_mode;
    if (block > 0) id += fmt::format("/bs{}/{}", byte_label(block), byte_label(size));
    else if (workload == "gpu-copy") id += fmt::format("/{}", byte_label(size));  // bytes, not a matrix order
    else id += fmt::format("/n{}", size);
    if (!io_target.empty()) id += "@" + io_target;
    return id;
  }
  return fmt::format("{}/{}/{}/b{}{}", workload, backend, device, batch, input == "disk" ? "/disk" : "");
}

std::vector<std::string> CaseSpec::worker_args() const {
  // The case itself, typed: the worker reads back exactly these fields
  // (from_json below), with nothing turned into option text and parsed again.
  return {"worker", "--case", nlohmann::json(*this).dump()};
}

void check_worker_case_counts(const CaseSpec& spec) {
  auto in = [](const char* option, long value, long low, long high) {
    if (value < low || value > high)
      throw UsageError(fmt::format("{} {} is out of range: give a whole number from {} to {}", option, value, low, high));
  };
  in("--threads", spec.threads, 1, kMaxThreads);
  in("--iters", spec.iters, 1, kMaxIters);
  in("--warmup", spec.warmup, 0, kMaxIters);
  if (spec.serves()) {
    in("serve threads=", spec.workers, 1, kMaxThreads);
    in("serve clients=", spec.clients, 1, kMaxServeClients);
    if (!(spec.rate >= 0 && spec.rate <= kMaxServeRate))
      throw UsageError(fmt::format("serve rate={} is out of range: give requests per second from 0 (closed loop) to {}",
                                   spec.rate, kMaxServeRate));
    return;
  }
  if (spec.micro() && spec.workers > 0) {
    in("loader workers=", spec.workers, 1, kMaxLoaderWorkers);
    in("loader prefetch=", spec.prefetch, 1, kMaxLoaderPrefetch);
    in("loader batch=", spec.batch, 1, kMaxBatch);
    return;
  }
  if (spec.micro()) return;
  if (spec.batch < 1 || spec.batch > kMaxBatch)
    throw UsageError(fmt::format("batch size {} is out of range: give --batch from 1 to {}", spec.batch, kMaxBatch));
  if (spec.input != "memory" && spec.input != "disk")
    throw UsageError(fmt::format("--input {}: valid values are memory and disk", spec.input));
}

void to_json(nlohmann::json& j, const CaseSpec& c) {
  j = {{"id", c.id()},         {"workload", c.workload}, {"backend", c.backend},
       {"device", c.device},   {"batch", c.batch},       {"warmup", c.warmup},
       {"iters", c.iters},     {"threads", c.threads},   {"seed", c.seed},
       {"input", c.input}};
  if (c.is_command()) j["command"] = c.command;
  if (c.micro()) {
    j["variant"] = c.variant;
    j["size"] = c.size;
    j["block"] = c.block;
    j["io_mode"] = c.io_mode;
    j["io_target"] = c.io_target;
    if (c.workers > 0) {
      j["workers"] = c.workers;
      j["prefetch"] = c.prefetch;
    }
    if (c.serves()) {
      j["rate"] = c.rate;
      j["clients"] = c.clients;
    }
  }
}

namespace {

bool at_most(std::uint64_t value, std::uint64_t limit) { return value <= limit; }

// A whole number of field `key` that fits Int. nlohmann converts a float
// such as 1e300 to an int without a check, which is undefined behaviour; a
// manifest is a file anyone can edit, so this is a type_error instead.
template <class Int>
Int whole_number(const nlohmann::json& j, const char* key, std::optional<Int> fallback = std::nullopt) {
  const auto it = j.find(key);
  if (it == j.end() && fallback) return *fallback;
  const nlohmann::json& v = j.at(key);  // out_of_range naming the key when missing
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
  bool fits = false;
  if (v.is_number_unsigned()) {
    fits = at_most(v.get<std::uint64_t>(), max);
  } else if (v.is_number_integer()) {
    const std::int64_t n = v.get<std::int64_t>();
    fits = n < 0 ? std::numeric_limits<Int>::is_signed && n >= static_cast<std::int64_t>(std::numeric_limits<Int>::min())
                 : at_most(static_cast<std::uint64_t>(n), max);
  }
  if (!fits)
    throw nlohmann::json::type_error::create(
        302, fmt::format("case field '{}' is {}, not a whole number in range", key, v.dump()), &j);
  return v.is_number_unsigned() ? static_cast<Int>(v.get<std::uint64_t>()) : static_cast<Int>(v.get<std::int64_t>());
}

}  // namespace

void from_json(const nlohmann::json& j, CaseSpec& c) {
  j.at("workload").get_to(c.workload);
  j.at("backend").get_to(c.backend);
  j.at("device").get_to(c.device);
  c.batch = whole_number<int>(j, "batch");
  c.warmup = whole_number<int>(j, "warmup");
  c.iters = whole_number<int>(j, "iters");
  c.threads = whole_number<int>(j, "threads");
  c.seed = whole_number<std::uint64_t>(j, "seed", std::uint64_t{42});
  c.input = j.value("input", std::string("memory"));
  c.variant = j.value("variant", std::string());
  c.size = whole_number<std::int64_t>(j, "size", std::int64_t{0});
  c.block = whole_number<std::int64_t>(j, "block", std::int64_t{0});
  c.io_mode = j.value("io_mode", std::string());
  c.io_target = j.value("io_target", std::string());
  c.workers = whole_number<int>(j, "workers", 0);
  c.prefetch = whole_number<int>(j, "prefetch", 0);
  if (const auto rate = j.find("rate"); rate != j.end()) {
    if (!rate->is_number()) throw nlohmann::json::type_error::create(302, "case field 'rate' is not a number", &j);
    c.rate = rate->get<double>();
  }
  c.clients = whole_number<int>(j, "clients", 0);
  if (c.is_command()) j.at("command").get_to(c.command);
}

}  // namespace dlcbench
