#include "report/cluster_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/console.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/svg.h"

namespace dlcbench {
namespace {

std::string percent(double ratio) { return fmt::format("{:+.1f}%", 100 * (ratio - 1)); }

// "+3.1% (+1.2 .. +5.0%)*": the robust estimate, its interval, "*" where
// the interval excludes no change.
std::string overhead_text(const Overhead& o) {
  if (!o.compared) return "not compared";
  const RobustRatio& r = o.robust;
  if (!(r.ratio > 0)) return "n/a";
  std::string text = percent(r.ratio);
  if (r.bounded()) text += fmt::format(" ({} .. {})", percent(r.ci95_low), percent(r.ci95_high));
  else text += " (no interval)";
  if (is_significant(o.verdict)) text += "*";
  return text;
}

std::string seconds_text(const Summary& s, const std::string& unit) {
  return fmt::format("{:.4g} {} (+-{:.1f}%)", s.mean, unit, s.mean > 0 ? 100 * (s.ci95_high - s.mean) / s.mean : 0.0);
}

std::string rounds_words(const std::vector<int>& rounds) {
  std::vector<std::string> parts;
  for (int r : rounds) parts.push_back(std::to_string(r));
  return fmt::format("{} {}", rounds.size() == 1 ? "round" : "rounds", fmt::join(parts, ", "));
}

Table nodes_table(const ClusterAnalysis& a) {
  Table t;
  t.header = {"node", "host", "status", "rounds", "missing", "left out", "CPU quota"};
  t.numeric = {false, false, false, true, false, false, true};
  for (const auto& n : a.nodes) {
    std::vector<Cell> row;
    row.push_back(n.node);
    row.push_back(n.hostname.empty() ? "?" : n.hostname);
    if (!n.found) {
      row.insert(row.end(), {"no results", "0", n.problem, "", ""});
    } else {
      row.push_back(run_status_text(n.manifest.status));
      row.push_back(fmt::format("{}", n.rounds_planned));
      row.push_back(n.missing_launches == 0 ? "none"
                                            : fmt::format("{} ({} launches)", rounds_words(n.missing_rounds),
                                                          n.missing_launches));
      std::vector<std::string> left;
      for (const auto& [env, why] : n.unavailable) left.push_back(env);
      row.push_back(left.empty() ? "" : fmt::format("{}", fmt::join(left, ", ")));
    }
    if (n.found) row.push_back(n.cpu_quota ? fmt::format("{:g} CPUs", *n.cpu_quota) : "");
    t.rows.push_back(row);
  }
  return t;
}

ClusterCaseSection case_section(const ClusterCase& c) {
  ClusterCaseSection s;
  s.heading = c.case_id;
  s.caption = fmt::format(
      "Per node: the {} mean with its 95% CI; the node against the other nodes' {} (spread: Hodges-Lehmann "
      "shift of run values, Mann-Whitney 95% CI); each environment's overhead on that node (Hodges-Lehmann ratio "
      "paired by round, Wilcoxon 95% CI). \"all nodes\": the overheads paired within each node, so the spread "
      "between nodes does not enter them. * where the interval excludes no change.",
      c.baseline, c.baseline);
  Table& t = s.table;
  t.header = {"node", c.baseline + " (" + c.unit + ")", "vs other nodes"};
  t.numeric = {false, true, true};
  for (const auto& env : c.environments) {
    t.header.push_back(env + " overhead");
    t.numeric.push_back(true);
  }
  for (const auto& n : c.nodes) {
    std::vector<Cell> row = {n.node, n.baseline ? seconds_text(*n.baseline, c.unit) : "n/a",
                             n.spread ? overhead_text(*n.spread) : "n/a"};
    for (const auto& env : c.environments) {
      const auto o = n.overheads.find(env);
      row.push_back(o == n.overheads.end() ? Cell("n/a") : Cell(overhead_text(o->second)));
    }
    t.rows.push_back(row);
  }
  std::vector<Cell> all = {"all nodes", "",
                           c.spread_ratio > 0 ? fmt::format("spread x{:.3f}", c.spread_ratio) : Cell("n/a")};
  for (const auto& env : c.environments) {
    const auto o = c.pooled.find(env);
    all.push_back(o == c.pooled.end() ? Cell("n/a") : Cell(overhead_text(o->second)));
  }
  t.rows.push_back(all);
  if (c.spread_ratio > 0)
    s.findings.push_back(fmt::format("spread between nodes on the {}: the slowest ({}) takes {} the time of the fastest "
                                     "({})",
                                     c.baseline, c.slowest, percent(c.spread_ratio), c.fastest));
  for (const auto& node : c.odd_nodes)
    for (const auto& n : c.nodes)
      if (n.node == node && n.spread)
        s.findings.push_back(fmt::format(
            "{} differs from the other nodes on the {} as well: {} (95% CI {} .. {}); read its containers' figures "
            "against its own {}, as the overheads above do, not against another node's",
            node, c.baseline, percent(n.spread->robust.ratio), percent(n.spread->robust.ci95_low),
            percent(n.spread->robust.ci95_high), c.baseline));
  for (const auto& [env, o] : c.pooled)
    s.findings.push_back(fmt::format("{} across nodes: {}", env, o.verdict_text));
  return s;
}

std::string bytes_text(long bytes) {
  if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string latency_text(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  return fmt::format("{:.3f} ms", seconds * 1e3);
}

ClusterCaseSection allreduce_section(const AllreduceFigures& f) {
  ClusterCaseSection s;
  s.heading = fmt::format("all-reduce across {} nodes", f.ranks > 0 ? f.ranks : static_cast<int>(f.nodes.size()));
  s.caption = fmt::format(
      "MPI_Allreduce of floats (sum), one rank per node ({}), TCP between ranks in every environment; {} rounds of "
      "{} timed calls per size, each call the slowest rank's time. Latency: the median call; bus bandwidth: "
      "bytes / latency x 2(n-1)/n. Overhead: Hodges-Lehmann ratio of the rounds' mean call times against the {}, "
      "paired by round, Wilcoxon 95% CI; * where the interval excludes no change.",
      f.nodes.empty() ? "no rank ran" : fmt::format("{}", fmt::join(f.nodes, ", ")), f.rounds, f.iterations,
      f.baseline);
  Table& t = s.table;
  t.header = {"size", f.baseline + " latency", f.baseline + " bus GB/s"};
  t.numeric = {false, true, true};
  for (const auto& env : f.environments) {
    t.header.push_back(env + " GB/s");
    t.header.push_back(env + " overhead");
    t.numeric.insert(t.numeric.end(), {true, true});
  }
  auto at = [](const std::map<std::string, double>& m, const std::string& key) -> Cell {
    const auto it = m.find(key);
    return it == m.end() ? Cell("n/a") : Cell(fmt::format("{:.3f}", it->second));
  };
  for (const auto& size : f.sizes) {
    const auto base = size.median_seconds.find(f.baseline);
    std::vector<Cell> row = {bytes_text(size.bytes),
                             base == size.median_seconds.end() ? Cell("n/a") : Cell(latency_text(base->second)),
                             at(size.bus_gbps, f.baseline)};
    for (const auto& env : f.environments) {
      row.push_back(at(size.bus_gbps, env));
      const auto o = size.overheads.find(env);
      row.push_back(o == size.overheads.end() ? Cell("n/a") : Cell(overhead_text(o->second)));
    }
    t.rows.push_back(row);
  }
  if (!f.mpi_library.empty()) s.findings.push_back("MPI library: " + f.mpi_library);
  for (const auto& size : f.sizes)
    for (const auto& [env, o] : size.overheads)
      if (is_significant(o.verdict))
        s.findings.push_back(fmt::format("{} at {}: {}", env, bytes_text(size.bytes), o.verdict_text));
  for (const auto& why : f.left_out) s.findings.push_back("left out: " + why);
  for (const auto& failure : f.failures) s.findings.push_back("failed: " + failure);
  if (f.status != "completed")
    s.findings.push_back(fmt::format("the all-reduce did not complete{}{}: `dlcbench run --resume RUN` measures the "
                                     "rounds it lacks",
                                     f.error.empty() ? "" : ": ", f.error));
  return s;
}

std::string node_difference_line(const NodeDifference& d) {
  return fmt::format("{} ({}): {}: {} has {}, {} has {}", d.node, d.scope == "node" ? "the node" : d.scope,
                     d.mismatch.field, d.reference, d.mismatch.baseline_value, d.node, d.mismatch.other_value);
}

void console_lines(std::string& out, const std::string& heading, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  out += heading + "\n";
  for (const auto& l : lines) out += "  " + l + "\n";
}

}  // namespace

ClusterReport build_cluster_report(const ClusterAnalysis& a) {
  ClusterReport r;
  const ClusterManifest& m = a.manifest;
  std::vector<std::string> jobs;
  for (const auto& j : m.jobs)
    jobs.push_back(j.submit_error.empty() ? fmt::format("{} ({})", j.id, j.state.empty() ? "?" : j.state)
                                          : fmt::format("refused: {}", j.submit_error));
  r.facts = {{"Run", m.run_id},
             {"Status", m.status},
             {"Scheduler", m.scheduler},
             {"Jobs", jobs.empty() ? "none" : fmt::format("{}", fmt::join(jobs, ", "))},
             {"Results", m.transfer == ResultsTransfer::shared
                             ? "written by each node into nodes/<node>/ (shared folder)"
                             : fmt::format("staged in {} on each node, brought back into nodes/<node>/", m.stage_folder)},
             {"Nodes", fmt::format("{}", a.nodes.size())},
             {"Baseline", a.baseline.empty() ? "?" : a.baseline},
             {"Command", fmt::format("{}", fmt::join(m.command_line, " "))}};
  r.nodes = nodes_table(a);
  for (const auto& n : a.nodes) {
    if (!n.found) r.missing.push_back(fmt::format("{}: everything: {}", n.node, n.problem));
    else if (n.missing_launches > 0)
      r.missing.push_back(fmt::format("{}: {} not measured ({} launches); `dlcbench run --resume RUN` measures them",
                                      n.node, rounds_words(n.missing_rounds), n.missing_launches));
    for (const auto& [env, why] : n.unavailable) r.missing.push_back(fmt::format("{}: {} left out: {}", n.node, env, why));
  }
  for (const auto& c : a.cases) r.cases.push_back(case_section(c));
  if (a.allreduce) r.cases.push_back(allreduce_section(*a.allreduce));
  for (const auto& d : a.differences) r.differences.push_back(node_difference_line(d));
  r.notes = a.notes;
  return r;
}

std::string render_cluster_console(const ClusterAnalysis& a) {
  const ClusterReport r = build_cluster_report(a);
  std::string out = fmt::format("cluster run {} ({}), {} nodes\n\n", r.facts[0].second, r.facts[1].second, a.nodes.size());
  out += render_console_table(r.nodes) + "\n";
  console_lines(out, "Missing:", r.missing);
  for (const auto& s : r.cases) {
    out += fmt::format("\n{}\n", s.heading);
    out += render_console_table(s.table);
    for (const auto& f : s.findings) out += "  " + f + "\n";
  }
  out += "\n";
  if (r.differences.empty() && a.nodes.size() > 1)
    out += "Fingerprints: every node alike (apart from its name)\n";
  console_lines(out, "Fingerprints that differ between nodes:", r.differences);
  console_lines(out, "Notes:", r.notes);
  return out;
}

std::string render_cluster_markdown(const ClusterAnalysis& a) {
  const ClusterReport r = build_cluster_report(a);
  std::string out = fmt::format("# dlcbench cluster run {}\n\n", markdown_text(r.facts[0].second));
  for (const auto& [k, v] : r.facts) out += fmt::format("- **{}**: {}\n", k, markdown_text(v));
  out += "\n## Nodes\n\n";
  render_markdown_table(out, r.nodes);
  if (!r.missing.empty()) {
    out += "\n\n## Missing\n\n";
    for (const auto& l : r.missing) out += "- " + markdown_text(l) + "\n";
  }
  for (const auto& s : r.cases) {
    out += fmt::format("\n\n## {}\n\n{}\n\n", markdown_text(s.heading), markdown_text(s.caption));
    render_markdown_table(out, s.table);
    out += "\n\n";
    for (const auto& f : s.findings) out += "- " + markdown_text(f) + "\n";
  }
  out += "\n## Fingerprints between nodes\n\n";
  if (r.differences.empty()) out += "Every node alike (apart from its name).\n";
  for (const auto& l : r.differences) out += "- " + markdown_text(l) + "\n";
  if (!r.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& l : r.notes) out += "- " + markdown_text(l) + "\n";
  }
  return out;
}

std::string render_cluster_html(const ClusterAnalysis& a) {
  const ClusterReport r = build_cluster_report(a);
  std::string out = html_page_start("dlcbench cluster run " + r.facts[0].second);
  out += fmt::format("<h1>dlcbench cluster run {}</h1>\n<dl class=\"facts\">\n", html_escape(r.facts[0].second));
  for (const auto& [k, v] : r.facts) out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", html_escape(k), html_escape(v));
  out += "</dl>\n<section id=\"nodes\">\n<h2>Nodes</h2>\n";
  render_html_table(out, r.nodes, "nodes", "nodes-table");
  if (!r.missing.empty()) {
    out += "<h3>Missing</h3>\n<ul class=\"notes\">\n";
    for (const auto& l : r.missing) out += fmt::format("<li>{}</li>\n", html_escape(l));
    out += "</ul>\n";
  }
  out += "</section>\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& s = r.cases[i];
    out += fmt::format("<section class=\"case\">\n<h2>{}</h2>\n<p class=\"caption\">{}</p>\n", html_escape(s.heading),
                       html_escape(s.caption));
    render_html_table(out, s.table, "cluster-case", fmt::format("cluster-case-{}", i + 1));
    out += "<ul>\n";
    for (const auto& f : s.findings) out += fmt::format("<li>{}</li>\n", html_escape(f));
    out += "</ul>\n</section>\n";
  }
  out += "<section id=\"fingerprints\">\n<h2>Fingerprints between nodes</h2>\n<ul>\n";
  if (r.differences.empty()) out += "<li>Every node alike (apart from its name).</li>\n";
  for (const auto& l : r.differences) out += fmt::format("<li>{}</li>\n", html_escape(l));
  out += "</ul>\n</section>\n";
  for (const auto& l : r.notes) out += fmt::format("<p class=\"note\">{}</p>\n", html_escape(l));
  out += "<footer>Made by dlcbench from cluster.json and each node's manifest.json and results.jsonl.</footer>\n"
         "</body>\n</html>\n";
  return out;
}

