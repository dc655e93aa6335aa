#include "workloads/micro/tool_output.h"

#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/process.h"

namespace dlcbench {
namespace {

// The end of a tool's output, for messages.
std::string excerpt(const std::string& text) {
  const std::string t = tail(text, 400);
  return t.empty() ? "(nothing)" : t;
}

std::optional<double> to_number(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
  if (*end != '\0') return std::nullopt;
  return value;
}

}  // namespace

DdFigures parse_dd_output(const std::string& text) {
  // The last summary line: a status=progress line before it has the same shape.
  static const std::regex summary(R"((\d+) bytes \([^)]*\) copied, ([0-9.e+-]+) s,)");
  DdFigures figures;
  bool found = false;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), summary); it != std::sregex_iterator(); ++it) {
    figures.bytes = std::stoll((*it)[1].str());
    figures.seconds = std::strtod((*it)[2].str().c_str(), nullptr);
    found = true;
  }
  if (!found || figures.seconds <= 0)
    throw ToolOutputError(fmt::format("dd printed no transfer summary (\"N bytes (...) copied, S s, ...\"): {}",
                                      excerpt(text)));
  return figures;
}

IopingFigures parse_ioping_batch(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::vector<double> values;
    std::string field;
    bool numeric = true;
    while (fields >> field) {
      auto value = to_number(field);
      if (!value) numeric = false;
      else values.push_back(*value);
    }
    if (!numeric || values.size() < 8) continue;
    IopingFigures f;
    f.requests = static_cast<std::int64_t>(values[0]);
    f.total_ns = values[1];
    f.min_ns = values[4];
    f.avg_ns = values[5];
    f.max_ns = values[6];
    f.mdev_ns = values[7];
    if (f.requests < 1 || f.avg_ns <= 0) break;
    return f;
  }
  throw ToolOutputError(fmt::format("ioping -B printed no statistics line (\"requests total iops speed min avg max "
                                    "mdev\", in ns): {}",
                                    excerpt(text)));
}

FioFigures parse_fio_json(const std::string& text, const std::string& direction) {
  // fio may print notes before the JSON document.
  const auto start = text.find('{');
  nlohmann::json doc = start == std::string::npos ? nlohmann::json() : nlohmann::json::parse(text.substr(start), nullptr, false);
  if (doc.is_discarded() || !doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    throw ToolOutputError(fmt::format("fio printed no JSON report with a job: {}", excerpt(text)));
  const auto& job = doc["jobs"][0];
  if (job.value("error", 0) != 0)
    throw ToolOutputError(fmt::format("fio's job failed with error {}", job.value("error", 0)));
  if (!job.contains(direction) || !job[direction].is_object())
    throw ToolOutputError(fmt::format("fio's report has no {} section", direction));
  const auto& d = job[direction];
  FioFigures f;
  f.io_bytes = d.value("io_bytes", std::int64_t{0});
  f.bw_bytes = d.value("bw_bytes", 0.0);
  f.runtime_ms = d.value("runtime", 0.0);
  if (d.contains("clat_ns") && d["clat_ns"].is_object()) f.mean_latency_ns = d["clat_ns"].value("mean", 0.0);
  if (f.io_bytes <= 0 || f.bw_bytes <= 0)
    throw ToolOutputError(fmt::format("fio's {} section reports no transfer (io_bytes {}, bw_bytes {})", direction,
                                      f.io_bytes, f.bw_bytes));
  return f;
}

std::map<std::string, std::string> parse_hpcc_summary(const std::string& text) {
  std::map<std::string, std::string> values;
  std::stringstream in(text);
  std::string line;
  bool inside = false, seen = false;
  while (std::getline(in, line)) {
    if (line.find("Begin of Summary section") != std::string::npos) {
      inside = seen = true;
      values.clear();  // hpcc appends: the last run's summary counts
    } else if (line.find("End of Summary section") != std::string::npos) {
      inside = false;
    } else if (inside) {
      const auto eq = line.find('=');
      if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  if (!seen) throw ToolOutputError(fmt::format("hpcc wrote no summary section: {}", excerpt(text)));
  return values;
}

double hpcc_value(const std::map<std::string, std::string>& summary, const std::string& key) {
  auto it = summary.find(key);
  if (it == summary.end()) throw ToolOutputError(fmt::format("hpcc's summary has no {}", key));
  auto value = to_number(it->second);
  if (!value) throw ToolOutputError(fmt::format("hpcc's summary gives {}={}, not a number", key, it->second));
  return *value;
}

std::string hpcc_failure(const std::string& text, const std::map<std::string, std::string>& summary) {
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find("||Ax-b||") != std::string::npos && line.find("FAILED") != std::string::npos)
      return "HPL's scaled residual check failed: " + line;
  auto success = summary.find("Success");
  if (success != summary.end() && to_number(success->second) != 1.0)
    return fmt::format("hpcc reports Success={}: one of its tests failed its check", success->second);
  return "";
}

std::string hpcc_input(std::int64_t n, int nb) {
  // Line by line the layout HPL.dat has; hpcc reads values by position.
  std::string text;
  auto line = [&](const std::string& value, const std::string& meaning) {
    text += fmt::format("{:<13}{}\n", value, meaning);
  };
  text += "HPLinpack benchmark input file\n";
  text += "dlcbench: one process, one problem size\n";
  line("HPL.out", "output file name (if any)");
  line("8", "device out (6=stdout,7=stderr,file)");
  line("1", "# of problems sizes (N)");
  line(std::to_string(n), "Ns");
  line("1", "# of NBs");
  line(std::to_string(nb), "NBs");
  line("0", "PMAP process mapping (0=Row-,1=Column-major)");
  line("1", "# of process grids (P x Q)");
  line("1", "Ps");
  line("1", "Qs");
  line("16.0", "threshold");
  line("1", "# of panel fact");
  line("2", "PFACTs (0=left, 1=Crout, 2=Right)");
  line("1", "# of recursive stopping criterium");
  line("4", "NBMINs (>= 1)");
  line("1", "# of panels in recursion");
  line("2", "NDIVs");
  line("1", "# of recursive panel fact.");
  line("1", "RFACTs (0=left, 1=Crout, 2=Right)");
  line("1", "# of broadcast");
  line("1", "BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)");
  line("1", "# of lookahead depth");
  line("1", "DEPTHs (>=0)");
  line("2", "SWAP (0=bin-exch,1=long,2=mix)");
  line("64", "swapping threshold");
  line("0", "L1 in (0=transposed,1=no-transposed) form");
  line("0", "U  in (0=transposed,1=no-transposed) form");
  line("1", "Equilibration (0=no,1=yes)");
  line("8", "memory alignment in double (> 0)");
  text += "##### This line (no. 32) is ignored (it serves as a separator). ######\n";
  line("0", "Number of additional problem sizes for PTRANS");
  line("1200", "values of N");
  line("0", "number of additional blocking sizes for PTRANS");
  line("40", "values of NB");
  return text;
}

}  // namespace dlcbench
