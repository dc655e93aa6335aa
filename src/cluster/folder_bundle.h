// A run folder as a stream of JSON lines, so a node's results travel over
// Slurm's own standard output and input (srun) where the nodes share no file
// system. Each file goes as its lines, then an end record with its size and
// sha256, checked on arrival: a stream cut short writes nothing wrong.
// Only text files travel (everything dlcbench writes in a run folder is).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

// Every regular file under `folder` (recursively), as bundle lines handed to
// `emit` one at a time. Throws std::runtime_error for a file that is not
// UTF-8 text.
void write_folder_bundle(const std::filesystem::path& folder, const std::function<void(const std::string&)>& emit);

// Reads a bundle line by line into `folder`: each file is written beside its
// place and moved there only once its end record checks out.
class FolderBundleReader {
 public:
  explicit FolderBundleReader(std::filesystem::path folder);
  ~FolderBundleReader();
  // Throws std::runtime_error for a line that is not a bundle record, or a
  // file whose size or digest does not match its end record.
  void add_line(std::string_view line);
  // Files that arrived whole, relative to the folder.
  const std::vector<std::string>& files() const { return done_; }
  // Files whose end never came (the stream was cut): removed, and named here.
  std::vector<std::string> unfinished() const;

 private:
  std::filesystem::path folder_;
  std::map<std::string, std::string> open_;  // relative path -> content so far
  std::vector<std::string> done_;
};

}  // namespace dlcbench
