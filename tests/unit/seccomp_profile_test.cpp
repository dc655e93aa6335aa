// An engine's seccomp profile (Docker's format) turned into the OCI
// `linux.seccomp` object: only the rules for the target's architecture,
// capabilities and kernel survive, with nothing the OCI spec lacks.
#include "runtimes/seccomp_profile.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <set>

#include "core/errors.h"

namespace dlcbench {
namespace {

using nlohmann::json;

const json kSeccompProfile = json::parse(R"({
  "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1, "defaultErrno": "EPERM",
  "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]},
              {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]}],
  "syscalls": [
    {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW", "comment": "", "includes": {}, "excludes": {}},
    {"names": ["arch_prctl"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64", "x32"]}},
    {"names": ["cacheflush"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["arm", "arm64"]}},
    {"names": ["modify_ldt"], "action": "SCMP_ACT_ERRNO", "errno": "ENOSYS", "excludes": {"arches": ["arm64"]}},
    {"names": ["chroot"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_CHROOT"]}},
    {"names": ["chroot"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "errno": "EPERM",
     "excludes": {"caps": ["CAP_SYS_CHROOT"]}},
    {"names": ["ptrace"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "4.8"}},
    {"names": ["personality"], "action": "SCMP_ACT_ALLOW", "comment": "PER_LINUX32",
     "args": [{"index": 0, "value": 8, "valueTwo": 0, "op": "SCMP_CMP_EQ"}]}
  ]})");

// The rules (as converted) that name `call`.
std::vector<json> seccomp_rules_for(const json& oci, const std::string& call) {
  std::vector<json> out;
  for (const auto& rule : oci.at("syscalls"))
    for (const auto& name : rule.at("names"))
      if (name == call) out.push_back(rule);
  return out;
}

bool seccomp_allows(const json& oci, const std::string& call) {
  for (const auto& rule : seccomp_rules_for(oci, call))
    if (rule.at("action") == "SCMP_ACT_ALLOW") return true;
  return false;
}

TEST(SeccompProfile, KeepsOnlyTheTargetArchitectureAndTheRulesForIt) {
  const json x86 = oci_seccomp_from_engine_profile(kSeccompProfile, {"x86_64", {}, std::pair{6, 1}});
  EXPECT_EQ(x86["architectures"], json({"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"}));
  EXPECT_TRUE(seccomp_allows(x86, "arch_prctl"));
  EXPECT_TRUE(seccomp_rules_for(x86, "cacheflush").empty());
  ASSERT_EQ(seccomp_rules_for(x86, "modify_ldt").size(), 1u);
  EXPECT_EQ(seccomp_rules_for(x86, "modify_ldt")[0]["errnoRet"], ENOSYS);  // from the name alone

  const json arm = oci_seccomp_from_engine_profile(kSeccompProfile, {"aarch64", {}, std::pair{6, 1}});
  EXPECT_EQ(arm["architectures"], json({"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"}));
  EXPECT_TRUE(seccomp_allows(arm, "cacheflush"));
  EXPECT_TRUE(seccomp_rules_for(arm, "arch_prctl").empty());
  EXPECT_TRUE(seccomp_rules_for(arm, "modify_ldt").empty());  // excludes.arches
}

TEST(SeccompProfile, CapabilityChoosesBetweenTheAllowAndTheDenyRule) {
  const auto without =
      seccomp_rules_for(oci_seccomp_from_engine_profile(kSeccompProfile, {"x86_64", {"CAP_KILL"}, {}}), "chroot");
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(without[0]["action"], "SCMP_ACT_ERRNO");
  EXPECT_EQ(without[0]["errnoRet"], 1);
  const auto with = seccomp_rules_for(
      oci_seccomp_from_engine_profile(kSeccompProfile, {"x86_64", {"CAP_KILL", "CAP_SYS_CHROOT"}, {}}), "chroot");
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0]["action"], "SCMP_ACT_ALLOW");
}

TEST(SeccompProfile, MinKernelDropsTheRuleOnOlderKernelsOnly) {
  const auto ptrace_on = [](std::optional<std::pair<int, int>> kernel) {
    return seccomp_allows(oci_seccomp_from_engine_profile(kSeccompProfile, {"x86_64", {}, kernel}), "ptrace");
  };
  EXPECT_FALSE(ptrace_on(std::pair{4, 4}));
  EXPECT_TRUE(ptrace_on(std::pair{4, 8}));
  EXPECT_TRUE(ptrace_on(std::pair{5, 0}));
  EXPECT_TRUE(ptrace_on(std::nullopt));  // unknown kernel: the condition is not applied
}

TEST(SeccompProfile, CopiesDefaultsAndArgumentsAndDropsFieldsTheOciSpecLacks) {
  const json oci = oci_seccomp_from_engine_profile(kSeccompProfile, {"x86_64", {}, {}});
  EXPECT_EQ(oci["defaultAction"], "SCMP_ACT_ERRNO");
  EXPECT_EQ(oci["defaultErrnoRet"], 1);
  EXPECT_FALSE(oci.contains("defaultErrno"));
  EXPECT_FALSE(oci.contains("archMap"));
  ASSERT_EQ(seccomp_rules_for(oci, "personality").size(), 1u);
  EXPECT_EQ(seccomp_rules_for(oci, "personality")[0]["args"],
            json::parse(R"([{"index": 0, "value": 8, "valueTwo": 0, "op": "SCMP_CMP_EQ"}])"));
  for (const auto& rule : oci["syscalls"])
    for (const auto& [key, value] : rule.items())
      EXPECT_TRUE(key == "names" || key == "action" || key == "args" || key == "errnoRet") << key;

  // Only a name: the number for it.
  const json named = oci_seccomp_from_engine_profile(
      {{"defaultAction", "SCMP_ACT_ERRNO"}, {"defaultErrno", "ENOSYS"}, {"syscalls", json::array()}}, {});
  EXPECT_EQ(named["defaultErrnoRet"], ENOSYS);
}

void expect_seccomp_error(const json& profile, const std::string& names) {
  try {
    oci_seccomp_from_engine_profile(profile, {"x86_64", {}, {}});
    ADD_FAILURE() << "no DataError for " << profile.dump();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(SeccompProfile, AProfileNotInDockersFormatIsADataErrorNamingTheField) {
  expect_seccomp_error(json::array(), "seccomp profile");
  expect_seccomp_error({{"defaultAction", "SCMP_ACT_ERRNO"}}, "syscalls");
  expect_seccomp_error({{"defaultAction", "SCMP_ACT_ERRNO"}, {"syscalls", json::object()}}, "syscalls");
  expect_seccomp_error({{"syscalls", json::array()}}, "defaultAction");
  expect_seccomp_error(json::parse(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": 3}]})"),
                       "syscalls[0].names");
  expect_seccomp_error(json::parse(R"({"defaultAction": "SCMP_ACT_ERRNO",
      "syscalls": [{"names": ["ptrace"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "new"}}]})"),
                       "syscalls[0].includes.minKernel");
  expect_seccomp_error(json::parse(R"({"defaultAction": "SCMP_ACT_ERRNO",
      "syscalls": [{"names": ["x"], "action": "SCMP_ACT_ALLOW", "args": [{"index": -1, "op": "SCMP_CMP_EQ"}]}]})"),
                       "syscalls[0].args[0].index");
}

TEST(SeccompProfile, AMissingProfileFileNamesTheFileAndTheFix) {
  try {
    load_engine_seccomp_profile("/nonexistent/seccomp.json", {});
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/seccomp.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("golang-github-containers-common"), std::string::npos) << e.what();
  }
}

// The installed profile: converting it gives a filter a worker can run under,
// and no rule that needs CAP_SYS_ADMIN (which the container lacks) survives.
TEST(SeccompProfile, TheEngineDefaultProfileConvertsForAnUnprivilegedContainer) {
  if (!std::filesystem::exists(kEngineDefaultSeccompProfile))
    GTEST_SKIP() << kEngineDefaultSeccompProfile << " is absent (Debian: golang-github-containers-common)";
  const std::vector<std::string> caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  const json raw = json::parse(std::ifstream(kEngineDefaultSeccompProfile));
  // What the profile itself says: calls allowed only with CAP_SYS_ADMIN, and
  // whether ptrace is allowed without a minKernel condition (Podman's is; Docker's needs 4.8).
  std::set<std::string> admin_only, unconditional;  // unconditional: allowed by a rule without caps
  bool ptrace_without_min_kernel = false;
  for (const auto& rule : raw["syscalls"]) {
    const json inc = rule.value("includes", json::object());
    const bool admin = inc.value("caps", json::array()).dump().find("CAP_SYS_ADMIN") != std::string::npos;
    for (const auto& name : rule["names"]) {
      if (admin) admin_only.insert(name.get<std::string>());
      if (rule["action"] == "SCMP_ACT_ALLOW" && inc.value("caps", json::array()).empty())
        unconditional.insert(name.get<std::string>());
      if (name == "ptrace" && inc.value("minKernel", "").empty()) ptrace_without_min_kernel = true;
    }
  }
  for (const auto& name : unconditional) admin_only.erase(name);
  EXPECT_FALSE(admin_only.empty());

  for (const char* machine : {"x86_64", "aarch64"}) {
    for (const auto& kernel : {std::pair{4, 4}, std::pair{6, 1}}) {
      SCOPED_TRACE(fmt::format("{} {}.{}", machine, kernel.first, kernel.second));
      const json oci = oci_seccomp_from_engine_profile(raw, {machine, caps, kernel});
      EXPECT_EQ(oci["defaultAction"], "SCMP_ACT_ERRNO");
      EXPECT_FALSE(oci["architectures"].empty());
      for (const char* call : {"read", "write", "futex"}) EXPECT_TRUE(seccomp_allows(oci, call)) << call;
      EXPECT_EQ(seccomp_allows(oci, "ptrace"), ptrace_without_min_kernel || kernel >= std::pair(4, 8));
      for (const auto& name : admin_only) EXPECT_FALSE(seccomp_allows(oci, name)) << name;
      // "mount" needs CAP_SYS_ADMIN in Docker's profile; Podman's allows the call and leaves it to capabilities.
      EXPECT_EQ(seccomp_allows(oci, "mount"), unconditional.count("mount") == 1);
    }
  }
  const json here = load_engine_seccomp_profile(kEngineDefaultSeccompProfile, caps);
  EXPECT_TRUE(seccomp_allows(here, "read"));
}

}  // namespace
}  // namespace dlcbench
