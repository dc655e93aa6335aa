#include "cluster/folder_bundle.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/sha.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

std::string read_whole(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A relative path that stays inside the folder.
bool safe_relative(const fs::path& p) {
  if (p.empty() || p.is_absolute()) return false;
  for (const auto& part : p)
    if (part == ".." || part == ".") return false;
  return true;
}

}  // namespace

void write_folder_bundle(const fs::path& folder, const std::function<void(const std::string&)>& emit) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const std::string relative = fs::relative(file, folder).string();
    const std::string content = read_whole(file);
    std::size_t at = 0;
    try {
      while (at < content.size()) {
        const auto newline = content.find('\n', at);
        const auto end = newline == std::string::npos ? content.size() : newline + 1;
        emit(nlohmann::json{{"file", relative}, {"text", content.substr(at, end - at)}}.dump());
        at = end;
      }
    } catch (const nlohmann::json::type_error&) {
      throw std::runtime_error(fmt::format("{} is not UTF-8 text: a run folder holds only text files", file.string()));
    }
    emit(nlohmann::json{{"file", relative}, {"end", true}, {"bytes", content.size()},
                        {"sha256", string_digest(content, "sha256")}}
             .dump());
  }
}

FolderBundleReader::FolderBundleReader(fs::path folder) : folder_(std::move(folder)) {}

FolderBundleReader::~FolderBundleReader() = default;

void FolderBundleReader::add_line(std::string_view line) {
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    throw std::runtime_error(fmt::format("not a line of a folder bundle: {}", std::string(line.substr(0, 200))));
  }
  if (!record.is_object() || !record.contains("file") || !record["file"].is_string())
    throw std::runtime_error(fmt::format("not a record of a folder bundle: {}", std::string(line.substr(0, 200))));
  const std::string relative = record["file"];
  if (!safe_relative(relative))
    throw std::runtime_error(fmt::format("a folder bundle names {}, outside its folder", relative));
  std::string& content = open_[relative];
  if (record.contains("text")) {
    content += record["text"].get<std::string>();
    return;
  }
  const auto bytes = record.value("bytes", std::size_t{0});
  const std::string digest = record.value("sha256", std::string());
  if (content.size() != bytes || string_digest(content, "sha256") != digest)
    throw std::runtime_error(fmt::format("{} arrived with {} bytes and another digest than sent ({} bytes): the "
                                         "transfer was damaged",
                                         relative, content.size(), bytes));
  const fs::path target = folder_ / relative;
  fs::create_directories(target.parent_path());
  const fs::path partial = target.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", partial.string()));
  }
  fs::rename(partial, target);
  open_.erase(relative);
  done_.push_back(relative);
}

std::vector<std::string> FolderBundleReader::unfinished() const {
  std::vector<std::string> names;
  for (const auto& [name, content] : open_) names.push_back(name);
  return names;
}

}  // namespace dlcbench
