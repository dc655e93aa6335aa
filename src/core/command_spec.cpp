#include "core/command_spec.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace dlcbench {

const char* metric_source_name(MetricSpec::Source source) {
  switch (source) {
    case MetricSpec::Source::regex: return "regex";
    case MetricSpec::Source::json_field: return "json_field";
    case MetricSpec::Source::wall_time: break;
  }
  return "wall_time";
}

void to_json(nlohmann::json& j, const CommandSpec& c) {
  // The names of the variables passed, never their values: a value may be a
  // secret (a token), and the manifest is read by others.
  std::vector<std::string> passed;
  for (const auto& [name, value] : c.env) passed.push_back(name);
  j = {{"name", c.name},
       {"argv", c.argv},
       {"pass_env", passed},
       {"workdir", c.workdir},
       {"workdir_mount", c.workdir_mount},
       {"data_mount", c.data_mount},
       {"metric",
        {{"source", metric_source_name(c.metric.source)},
         {"pattern", c.metric.pattern},
         {"unit", c.metric.unit},
         {"higher_is_better", c.metric.higher_is_better}}}};
}

void from_json(const nlohmann::json& j, CommandSpec& c) {
  j.at("name").get_to(c.name);
  j.at("argv").get_to(c.argv);
  c.env.clear();
  // Values are empty: whoever runs the command again reads them from its
  // own environment (resume_run). Older manifests kept names and values
  // under "env".
  if (const auto passed = j.find("pass_env"); passed != j.end())
    for (const auto& name : *passed) c.env.emplace_back(name.get<std::string>(), "");
  if (const auto env = j.find("env"); env != j.end())
    for (const auto& [k, v] : env->items()) c.env.emplace_back(k, v.get<std::string>());
  c.workdir = j.value("workdir", std::string());
  c.workdir_mount = j.value("workdir_mount", std::string("/work"));
  c.data_mount = j.value("data_mount", std::string("/data"));
  const auto& m = j.at("metric");
  const std::string source = m.at("source").get<std::string>();
  if (source == "regex") c.metric.source = MetricSpec::Source::regex;
  else if (source == "json_field") c.metric.source = MetricSpec::Source::json_field;
  else if (source == "wall_time") c.metric.source = MetricSpec::Source::wall_time;
  else throw DataError("command metric source '" + source + "' is not one of wall_time, regex, json_field");
  c.metric.pattern = m.value("pattern", std::string());
  c.metric.unit = m.value("unit", std::string("s/launch"));
  c.metric.higher_is_better = m.value("higher_is_better", false);
  if (c.argv.empty()) throw DataError("command case '" + c.name + "' has an empty argv");
}

std::vector<std::string> command_argv_for(const CommandSpec& command, const std::string& data,
                                          const std::string& workdir) {
  std::vector<std::string> argv;
  for (std::string arg : command.argv) {
    for (const auto& [placeholder, value] : {std::pair<std::string, std::string>{"{data}", data}, {"{workdir}", workdir}})
      for (auto at = arg.find(placeholder); at != std::string::npos; at = arg.find(placeholder, at + value.size()))
        arg.replace(at, placeholder.size(), value);
    argv.push_back(std::move(arg));
  }
  return argv;
}

}  // namespace dlcbench
