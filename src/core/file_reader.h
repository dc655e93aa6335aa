// A read-only file read at offsets with pread(2): what --input disk uses on
// every step, so it is the file system's cost that the step pays.
#pragma once

#include <cstdint>
#include <filesystem>

namespace dlcbench {

class FileReader {
 public:
  // Throws DataError naming the file if it cannot be opened.
  explicit FileReader(const std::filesystem::path& path);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // Reads exactly n bytes at `offset`; a short file or a failed read is a
  // DataError naming the file, the offset and the cause.
  void read_at(std::uint64_t offset, void* out, std::size_t n) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_;
};

}  // namespace dlcbench
