// Message digests of files, as lowercase hex, through OpenSSL.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace dlcbench {

// algorithm: "sha256", "sha1" or "md5" (the names OpenSSL uses).
std::string file_digest(const std::filesystem::path& file, std::string_view algorithm);
std::string string_digest(std::string_view data, std::string_view algorithm);

}  // namespace dlcbench
