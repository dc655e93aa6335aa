// The --envs parser and the container options: any text gives environments
// with known names and checked options, or a UsageError. The input is also
// read as "environment NUL key NUL value" for parse_container_options(), and
// whole as a byte size and a CPU list.
#include <algorithm>
#include <map>

#include "core/errors.h"
#include "fuzz_targets.h"
#include "core/units.h"
#include "model/container_options.h"
#include "model/environment_request.h"

namespace dlcbench::fuzz {
namespace {

bool known_environment(const std::string& name) {
  const auto names = environment_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_request(const EnvironmentRequest& r) {
  expect(known_environment(r.name), "an environment has a known name");
  expect(!r.text.empty(), "an environment has a label");
  const auto& valid = option_keys(r.name);
  for (const auto& [key, value] : r.options) {
    expect(std::find(valid.begin(), valid.end(), key) != valid.end(), "an option is one its environment has");
    expect(!value.empty(), "an option has a value");
  }
}

}  // namespace

void environment_options(Input input) {
  const std::string text(as_text(input));
  try {
    const auto requests = parse_environment_list(text);
    for (const auto& r : requests) check_request(r);
  } catch (const UsageError&) {
  }
  try {
    check_request(parse_environment_request(text));
  } catch (const UsageError&) {
  }

  if (const auto bytes = parse_byte_size(text)) expect(*bytes >= 1 && *bytes <= 1000000000000000000ull, "a size is 1 byte .. 1e18");
  if (const auto cpus = parse_cpu_list(text)) {
    expect(!cpus->empty(), "a CPU list names a CPU");
    expect(std::is_sorted(cpus->begin(), cpus->end()) &&
               std::adjacent_find(cpus->begin(), cpus->end()) == cpus->end(),
           "a CPU list is sorted, without repeats");
    expect(cpus->front() >= 0 && cpus->back() <= 65535, "CPU numbers are 0..65535");
  }

  const std::vector<std::string> fields = split_at_nul(input, 3);
  try {
    const ContainerOptions o = parse_container_options(fields[0], {{fields[1], fields[2]}});
    if (o.cpus) expect(*o.cpus >= 0.01 && *o.cpus <= 4096, "a CPU quota is 0.01 .. 4096");
    if (o.memory_bytes) expect(*o.memory_bytes >= 6 * 1024 * 1024, "a memory limit is at least 6m");
  } catch (const UsageError&) {
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::environment_options)
