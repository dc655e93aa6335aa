// What runs of dlcbench left on this machine, found by the names every run
// gives what it makes: its scratch folders in $TMPDIR
// (dlcbench-<environment>-<run id>-XXXXXX), its containers (the label
// dlcbench.run=<run id>) and its own tag of the worker image
// (dlcbench-worker:<content>-<run id>). A run removes them itself when it
// ends; one killed with SIGKILL cannot. Whether a run still goes on is
// core/live_runs.h's to say: this finds and removes, and never decides.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dlcbench {

// Run id -> what carries it (paths, container names, image tags). `temp` is
// where scratch folders are looked for; the engines are asked where they
// are installed and answer.
std::map<std::string, std::vector<std::string>> find_run_leftovers(
    const std::filesystem::path& temp = std::filesystem::temp_directory_path());

// The run id in a scratch folder's name, or "" when it is none of dlcbench's.
std::string run_id_of_scratch_folder(const std::string& name);

// Removes everything of `run_id` in every environment installed here (each
// environment's own removal, as `run --resume` does for the session it
// continues). Returns what was removed; `problems` gets what could not be.
std::vector<std::string> remove_run_leftovers(const std::string& run_id, const std::filesystem::path& self_exe,
                                              std::vector<std::string>& problems);

}  // namespace dlcbench
