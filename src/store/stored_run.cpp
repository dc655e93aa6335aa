#include "store/stored_run.h"

#include <fmt/format.h>

#include "model/environment_request.h"

namespace dlcbench {
namespace {

std::string text_at(const nlohmann::json& j, const char* pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.is_object() || !j.contains(p)) return "";
  const auto& v = j.at(p);
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The environment's options as written in its label ("cpus=1.5,shm=1g"),
// "" for none; a label that no longer parses keeps its text.
std::string options_of(const std::string& label) {
  try {
    const EnvironmentRequest r = parse_environment_request(label);
    std::vector<std::string> parts;
    for (const auto& [key, value] : r.options) parts.push_back(key + "=" + value);
    return fmt::format("{}", fmt::join(parts, ","));
  } catch (const std::exception&) {
    return label;
  }
}

// What the environment labelled `env` was in this run: the facts a change
// between two stored runs may come from.
std::map<std::string, std::string> facts_of(const Manifest& m, const std::string& env,
                                            const std::map<std::string, std::string>& blas_core) {
  std::map<std::string, std::string> f;
  f["kernel"] = text_at(m.orchestrator, "/kernel");
  f["cpu"] = text_at(m.orchestrator, "/cpu/model");
  f["dlcbench"] = m.dlcbench_version;
  f["binary"] = m.binary_sha256().substr(0, 12);
  f["options"] = options_of(m.plan ? m.plan->written_as(env) : env);
  if (const auto it = m.environments.find(env); it != m.environments.end()) {
    f["runtime version"] = text_at(it->second, "/version");
    f["image"] = text_at(it->second, "/image");
    f["oci runtime"] = text_at(it->second, "/runtime");
    f["storage driver"] = text_at(it->second, "/storage_driver");
    f["rootless"] = text_at(it->second, "/rootless");
  }
  if (const auto it = blas_core.find(env); it != blas_core.end()) f["blas core"] = it->second;
  // Only what is known: an unknown fact is no change.
  std::erase_if(f, [](const auto& kv) { return kv.second.empty(); });
  return f;
}

}  // namespace

RunToStore run_to_store(const Manifest& manifest, const std::vector<nlohmann::json>& records,
                        const Analysis& analysis, const std::filesystem::path& folder) {
  RunToStore out;
  out.manifest = manifest;
  std::map<std::string, std::string> blas_core;  // per environment, from its first worker fingerprint
  for (const auto& r : records) {
    out.records.push_back(r.dump());
    if (r.is_object() && r.value("type", "") == "fingerprint" && r.contains("env") && r.at("env").is_string())
      if (const std::string core = text_at(r, "/blas/core"); !core.empty())
        blas_core.emplace(r.at("env").get<std::string>(), core);
  }
  StoredRun& run = out.run;
  run.run_id = manifest.run_id;
  // A cluster run's node by its Slurm name (nodes may share a host name,
  // as the local test cluster's do); else the host name.
  run.machine = manifest.cluster && !manifest.cluster->node.empty() ? manifest.cluster->node
                                                                      : text_at(manifest.orchestrator, "/hostname");
  run.started_at = manifest.started_at;
  run.ended_at = manifest.ended_at;
  run.status = run_status_text(manifest.status);
  run.folder = std::filesystem::absolute(folder).lexically_normal().string();
  run.baseline = analysis.baseline;
  run.dlcbench_version = manifest.dlcbench_version;
  run.calibration = analysis.calibration;
  for (const auto& c : analysis.cases)
    for (const auto& o : c.overheads) {
      StoredComparison s;
      s.case_id = c.case_id;
      s.env = o.env;
      s.baseline = analysis.baseline;
      s.verdict = o.verdict;
      s.compared = o.compared;
      s.mismatch_allowed = o.mismatch_allowed;
      s.headline = o.headline;
      s.margin = o.margin;
      s.runs_compared = o.runs_compared;
      s.facts = facts_of(manifest, o.env, blas_core);
      run.comparisons.push_back(std::move(s));
    }
  return out;
}

}  // namespace dlcbench
