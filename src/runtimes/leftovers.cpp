#include "runtimes/leftovers.h"

#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "runtimes/environment.h"

namespace dlcbench {
namespace fs = std::filesystem;

std::string run_id_of_scratch_folder(const std::string& name) {
  // mkdtemp's six characters end the name; the run id may hold '-' itself.
  static const std::regex scratch(R"(dlcbench-(?:host|runc|crun|runsc|charliecloud|image)-(.+)-[A-Za-z0-9]{6})");
  std::smatch match;
  return std::regex_match(name, match, scratch) ? match[1].str() : "";
}

std::map<std::string, std::vector<std::string>> find_run_leftovers(const fs::path& temp) {
  std::map<std::string, std::vector<std::string>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(temp, error)) {
    if (entry.is_symlink() || !entry.is_directory()) continue;
    const std::string id = run_id_of_scratch_folder(entry.path().filename().string());
    if (!id.empty()) found[id].push_back(entry.path().string());
  }
  for (const char* engine : {"docker", "podman"}) {
    const auto program = find_program(engine);
    if (!program) continue;
    // An engine that does not answer holds nothing this can remove either.
    auto containers = capture_output({*program, "ps", "--all", "--filter", "label=dlcbench.run", "--format",
                                      "{{.Names}} {{.Label \"dlcbench.run\"}}"},
                                     60);
    std::stringstream lines(containers.result.ok() ? containers.out : "");
    for (std::string name, id; lines >> name >> id;) found[id].push_back(fmt::format("{} container {}", engine, name));
    auto images = capture_output({*program, "images", "--format", "{{.Repository}}:{{.Tag}}"}, 60);
    std::stringstream tags(images.result.ok() ? images.out : "");
    for (std::string tag; std::getline(tags, tag);) {
      const auto colon = tag.rfind(':');
      if (colon == std::string::npos) continue;
      const std::string repository = tag.substr(0, colon), version = tag.substr(colon + 1);
      const bool ours = repository.ends_with("dlcbench-worker") || repository.ends_with("dlcbench-noop");
      // <16 hex digits of the content>-<run id>; the content's own tag has no run id.
      if (ours && version.size() > 17 && version[16] == '-')
        found[version.substr(17)].push_back(fmt::format("{} image tag {}", engine, tag));
    }
  }
  return found;
}

std::vector<std::string> remove_run_leftovers(const std::string& run_id, const fs::path& self_exe,
                                              std::vector<std::string>& problems) {
  std::vector<std::string> removed;
  EnvironmentContext context{worker_program_beside(self_exe), run_id, true, false, {}};
  for (const auto& name : environment_names()) {
    if (name == "chroot") continue;  // it makes nothing that outlives a launch
    if (name != "host" && !find_program(runtime_program(name))) continue;
    try {
      auto environment = make_environment(parse_environment_request(name), context);
      environment->check();
      const auto gone = environment->remove_ended_run();
      removed.insert(removed.end(), gone.begin(), gone.end());
    } catch (const EnvironmentUnavailable&) {
      // Not usable here: nothing of it can be running either.
    } catch (const std::exception& e) {
      problems.push_back(fmt::format("{}: {}", name, e.what()));
    }
  }
  return removed;
}

}  // namespace dlcbench
