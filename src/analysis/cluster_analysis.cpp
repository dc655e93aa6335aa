#include "analysis/cluster_analysis.h"

#include <algorithm>
#include <fstream>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "model/cluster_manifest.h"
#include "core/results_file.h"
#include "model/launch_progress.h"
#include "model/plan.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// Pairs of different nodes never share a round number.
constexpr int kRoundsPerNode = 1000000;

void flatten(const nlohmann::json& j, const std::string& pointer, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) flatten(value, pointer + "/" + key, out);
    return;
  }
  out[pointer] = j.is_string() ? j.get<std::string>() : j.dump();
}

// Fields that differ between two machines by nature, not by setup.
bool differs_by_nature(const std::string& pointer) {
  return pointer == "/hostname" || pointer == "/mount_namespace" || pointer.rfind("/isolation/mount_namespace", 0) == 0;
}

NodeRun load_node(const fs::path& dir, const std::string& node, const ClusterManifest& m) {
  NodeRun run;
  run.node = node;
  if (const auto q = m.request.cpu_quota.find(node); q != m.request.cpu_quota.end()) run.cpu_quota = q->second;
  const fs::path folder = node_run_folder(dir, node);
  if (!fs::is_regular_file(folder / "manifest.json")) {
    bool staged_failed = false;
    for (const auto& job : m.jobs)
      if (const auto s = job.staged.find(node); s != job.staged.end() && s->second != "ok") {
        run.problem = fmt::format("its results were not brought back from {}: {}", m.stage_folder, s->second);
        staged_failed = true;
      }
    if (!staged_failed) run.problem = "no results: its job step never started a run (see slurm-*.out)";
    return run;
  }
  try {
    run.manifest = read_manifest(folder / "manifest.json");
    const auto content = fs::exists(folder / "results.jsonl") ? read_results(folder / "results.jsonl") : ResultsContent{};
    run.analysis = analyze(run.manifest, content.records, content.line_numbers);
    const Plan plan = plan_to_resume(*run.manifest.plan);  // analyze() above refused a manifest without one
    run.rounds_planned = std::max(plan.runs, run.manifest.rounds.value_or(0));
    const auto orders = round_orders(plan.environments.size(), run.rounds_planned, plan.seed);
    const ResumeState state = find_missing_launches(plan, orders, content.records);
    std::set<int> rounds;
    for (const auto& key : state.missing) rounds.insert(key.round);
    run.missing_launches = state.missing.size();
    run.missing_rounds.assign(rounds.begin(), rounds.end());
    for (const auto& [label, described] : run.manifest.environments)
      if (described.is_object() && described.contains("unavailable"))
        run.unavailable[label] = described["unavailable"].get<std::string>();
    if (run.manifest.orchestrator.is_object()) run.hostname = run.manifest.orchestrator.value("hostname", "");
    run.found = true;
  } catch (const std::exception& e) {
    run.problem = fmt::format("{} cannot be read: {}", (folder / "manifest.json").string(), e.what());
  }
  return run;
}

