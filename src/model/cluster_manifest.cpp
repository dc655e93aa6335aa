#include "model/cluster_manifest.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/results_file.h"

namespace fs = std::filesystem;

namespace dlcbench {

const char* transfer_name(ResultsTransfer t) { return t == ResultsTransfer::shared ? "shared" : "staged"; }

void to_json(nlohmann::json& j, const ClusterManifest& m) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : m.jobs) {
    nlohmann::json jj = {{"id", job.id},         {"submitted_at", job.submitted_at}, {"ended_at", job.ended_at},
                         {"nodes", job.nodes},   {"state", job.state},               {"reason", job.reason},
                         {"exit_code", job.exit_code}};
    if (!job.submit_error.empty()) jj["submit_error"] = job.submit_error;
    if (!job.staged.empty()) jj["staged"] = job.staged;
    jobs.push_back(jj);
  }
  nlohmann::json quota = nlohmann::json::object();
  for (const auto& [node, cpus] : m.request.cpu_quota) quota[node] = cpus;
  j = {{"schema_version", m.schema_version},
       {"kind", "dlcbench cluster run"},
       {"run_id", m.run_id},
       {"command_line", m.command_line},
       {"dlcbench_version", m.dlcbench_version},
       {"scheduler", m.scheduler},
       {"transfer", transfer_name(m.transfer)},
       {"stage_folder", m.stage_folder},
       {"seed", m.seed},
       {"node_arguments", m.node_arguments},
       {"allocation",
        {{"nodes", m.request.nodes},
         {"nodelist", m.request.nodelist},
         {"partition", m.request.partition},
         {"account", m.request.account},
         {"time", m.request.time_limit},
         {"sbatch_arguments", m.request.sbatch_args},
         {"cpu_quota", quota}}},
       {"jobs", jobs},
       {"started_at", m.started_at},
       {"ended_at", m.ended_at},
       {"status", m.status}};
  if (m.allreduce) {
    const ClusterAllreduce& a = *m.allreduce;
    j["allreduce"] = {{"environments", a.environments}, {"left_out", a.left_out}, {"sizes_bytes", a.sizes_bytes},
                      {"iterations", a.iterations},     {"warmup", a.warmup},     {"rounds", a.rounds},
                      {"status", a.status},             {"error", a.error}};
  }
}

void from_json(const nlohmann::json& j, ClusterManifest& m) {
  try {
    m.schema_version = j.value("schema_version", 0);
    if (m.schema_version > kClusterSchemaVersion)
      throw DataError(fmt::format("cluster.json has format version {}, newer than this dlcbench reads ({}): use a "
                                  "newer dlcbench",
                                  m.schema_version, kClusterSchemaVersion));
    m.run_id = j.at("run_id").get<std::string>();
    m.command_line = j.value("command_line", std::vector<std::string>{});
    m.dlcbench_version = j.value("dlcbench_version", "");
    m.scheduler = j.value("scheduler", "slurm");
    m.transfer = j.value("transfer", "shared") == "staged" ? ResultsTransfer::staged : ResultsTransfer::shared;
    m.stage_folder = j.value("stage_folder", "");
    m.seed = j.value("seed", std::uint64_t{0});
    m.node_arguments = j.at("node_arguments").get<std::vector<std::string>>();
    const auto& a = j.at("allocation");
    m.request.enabled = true;
    m.request.nodes = a.value("nodes", 0);
    m.request.nodelist = a.value("nodelist", "");
    m.request.partition = a.value("partition", "");
    m.request.account = a.value("account", "");
    m.request.time_limit = a.value("time", "");
    m.request.sbatch_args = a.value("sbatch_arguments", std::vector<std::string>{});
    m.request.stage = m.stage_folder;
    const nlohmann::json quota = a.value("cpu_quota", nlohmann::json::object());
    for (const auto& [node, cpus] : quota.items()) m.request.cpu_quota[node] = cpus.get<double>();
    m.jobs.clear();
    for (const auto& jj : j.value("jobs", nlohmann::json::array())) {
      ClusterJob job;
      job.id = jj.value("id", "");
      job.submitted_at = jj.value("submitted_at", "");
      job.ended_at = jj.value("ended_at", "");
      job.nodes = jj.value("nodes", std::vector<std::string>{});
      job.state = jj.value("state", "");
      job.reason = jj.value("reason", "");
      job.exit_code = jj.value("exit_code", "");
      job.submit_error = jj.value("submit_error", "");
      job.staged = jj.value("staged", std::map<std::string, std::string>{});
      m.jobs.push_back(job);
    }
    m.started_at = j.value("started_at", "");
    m.ended_at = j.value("ended_at", "");
    m.status = j.value("status", "running");
    m.allreduce.reset();
    if (j.contains("allreduce")) {
      const auto& aj = j.at("allreduce");
      ClusterAllreduce ar;
      ar.environments = aj.value("environments", std::vector<std::string>{});
      ar.left_out = aj.value("left_out", std::vector<std::string>{});
      ar.sizes_bytes = aj.value("sizes_bytes", std::vector<long>{});
      ar.iterations = aj.value("iterations", 0);
      ar.warmup = aj.value("warmup", 0);
      ar.rounds = aj.value("rounds", 0);
      ar.status = aj.value("status", "not run");
      ar.error = aj.value("error", "");
      m.allreduce = ar;
    }
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("cluster.json: {}", e.what()));
  }
}

ClusterManifest read_cluster_manifest(const fs::path& run_folder) {
  return read_json_file(run_folder / kClusterManifestFile).get<ClusterManifest>();
}

void write_cluster_manifest(const fs::path& run_folder, const ClusterManifest& m) {
  write_json_atomically(run_folder / kClusterManifestFile, nlohmann::json(m));
}

bool is_cluster_run(const fs::path& run_folder) { return fs::is_regular_file(run_folder / kClusterManifestFile); }

std::vector<std::string> cluster_nodes(const ClusterManifest& m) {
  std::vector<std::string> nodes;
  for (const auto& job : m.jobs)
    for (const auto& n : job.nodes)
      if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
  return nodes;
}

fs::path node_run_folder(const fs::path& base, const std::string& node) { return base / "nodes" / node; }

}  // namespace dlcbench
