#include "runtimes/environment.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "runtimes/docker.h"
#include "runtimes/host.h"

namespace dlcbench {
namespace {

struct EnvironmentKind {
  std::string name;
  std::vector<std::string> options;  // the option keys it accepts
};

const std::vector<EnvironmentKind>& kinds() {
  static const std::vector<EnvironmentKind> all = {
      {"host", {}},
      {"docker", {"image"}},
  };
  return all;
}

}  // namespace

std::vector<std::string> environment_names() {
  std::vector<std::string> names;
  for (const auto& k : kinds()) names.push_back(k.name);
  return names;
}

EnvironmentRequest parse_environment_request(const std::string& text) {
  EnvironmentRequest r;
  r.text = text;
  const auto colon = text.find(':');
  r.name = text.substr(0, colon);
  auto kind = std::find_if(kinds().begin(), kinds().end(), [&](const auto& k) { return k.name == r.name; });
  if (kind == kinds().end())
    throw UsageError(fmt::format("unknown environment '{}': valid environments are {}", r.name,
                                 fmt::join(environment_names(), ", ")));
  if (colon == std::string::npos) return r;
  std::stringstream rest(text.substr(colon + 1));
  std::string item;
  while (std::getline(rest, item, ',')) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos || key.empty())
      throw UsageError(fmt::format("environment option '{}' in '{}' is not key=value", item, text));
    if (std::find(kind->options.begin(), kind->options.end(), key) == kind->options.end())
      throw UsageError(fmt::format("environment '{}' has no option '{}': valid options are {}", r.name,
                                   key, kind->options.empty() ? "none" : fmt::format("{}", fmt::join(kind->options, ", "))));
    r.options[key] = item.substr(eq + 1);
  }
  return r;
}

std::unique_ptr<Environment> make_environment(const EnvironmentRequest& request,
                                              const EnvironmentContext& context) {
  if (request.name == "host") return make_host_environment(context);
  if (request.name == "docker") return make_docker_environment(request, context);
  throw UsageError(fmt::format("unknown environment '{}': valid environments are {}", request.name,
                               fmt::join(environment_names(), ", ")));
}

}  // namespace dlcbench
