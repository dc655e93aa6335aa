// A run's folder under --out, named by its run id, and the times a
// manifest records.
#pragma once

#include <filesystem>
#include <string>

namespace dlcbench {

// Now, as a manifest records times: "2026-12-06T23:02:06Z" (UTC).
std::string now_iso();

// Makes --out (`out`) and the run's own folder in it: `name` when given,
// else one named by a new run id (the time, then a random part), which is
// set in `run_id`. A folder that exists belongs to another run: refused. An
// --out that cannot be made is a UsageError naming it; the folders made
// before the failure are removed.
std::filesystem::path create_run_folder(const std::filesystem::path& out, std::string& run_id,
                                        const std::string& name = "");

}  // namespace dlcbench
