// The manifest reader: any text gives a Manifest and its typed plan, or an
// error naming the field; the plan written again reads back the same. Environment labels and
// case specs are then parsed as `dlcbench report` and `run --resume` do.
#include "model/manifest.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "fuzz_targets.h"
#include "model/container_options.h"
#include "runtimes/environment.h"

namespace dlcbench::fuzz {

void manifest(Input input) {
  nlohmann::json manifest;
  try {
    manifest = parse_json_text(as_text(input), "manifest.json");
  } catch (const std::runtime_error&) {
    return;  // not JSON: the report says so, naming the file
  }
  Manifest read;
  try {
    read = manifest.get<Manifest>();
  } catch (const DataError&) {
    return;
  }
  if (!read.plan) return;
  const RecordedPlan& plan = *read.plan;
  // What the one writer writes, the one reader reads back as it was.
  const nlohmann::json written = plan;
  expect(nlohmann::json(read_recorded_plan(written)) == written, "a recorded plan reads back as written");
  for (const auto& label : plan.environments) {
    try {
      const EnvironmentRequest r = parse_environment_request(label);
      expect(r.text == label, "an environment keeps its label");
      fields_changed_by(r.options);
    } catch (const UsageError&) {
    }
  }
  for (const auto& c : plan.cases) {
    expect(c.spec.workload == c.workload, "a case keeps its workload");
    (void)c.spec.id();  // what `run --resume` compares with the recorded id
    (void)c.spec.worker_args();
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::manifest)
