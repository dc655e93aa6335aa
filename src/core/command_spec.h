// A user's command as a workload: `dlcbench run [options] -- COMMAND ARGS...`
// runs it, as an argument vector (never through a shell), in every
// environment, under dlcbench-probe. Its figure is the wall time of each
// launch, or per-iteration figures read from its output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dlcbench {

// The case id's prefix: "cmd:train".
inline constexpr const char* kCommandWorkload = "command";

struct MetricSpec {
  // wall_time: the launch's wall time, one figure per launch; regex: a
  // regular expression with one capture group, searched in every output
  // line; json_field: lines that are JSON objects, this field ("a.b" for a
  // nested one).
  enum class Source { wall_time, regex, json_field };
  Source source = Source::wall_time;
  std::string pattern;
  std::string unit = "s/launch";
  bool higher_is_better = false;
};
// "wall_time", "regex", "json_field".
const char* metric_source_name(MetricSpec::Source source);

struct CommandSpec {
  std::string name;                // the case is "cmd:<name>"
  std::vector<std::string> argv;   // "{data}" and "{workdir}" are replaced per environment
  // Variables passed from dlcbench's environment to the command, with their
  // values; the manifest records the names alone (a value may be a secret),
  // and a resumed run reads the values again.
  std::vector<std::pair<std::string, std::string>> env;
  std::string workdir;                  // host folder, mounted read-write; the command's working folder
  std::string workdir_mount = "/work";  // where a container sees it
  std::string data_mount = "/data";     // where a container sees --data
  MetricSpec metric;
};

void to_json(nlohmann::json& j, const CommandSpec& c);
void from_json(const nlohmann::json& j, CommandSpec& c);

// The argument vector with "{data}" and "{workdir}" replaced by the paths
// the environment gives them (an argument is never split or joined).
std::vector<std::string> command_argv_for(const CommandSpec& command, const std::string& data,
                                          const std::string& workdir);

}  // namespace dlcbench
