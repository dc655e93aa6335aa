// One environment as the user names it ("docker:cpus=1,memory=4g",
// "host#2"): its name, its options parsed once into typed fields, and its
// label. The runtimes take it as it is; nothing parses the options again.
// Kept apart from the runtimes that launch containers, so the parser links
// on its own (the fuzz targets in fuzz/ build it alone).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/container_options.h"

namespace dlcbench {

// One environment named on the command line, e.g. "docker:cpus=1,memory=4g".
struct EnvironmentRequest {
  std::string name;
  // As written, key by key: what the label says, and what tells a difference
  // asked for (fields_changed_by).
  std::map<std::string, std::string> options;
  // The environment's label in results: as the user wrote it, or the name
  // its `label=NAME` option gives ("docker:cpus=1.5,label=prod" is "prod"),
  // so that a series keeps its name when its options change.
  std::string text;
  // As the user wrote it, which parses back to this request (the manifest
  // records it where it differs from the label).
  std::string written;
  ContainerOptions container;  // `options` parsed and checked, as the runtimes take them
};
// The request with one more option (--image for docker and podman), parsed
// and checked as if it had been written in the label; the label stays.
EnvironmentRequest with_container_option(EnvironmentRequest request, const std::string& key, const std::string& value);
// Throws UsageError naming the valid environments or options. A "#N"
// suffix (a repeat's label) is kept in `text` and ignored otherwise; the
// option label=NAME (letters, digits, '.', '_', '-') is the label.
EnvironmentRequest parse_environment_request(const std::string& text);
// The label without its copy number: "host#2" (the second of `--envs
// host,host`) is "host"; a label without one is itself.
std::string without_copy_suffix(const std::string& label);
// The value of --envs: "host,docker:cpuset=0-3,6,memory=4g,podman". A comma
// starts a new environment only where a known environment name follows, so
// options (and CPU lists) may hold commas. An environment listed again is
// measured again, labelled "host#2".
std::vector<EnvironmentRequest> parse_environment_list(const std::string& text);
// host, docker, podman, runc, crun, runsc, charliecloud, chroot.
std::vector<std::string> environment_names();
// The program an environment is installed with, to look for on PATH:
// "ch-run" for charliecloud, "" for host, the name itself for the others.
std::string runtime_program(const std::string& environment);

}  // namespace dlcbench