ClusterCase analyze_case(const std::string& case_id, const std::vector<NodeRun>& nodes, const std::string& baseline,
                         double margin) {
  ClusterCase cc;
  cc.case_id = case_id;
  cc.baseline = baseline;
  // Per node: its case, baseline and environments.
  std::map<std::string, std::vector<double>> pooled_values, pooled_base;
  std::map<std::string, std::vector<int>> pooled_rounds, pooled_base_rounds;
  std::vector<std::pair<std::string, std::vector<double>>> baselines;  // node -> baseline run values
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const NodeRun& run = nodes[n];
    if (!run.found) continue;
    const auto it = std::find_if(run.analysis.cases.begin(), run.analysis.cases.end(),
                                 [&](const CaseAnalysis& c) { return c.case_id == case_id; });
    if (it == run.analysis.cases.end()) continue;
    const CaseAnalysis& c = *it;
    if (cc.unit.empty()) cc.unit = c.unit;
    NodeCaseFigures figures;
    figures.node = run.node;
    const EnvironmentStats* base = find_environment(c, baseline);
    if (base && !base->run_values.empty()) {
      figures.baseline = base->runs;
      baselines.emplace_back(run.node, base->run_values);
    }
    for (const auto& o : c.overheads) {
      figures.overheads[o.env] = o;
      if (std::find(cc.environments.begin(), cc.environments.end(), o.env) == cc.environments.end())
        cc.environments.push_back(o.env);
    }
    // Pairs only where the node compared the two (a mismatch nobody asked
    // for stops a comparison on the node, and across nodes too).
    for (const auto& e : c.envs) {
      if (e.env == baseline || !base) continue;
      const Overhead* on_node = nullptr;
      for (const auto& o : c.overheads)
        if (o.env == e.env) on_node = &o;
      if (!on_node || !on_node->compared) continue;
      for (std::size_t i = 0; i < e.run_values.size(); ++i) {
        pooled_values[e.env].push_back(e.run_values[i]);
        pooled_rounds[e.env].push_back(static_cast<int>(n) * kRoundsPerNode + e.run_rounds[i]);
      }
      for (std::size_t i = 0; i < base->run_values.size(); ++i) {
        pooled_base[e.env].push_back(base->run_values[i]);
        pooled_base_rounds[e.env].push_back(static_cast<int>(n) * kRoundsPerNode + base->run_rounds[i]);
      }
    }
    cc.nodes.push_back(std::move(figures));
  }
  for (const auto& env : cc.environments) {
    if (pooled_values[env].empty()) continue;
    cc.pooled[env] = compare_figures(env, RunFigures{pooled_values[env], pooled_rounds[env]},
                                     RunFigures{pooled_base[env], pooled_base_rounds[env]},
                                     ComparisonWording::overhead, margin);
  }
  // The spread: each node's baseline against all the others'.
  if (baselines.size() >= 2) {
    double slowest = -1, fastest = -1;
    for (const auto& [node, values] : baselines) {
      std::vector<double> others;
      for (const auto& [other, v] : baselines)
        if (other != node) others.insert(others.end(), v.begin(), v.end());
      const Overhead spread = compare_figures(node, RunFigures{values, {}}, RunFigures{others, {}},
                                              ComparisonWording::difference, margin);
      auto figures = std::find_if(cc.nodes.begin(), cc.nodes.end(), [&name = node](const NodeCaseFigures& f) { return f.node == name; });
      figures->spread = spread;
      if (is_significant(spread.verdict)) cc.odd_nodes.push_back(node);
      const double m = mean(values);
      if (slowest < 0 || m > slowest) slowest = m, cc.slowest = node;
      if (fastest < 0 || m < fastest) fastest = m, cc.fastest = node;
    }
    cc.spread_ratio = fastest > 0 ? slowest / fastest : 0;
  }
  return cc;
}

}  // namespace

bool ClusterAnalysis::complete() const {
  return std::all_of(nodes.begin(), nodes.end(),
                     [](const NodeRun& n) { return n.found && n.missing_launches == 0; });
}

std::vector<Mismatch> compare_node_fingerprints(const nlohmann::json& reference, const nlohmann::json& other) {
  std::map<std::string, std::string> a, b;
  flatten(reference, "", a);
  flatten(other, "", b);
  std::set<std::string> fields;
  for (const auto& [k, v] : a) fields.insert(k);
  for (const auto& [k, v] : b) fields.insert(k);
  std::vector<Mismatch> differences;
  for (const auto& field : fields) {
    if (differs_by_nature(field)) continue;
    const std::string va = a.count(field) ? a[field] : "(none)";
    const std::string vb = b.count(field) ? b[field] : "(none)";
    if (va == vb) continue;
    Mismatch m;
    m.field = field.substr(1);
    m.baseline_value = va;
    m.other_value = vb;
    m.blocking = false;
    m.fix = "make the nodes alike (same CPU model, kernel, libraries and settings), or read this node's figures apart";
    differences.push_back(m);
  }
  return differences;
}

double allreduce_bus_gbps(long bytes, double seconds, int ranks) {
  if (!(seconds > 0) || ranks < 1) return 0;
  return static_cast<double>(bytes) / seconds * 2.0 * (ranks - 1) / ranks / 1e9;
}

