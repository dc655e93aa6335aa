// Parsing of environment labels ("docker:cpus=1,memory=4g", "host#2") and
// of --envs.
#include "model/environment_request.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

bool is_environment_name(const std::string& name) {
  const auto names = environment_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

[[noreturn]] void unknown_environment(const std::string& name) {
  throw UsageError(fmt::format("unknown environment '{}': valid environments are {}", name,
                               fmt::join(environment_names(), ", ")));
}

// The one place an environment's options are parsed: every key and value
// checked, before anything is measured, and kept typed for the runtimes.
EnvironmentRequest with_options_parsed(EnvironmentRequest request) {
  request.container = parse_container_options(request.name, request.options);
  return request;
}

}  // namespace

// "host#2": the second of two identical environments (`--envs host,host`).
std::string without_copy_suffix(const std::string& text) {
  const auto hash = text.rfind('#');
  if (hash == std::string::npos || hash + 1 == text.size()) return text;
  for (std::size_t i = hash + 1; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return text;
  return text.substr(0, hash);
}

std::vector<std::string> environment_names() {
  return {"host", "docker", "podman", "runc", "crun", "runsc", "charliecloud", "chroot"};
}

std::string runtime_program(const std::string& environment) {
  if (environment == "host") return "";
  if (environment == "charliecloud") return "ch-run";
  return environment;
}

EnvironmentRequest parse_environment_request(const std::string& label) {
  EnvironmentRequest r;
  r.text = label;
  r.written = label;
  const std::string text = without_copy_suffix(label);
  const auto colon = text.find(':');
  r.name = text.substr(0, colon);
  if (!is_environment_name(r.name)) unknown_environment(r.name);
  if (colon != std::string::npos) {
    std::stringstream rest(text.substr(colon + 1));
    std::string item, last_key;
    while (std::getline(rest, item, ',')) {
      const auto eq = item.find('=');
      const std::string key = item.substr(0, eq);
      if (eq == std::string::npos && last_key == "cpuset" && parse_cpu_list(item)) {
        r.options[last_key] += "," + item;  // "cpuset=0-3,6"
        continue;
      }
      if (eq == std::string::npos || key.empty())
        throw UsageError(fmt::format("environment option '{}' in '{}' is not key=value", item, text));
      if (r.options.count(key))
        throw UsageError(fmt::format("environment option '{}' is given twice in '{}'", key, text));
      r.options[key] = item.substr(eq + 1);
      last_key = key;
    }
  }
  // label=NAME names the environment in results; it changes nothing run.
  if (const auto named = r.options.find("label"); named != r.options.end()) {
    const std::string& name = named->second;
    if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0])) ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
      throw UsageError(fmt::format("label={} in '{}': give a name of letters, digits, '.', '_' and '-' (up to 64, "
                                   "starting with a letter), e.g. label=prod",
                                   name, text));
    const std::string copy = label.substr(without_copy_suffix(label).size());  // "#2" or ""
    r.text = name + copy;
    r.options.erase(named);
  }
  return with_options_parsed(std::move(r));
}

EnvironmentRequest with_container_option(EnvironmentRequest request, const std::string& key, const std::string& value) {
  request.options[key] = value;
  return with_options_parsed(std::move(request));
}

std::vector<EnvironmentRequest> parse_environment_list(const std::string& text) {
  std::vector<std::string> groups;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const std::string name = item.substr(0, item.find(':'));
    const auto colon = item.find(':'), eq = item.find('=');
    // "memory=4g" continues the environment before it; "name" or
    // "name:key=value" starts one.
    const bool starts_environment = groups.empty() || eq == std::string::npos ||
                                    (colon != std::string::npos && colon < eq);
    if (starts_environment) {
      // A new environment; a bare word that is none is an unknown name,
      // unless it continues a CPU list ("cpuset=0-3,6").
      if (!is_environment_name(name) && !groups.empty() && parse_cpu_list(item) &&
          groups.back().find("cpuset=") != std::string::npos) {
        groups.back() += "," + item;
        continue;
      }
      // "runc:rootfs=/images/a,b": the comma split a path.
      if (!is_environment_name(name) && !groups.empty()) {
        const auto value = groups.back().rfind('=');
        if (value != std::string::npos && groups.back().find('/', value) != std::string::npos)
          throw UsageError(fmt::format(
              "unknown environment '{}' after '{}': a comma separates environments and their options, so a path "
              "cannot hold one; give the path through a symbolic link without commas (ln -s '{},{}' /tmp/rootfs)",
              item, groups.back(), groups.back().substr(value + 1), item));
      }
      groups.push_back(item);
    } else {
      groups.back() += (groups.back().find(':') == std::string::npos ? ":" : ",") + item;
    }
  }
  // The same environment twice is measured twice, as "host" and "host#2":
  // the null experiment, whose overhead must come out as none.
  std::vector<EnvironmentRequest> requests;
  for (const auto& g : groups) {
    int copies = 0;
    for (const auto& existing : requests) copies += without_copy_suffix(existing.text) == g;
    if (g.find('#') != std::string::npos && without_copy_suffix(g) != g)
      throw UsageError(fmt::format("environment '{}': '#N' is how dlcbench labels repeats; list the environment "
                                   "again instead",
                                   g));
    requests.push_back(parse_environment_request(copies ? fmt::format("{}#{}", g, copies + 1) : g));
    for (std::size_t i = 0; i + 1 < requests.size(); ++i)
      if (requests[i].text == requests.back().text)
        throw UsageError(fmt::format("'{}' and '{}' are both labelled {}: give each environment its own label",
                                     requests[i].written, requests.back().written, requests.back().text));
  }
  return requests;
}

}  // namespace dlcbench
