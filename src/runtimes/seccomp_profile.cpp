#include "runtimes/seccomp_profile.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_fields.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using json_fields::wrong_type;

struct SeccompArchNames {
  const char* machine;  // uname -m
  const char* scmp;     // archMap's "architecture"
  const char* native;   // includes/excludes "arches" (libseccomp's names, as moby uses them)
};

constexpr SeccompArchNames kSeccompArches[] = {
    {"x86_64", "SCMP_ARCH_X86_64", "amd64"},     {"aarch64", "SCMP_ARCH_AARCH64", "arm64"},
    {"i686", "SCMP_ARCH_X86", "x86"},            {"i386", "SCMP_ARCH_X86", "x86"},
    {"armv7l", "SCMP_ARCH_ARM", "arm"},          {"ppc64le", "SCMP_ARCH_PPC64LE", "ppc64le"},
    {"s390x", "SCMP_ARCH_S390X", "s390x"},       {"riscv64", "SCMP_ARCH_RISCV64", "riscv64"},
};

// A field that must be absent, null or an array of strings.
std::vector<std::string> seccomp_strings(const json& object, const char* key, const std::string& where) {
  std::vector<std::string> out;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_array()) wrong_type(where + key, *it, "an array of strings");
  for (const auto& s : *it) {
    if (!s.is_string()) wrong_type(where + key, *it, "an array of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

bool seccomp_has(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// "4.8" (or "5.10.0"): a malformed version would silently change which rules apply.
std::pair<int, int> seccomp_kernel_version(const json& value, const std::string& where) {
  int major = 0, minor = 0;
  if (!value.is_string() || std::sscanf(value.get<std::string>().c_str(), "%d.%d", &major, &minor) != 2)
    wrong_type(where, value, "a kernel version such as \"4.8\"");
  return {major, minor};
}

// The errno for a name when the profile gives no number: this build's values
// (the host's), which is what the filter runs on.
std::optional<int> seccomp_errno(const json& object, const char* number_key, const char* name_key,
                                 const std::string& where) {
  if (auto n = json_fields::optional_int_field(object, number_key, where)) return n;
  const std::string name = json_fields::string_field(object, name_key, "", where);
  if (name == "EPERM") return EPERM;
  if (name == "ENOSYS") return ENOSYS;
  if (name == "EINVAL") return EINVAL;
  return std::nullopt;  // unknown name: the runtime's default errno (EPERM)
}

// Whether a rule's includes/excludes let it apply to the target (moby's setupSeccomp).
bool seccomp_applies(const json& rule, const SeccompTarget& target, const std::string& native_arch,
                     const std::string& where) {
  for (const char* key : {"includes", "excludes"}) {
    const bool include = key[0] == 'i';
    const std::string at = where + key + ".";
    const auto it = rule.find(key);
    if (it == rule.end() || it->is_null()) continue;
    if (!it->is_object()) wrong_type(where + key, *it, "an object");
    const auto arches = seccomp_strings(*it, "arches", at);
    const auto caps = seccomp_strings(*it, "caps", at);
    if (!arches.empty() && seccomp_has(arches, native_arch) != include) return false;
    for (const auto& cap : caps)
      if (seccomp_has(target.capabilities, cap) != include) return false;
    const json min_kernel = it->value("minKernel", json());
    if (!min_kernel.is_null() && min_kernel != "") {  // moby writes "" for none
      const auto needed = seccomp_kernel_version(min_kernel, at + "minKernel");
      if (target.kernel && (*target.kernel >= needed) != include) return false;
    }
  }
  return true;
}

json seccomp_args(const json& rule, const std::string& where) {
  json out = json::array();
  const auto it = rule.find("args");
  if (it == rule.end() || it->is_null()) return out;
  if (!it->is_array()) wrong_type(where + "args", *it, "an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& arg = (*it)[i];
    const std::string at = fmt::format("{}args[{}].", where, i);
    if (!arg.is_object()) wrong_type(at.substr(0, at.size() - 1), arg, "an object");
    json a = json::object();
    for (const char* key : {"index", "value", "valueTwo"}) {
      const auto v = arg.find(key);
      if (v == arg.end() || v->is_null()) {
        if (key[0] == 'i') wrong_type(at + key, nullptr, "an argument index");
        continue;
      }
      if (!v->is_number_unsigned()) wrong_type(at + key, *v, "a whole number >= 0");
      a[key] = *v;
    }
    a["op"] = json_fields::string_field(arg, "op", "", at);
    if (a["op"].get<std::string>().empty()) wrong_type(at + "op", nullptr, "an operator such as SCMP_CMP_EQ");
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

json oci_seccomp_from_engine_profile(const json& profile, const SeccompTarget& target) {
  if (!profile.is_object()) wrong_type("seccomp profile", profile, "an object");
  json out = json::object();
  const std::string default_action = json_fields::string_field(profile, "defaultAction", "", "");
  if (default_action.empty()) wrong_type("defaultAction", profile.value("defaultAction", json()), "an action");
  out["defaultAction"] = default_action;
  if (auto e = seccomp_errno(profile, "defaultErrnoRet", "defaultErrno", "")) out["defaultErrnoRet"] = *e;

  std::string native_arch;
  json architectures = json::array();
  for (const auto& a : kSeccompArches) {
    if (target.machine != a.machine) continue;
    native_arch = a.native;
    const auto map = profile.find("archMap");
    if (map == profile.end() || map->is_null()) break;
    if (!map->is_array()) wrong_type("archMap", *map, "an array");
    for (const auto& entry : *map) {
      if (!entry.is_object()) wrong_type("archMap", entry, "an array of objects");
      if (json_fields::string_field(entry, "architecture", "", "archMap[].") != a.scmp) continue;
      architectures.push_back(a.scmp);
      for (const auto& sub : seccomp_strings(entry, "subArchitectures", "archMap[].")) architectures.push_back(sub);
    }
  }
  if (!profile.contains("archMap")) {
    for (const auto& a : seccomp_strings(profile, "architectures", "")) architectures.push_back(a);
  }
  if (!architectures.empty()) out["architectures"] = architectures;
  // Fields the OCI spec has under the same names (seccomp notify, filter flags).
  for (const char* key : {"flags", "listenerPath", "listenerMetadata"})
    if (profile.contains(key) && !profile[key].is_null()) out[key] = profile[key];

  const auto syscalls = profile.find("syscalls");
  if (syscalls == profile.end() || !syscalls->is_array())
    wrong_type("syscalls", syscalls == profile.end() ? json() : *syscalls, "an array of rules");
  out["syscalls"] = json::array();
  for (std::size_t i = 0; i < syscalls->size(); ++i) {
    const json& rule = (*syscalls)[i];
    const std::string where = fmt::format("syscalls[{}].", i);
    if (!rule.is_object()) wrong_type(where.substr(0, where.size() - 1), rule, "an object");
    if (!seccomp_applies(rule, target, native_arch, where)) continue;
    auto names = seccomp_strings(rule, "names", where);
    const std::string name = json_fields::string_field(rule, "name", "", where);  // the older, one-name form
    if (!name.empty()) names.push_back(name);
    if (names.empty()) wrong_type(where + "names", rule.value("names", json()), "a list of system calls");
    const std::string action = json_fields::string_field(rule, "action", "", where);
    if (action.empty()) wrong_type(where + "action", rule.value("action", json()), "an action");
    json r = {{"names", names}, {"action", action}};
    if (json args = seccomp_args(rule, where); !args.empty()) r["args"] = std::move(args);
    if (auto e = seccomp_errno(rule, "errnoRet", "errno", where)) r["errnoRet"] = *e;
    out["syscalls"].push_back(std::move(r));
  }
  return out;
}

json load_engine_seccomp_profile(const std::filesystem::path& file, const std::vector<std::string>& capabilities) {
  std::ifstream in(file);
  if (!in)
    throw DataError(fmt::format("{}: cannot read the seccomp profile; install podman (Debian: "
                                "golang-github-containers-common) or give seccomp=FILE",
                                file.string()));
  const json profile = json::parse(in, nullptr, false);
  if (profile.is_discarded())
    throw DataError(fmt::format("{}: not JSON; give seccomp=FILE with a profile in Docker's format", file.string()));
  utsname u{};
  uname(&u);
  SeccompTarget target{u.machine, capabilities, std::nullopt};
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) == 2) target.kernel = std::pair{major, minor};
  try {
    return oci_seccomp_from_engine_profile(profile, target);
  } catch (const DataError& e) {
    throw DataError(fmt::format("{}: {}", file.string(), e.what()));
  }
}

}  // namespace dlcbench