AllreduceFigures analyze_allreduce(const fs::path& dir, const ClusterAllreduce& described, double margin) {
  AllreduceFigures f;
  f.rounds = described.rounds;
  f.iterations = described.iterations;
  f.left_out = described.left_out;
  f.status = described.status;
  f.error = described.error;
  f.baseline = described.environments.empty() ? "" : described.environments.front();
  for (const auto& env : described.environments)
    if (env == "host") f.baseline = env;
  for (const auto& env : described.environments)
    if (env != f.baseline) f.environments.push_back(env);
  // size -> environment -> (round, run value), and every call's seconds.
  struct Side {
    std::vector<double> values, calls;
    std::vector<int> rounds;
  };
  std::map<long, std::map<std::string, Side>> by_size;
  std::ifstream in(dir / kAllreduceResultsFile);
  for (std::string text; std::getline(in, text);) {
    const nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    if (!line.is_object()) continue;
    const std::string env = line.value("env", "");
    const int round = line.value("round", -1);
    if (line.contains("error")) {
      f.failures.push_back(fmt::format("{}, round {}: {}", env, round + 1, line.value("error", "")));
      continue;
    }
    if (!line.contains("bytes") || !line.value("correct", false)) continue;
    const auto seconds = line.value("seconds", std::vector<double>{});
    if (seconds.empty()) continue;
    Side& side = by_size[line.value("bytes", 0L)][env];
    side.values.push_back(mean(seconds));
    side.rounds.push_back(round);
    side.calls.insert(side.calls.end(), seconds.begin(), seconds.end());
    f.ranks = line.value("ranks", 0);
    if (f.nodes.empty()) f.nodes = line.value("nodes", std::vector<std::string>{});
    if (f.mpi_library.empty()) f.mpi_library = line.value("mpi_library", "");
  }
  for (const auto& [bytes, sides] : by_size) {
    AllreduceSize size;
    size.bytes = bytes;
    for (const auto& [env, side] : sides) {
      size.median_seconds[env] = median(side.calls);
      size.bus_gbps[env] = allreduce_bus_gbps(bytes, size.median_seconds[env], f.ranks);
    }
    const auto base = sides.find(f.baseline);
    for (const auto& env : f.environments) {
      const auto side = sides.find(env);
      if (base == sides.end() || side == sides.end()) continue;
      size.overheads[env] = compare_figures(env, {side->second.values, side->second.rounds},
                                            {base->second.values, base->second.rounds}, ComparisonWording::overhead,
                                            margin);
    }
    f.sizes.push_back(std::move(size));
  }
  return f;
}

ClusterAnalysis analyze_cluster(const fs::path& dir) {
  ClusterAnalysis a;
  a.manifest = read_cluster_manifest(dir);
  std::vector<std::string> names = cluster_nodes(a.manifest);
  // Folders of nodes no job names (a cluster.json written before the job ended).
  if (fs::is_directory(dir / "nodes"))
    for (const auto& entry : fs::directory_iterator(dir / "nodes"))
      if (entry.is_directory() && std::find(names.begin(), names.end(), entry.path().filename().string()) == names.end())
        names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& node : names) a.nodes.push_back(load_node(dir, node, a.manifest));
  const NodeRun* reference = nullptr;
  std::vector<std::string> case_ids;
  for (const auto& n : a.nodes) {
    if (!n.found) continue;
    if (!reference) reference = &n;
    if (a.baseline.empty()) a.baseline = n.analysis.baseline;
    for (const auto& c : n.analysis.cases)
      if (std::find(case_ids.begin(), case_ids.end(), c.case_id) == case_ids.end()) case_ids.push_back(c.case_id);
  }
  const double margin = reference ? reference->analysis.margin : kDefaultEquivalenceMargin;
  for (const auto& id : case_ids) a.cases.push_back(analyze_case(id, a.nodes, a.baseline, margin));
  if (a.manifest.allreduce) a.allreduce = analyze_allreduce(dir, *a.manifest.allreduce, margin);
  if (!reference) {
    a.notes.push_back("no node's results are in this run folder yet");
    return a;
  }
  // Each node against the reference: its own fingerprint, then each
  // environment's workers (the first case that has them).
  for (const auto& n : a.nodes) {
    if (!n.found || &n == reference) continue;
    for (auto& mm : compare_node_fingerprints(reference->manifest.orchestrator, n.manifest.orchestrator))
      a.differences.push_back({n.node, reference->node, "node", mm});
    std::set<std::string> done;
    for (const auto& c : n.analysis.cases) {
      const auto rc = std::find_if(reference->analysis.cases.begin(), reference->analysis.cases.end(),
                                   [&](const CaseAnalysis& r) { return r.case_id == c.case_id; });
      if (rc == reference->analysis.cases.end()) continue;
      for (const auto& e : c.envs) {
        const EnvironmentStats* re = find_environment(*rc, e.env);
        if (done.count(e.env) || !e.fingerprint || !re || !re->fingerprint) continue;
        done.insert(e.env);
        for (auto& mm : compare_fingerprints(*re->fingerprint, *e.fingerprint))
          a.differences.push_back({n.node, reference->node, e.env, mm});
      }
    }
  }
  return a;
}

}  // namespace dlcbench
