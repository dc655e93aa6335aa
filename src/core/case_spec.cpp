#include "core/case_spec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dlcbench {

std::string CaseSpec::id() const {
  if (workload == "startup") return workload;  // no back end, device or batch
  return fmt::format("{}/{}/{}/b{}{}", workload, backend, device, batch, input == "disk" ? "/disk" : "");
}

std::vector<std::string> CaseSpec::worker_args() const {
  return {"worker",
          "--workload", workload,
          "--backend", backend,
          "--device", device,
          "--batch", std::to_string(batch),
          "--warmup", std::to_string(warmup),
          "--iters", std::to_string(iters),
          "--threads", std::to_string(threads),
          "--seed", std::to_string(seed),
          "--input", input};
}

void to_json(nlohmann::json& j, const CaseSpec& c) {
  j = {{"id", c.id()},         {"workload", c.workload}, {"backend", c.backend},
       {"device", c.device},   {"batch", c.batch},       {"warmup", c.warmup},
       {"iters", c.iters},     {"threads", c.threads},   {"seed", c.seed},
       {"input", c.input}};
}

void from_json(const nlohmann::json& j, CaseSpec& c) {
  j.at("workload").get_to(c.workload);
  j.at("backend").get_to(c.backend);
  j.at("device").get_to(c.device);
  j.at("batch").get_to(c.batch);
  j.at("warmup").get_to(c.warmup);
  j.at("iters").get_to(c.iters);
  j.at("threads").get_to(c.threads);
  c.seed = j.value("seed", std::uint64_t{42});
  c.input = j.value("input", std::string("memory"));
}

}  // namespace dlcbench
