// The report of a cluster run (analysis/cluster_analysis.h), built once as
// tables and lines, laid out by the console, Markdown and HTML renderers the
// one-machine report uses; and as JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/cluster_analysis.h"
#include "report/report_model.h"

namespace dlcbench {

struct ClusterCaseSection {
  std::string heading;  // the case
  std::string caption;  // what the columns are
  Table table;          // a row per node, then "all nodes"
  std::vector<std::string> findings;  // the spread and the odd nodes, in words
};

struct ClusterReport {
  std::vector<std::pair<std::string, std::string>> facts;
  Table nodes;                        // a row per node: host, status, rounds, what is missing
  std::vector<std::string> missing;   // "dlcnode2: rounds 3, 4 not measured (4 launches)"
  std::vector<ClusterCaseSection> cases;
  std::vector<std::string> differences;  // fingerprint fields that differ between nodes
  std::vector<std::string> notes;
};

ClusterReport build_cluster_report(const ClusterAnalysis& analysis);

std::string render_cluster_console(const ClusterAnalysis& analysis);
std::string render_cluster_markdown(const ClusterAnalysis& analysis);
std::string render_cluster_html(const ClusterAnalysis& analysis);
nlohmann::json cluster_json(const ClusterAnalysis& analysis);

}  // namespace dlcbench