nlohmann::json cluster_json(const ClusterAnalysis& a) {
  auto overhead_json = [](const Overhead& o) {
    return nlohmann::json{{"env", o.env},
                          {"ratio", o.robust.ratio},
                          {"ci95", {o.robust.bounded() ? nlohmann::json(o.robust.ci95_low) : nlohmann::json(),
                                    o.robust.bounded() ? nlohmann::json(o.robust.ci95_high) : nlohmann::json()}},
                          {"significant", is_significant(o.verdict)},
                          {"compared", o.compared},
                          {"verdict", o.verdict_text}};
  };
  nlohmann::json j;
  j["cluster"] = a.manifest;
  j["baseline"] = a.baseline;
  j["complete"] = a.complete();
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : a.nodes) {
    nlohmann::json nj = {{"node", n.node},
                         {"found", n.found},
                         {"problem", n.problem},
                         {"hostname", n.hostname},
                         {"rounds", n.rounds_planned},
                         {"missing_rounds", n.missing_rounds},
                         {"missing_launches", n.missing_launches},
                         {"unavailable", n.unavailable},
                         {"cpu_quota", n.cpu_quota ? nlohmann::json(*n.cpu_quota) : nlohmann::json()}};
    if (n.found) nj["status"] = run_status_text(n.manifest.status);
    j["nodes"].push_back(nj);
  }
  j["cases"] = nlohmann::json::array();
  for (const auto& c : a.cases) {
    nlohmann::json cj = {{"case", c.case_id}, {"unit", c.unit}, {"spread_ratio", c.spread_ratio},
                         {"slowest", c.slowest}, {"fastest", c.fastest}, {"odd_nodes", c.odd_nodes}};
    cj["nodes"] = nlohmann::json::array();
    for (const auto& n : c.nodes) {
      nlohmann::json nj = {{"node", n.node}};
      if (n.baseline) nj["baseline_mean"] = n.baseline->mean;
      if (n.spread) nj["spread"] = overhead_json(*n.spread);
      nj["overheads"] = nlohmann::json::array();
      for (const auto& [env, o] : n.overheads) nj["overheads"].push_back(overhead_json(o));
      cj["nodes"].push_back(nj);
    }
    cj["pooled"] = nlohmann::json::array();
    for (const auto& [env, o] : c.pooled) cj["pooled"].push_back(overhead_json(o));
    j["cases"].push_back(cj);
  }
  j["differences"] = nlohmann::json::array();
  for (const auto& d : a.differences)
    j["differences"].push_back({{"node", d.node}, {"reference", d.reference}, {"scope", d.scope}, {"mismatch", d.mismatch}});
  if (a.allreduce) {
    const AllreduceFigures& f = *a.allreduce;
    nlohmann::json aj = {{"baseline", f.baseline}, {"environments", f.environments}, {"nodes", f.nodes},
                         {"ranks", f.ranks},       {"rounds", f.rounds},             {"iterations", f.iterations},
                         {"mpi_library", f.mpi_library}, {"status", f.status},       {"error", f.error},
                         {"failures", f.failures}, {"left_out", f.left_out}};
    aj["sizes"] = nlohmann::json::array();
    for (const auto& size : f.sizes) {
      nlohmann::json sj = {{"bytes", size.bytes}, {"median_seconds", size.median_seconds}, {"bus_gbps", size.bus_gbps}};
      sj["overheads"] = nlohmann::json::array();
      for (const auto& [env, o] : size.overheads) sj["overheads"].push_back(overhead_json(o));
      aj["sizes"].push_back(sj);
    }
    j["allreduce"] = aj;
  }
  j["notes"] = a.notes;
  return j;
}

}  // namespace dlcbench
