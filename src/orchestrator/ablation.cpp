#include "orchestrator/ablation.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/blas_check.h"
#include "core/errors.h"

namespace dlcbench {
namespace {

std::string ablation_label(const std::string& name, const std::map<std::string, std::string>& options) {
  std::vector<std::string> items;
  for (const auto& [key, value] : options) items.push_back(key + "=" + value);
  return items.empty() ? name : fmt::format("{}:{}", name, fmt::join(items, ","));
}

std::string option_or(const std::map<std::string, std::string>& options, const std::string& key,
                      const std::string& otherwise) {
  const auto it = options.find(key);
  return it == options.end() ? otherwise : it->second;
}

bool is_engine(const std::string& name) { return name == "docker" || name == "podman"; }

// One feature changed in `env`: the options of the variant and the change in
// words, or why the feature does not apply (`why_not`).
struct FeatureChange {
  std::map<std::string, std::string> options;
  std::string change;
  std::string why_not;
};

// `env` with `key` set to `value`, or taken away (the runtime's default).
FeatureChange with_option(const EnvironmentRequest& env, const std::string& key, const std::string& value,
                          std::string words) {
  FeatureChange c{env.options, std::move(words), ""};
  c.options[key] = value;
  return c;
}
FeatureChange without_option(const EnvironmentRequest& env, const std::string& key, std::string words) {
  FeatureChange c{env.options, std::move(words), ""};
  c.options.erase(key);
  return c;
}
FeatureChange not_applicable(std::string why) { return {{}, "", std::move(why)}; }

// Sets `key` to `to`, or takes it away where it is `to` already.
FeatureChange toggle(const EnvironmentRequest& env, const std::string& key, const std::string& to,
                     const std::string& to_words, const std::string& back_words) {
  return option_or(env.options, key, "") == to ? without_option(env, key, back_words)
                                               : with_option(env, key, to, to_words);
}

// seccomp: the engine's default profile against unconfined, or a bundle's
// none against Podman's default.
FeatureChange seccomp_change(const EnvironmentRequest& env, bool gvisor, const std::string& fixed_by_dockerd) {
  const std::string& name = env.name;
  if (name == "docker" && gvisor)
    return not_applicable("gVisor applies a container's seccomp profile only with --oci-seccomp, and " +
                          fixed_by_dockerd);
  if (is_engine(name))
    return option_or(env.options, "seccomp", "") == ""
               ? with_option(env, "seccomp", "unconfined", "seccomp unconfined instead of the engine's default profile")
               : without_option(env, "seccomp", "the engine's default seccomp profile instead of seccomp=" +
                                                    env.options.at("seccomp"));
  if (option_or(env.options, "seccomp", "unconfined") == "unconfined")
    return with_option(env, "seccomp", "default",
                       gvisor ? "Podman's default seccomp profile applied inside the sandbox (--oci-seccomp), "
                                "which a bundle does not have"
                              : "Podman's default seccomp profile (Docker's with a few calls left to "
                                "capabilities), which a bundle does not have");
  return without_option(env, "seccomp", "no seccomp filter instead of seccomp=" + env.options.at("seccomp"));
}

// limits: every cgroup CPU and memory limit taken away at once.
FeatureChange limits_change(const EnvironmentRequest& env) {
  FeatureChange c{env.options, "", ""};
  std::vector<std::string> removed;
  for (const char* key : {"cpus", "cpuset", "memory"})
    if (c.options.count(key)) {
      removed.push_back(fmt::format("{}={}", key, c.options.at(key)));
      c.options.erase(key);
    }
  if (removed.empty())
    return not_applicable(fmt::format("{} sets no cgroup limit (cpus=, cpuset=, memory=) to take away", env.text));
  c.change = fmt::format("no cgroup CPU or memory limit ({} taken away)", fmt::join(removed, ", "));
  return c;
}

FeatureChange change_feature(const EnvironmentRequest& env, AblationFeature feature, const AblationContext& ctx) {
  const std::string& name = env.name;
  const bool gvisor = name == "runsc" || option_or(env.options, "runtime", "") == "runsc";
  // docker:runtime=runsc: dockerd starts runsc with the flags of its own
  // configuration, which no docker option changes.
  const std::string fixed_by_dockerd = "dockerd runs runsc with the runtimeArgs of its configuration, which no "
                                       "docker option changes; explain runsc itself for gVisor's options";
  switch (feature) {
    case AblationFeature::seccomp:
      return seccomp_change(env, gvisor, fixed_by_dockerd);
    case AblationFeature::network:
      if (option_or(env.options, "network", "none") == "host")
        return without_option(env, "network", "a network namespace of its own instead of the host's");
      if (name == "docker" && gvisor)
        return not_applicable("dockerd runs runsc with --network=none whatever docker's --network says (see "
                              "`dlcbench doctor`); explain runsc itself for gVisor's network");
      return with_option(env, "network", "host",
                         gvisor ? "the host's network stack (--network=host) instead of gVisor's own loopback-only one"
                                : "the host's network namespace instead of one of its own");
    case AblationFeature::ipc:
      if (gvisor) return not_applicable("gVisor's kernel keeps its own IPC namespace whatever the bundle asks");
      return toggle(env, "ipc", "host", "the host's IPC namespace and /dev/shm instead of its own",
                    "an IPC namespace of its own instead of the host's");
    case AblationFeature::pid:
      if (gvisor) return not_applicable("gVisor's kernel keeps its own PID namespace whatever the bundle asks");
      return toggle(env, "pid", "host", "the host's PID namespace instead of its own",
                    "a PID namespace of its own instead of the host's");
    case AblationFeature::limits:
      return limits_change(env);
    case AblationFeature::scratch:
      if (!ctx.writes_rootfs)
        return not_applicable("no workload of this run writes to the container's own file system: no io-seq or "
                              "io-lat with --path rootfs");
      if (option_or(env.options, "scratch", "rootfs") != "rootfs")
        return without_option(env, "scratch", "scratch writes to the container's own file system");
      if (is_engine(name))
        return with_option(env, "scratch", "volume",
                           "scratch writes to an anonymous volume instead of the container's overlay");
      return with_option(env, "scratch", "tmpfs", "scratch writes to a tmpfs instead of the container's root file system");
    case AblationFeature::platform:
      if (name != "runsc") return not_applicable(gvisor ? fixed_by_dockerd : "only gVisor (runsc) has a platform");
      if (option_or(env.options, "platform", "ptrace") == "ptrace" && !ctx.kvm_usable)
        return not_applicable("gVisor's KVM platform needs /dev/kvm and hangs where this machine is itself a guest "
                              "without nested virtualisation");
      return toggle(env, "platform", "kvm", "gVisor's KVM platform instead of ptrace",
                    "gVisor's ptrace platform instead of KVM");
    case AblationFeature::file_access:
      if (name != "runsc")
        return not_applicable(gvisor ? fixed_by_dockerd : "only gVisor (runsc) has a file-access mode");
      return toggle(env, "file-access", "shared",
                    "gVisor's shared file access to the root file system, revalidated, instead of exclusive",
                    "gVisor's exclusive file access to the root file system instead of shared");
    case AblationFeature::overlay:
      if (name != "runsc")
        return not_applicable(gvisor ? fixed_by_dockerd : "only gVisor (runsc) has an overlay of its own");
      if (option_or(env.options, "overlay", "none") != "none")
        return without_option(env, "overlay", "no gVisor overlay: the root file system through its gofer");
      return with_option(env, "overlay", "root", "gVisor's overlay over the root file system in the sandbox's memory");
  }
  return not_applicable("unknown feature");
}

// `env`'s options with every change in `changes` applied. Each feature owns
// its own keys (seccomp; network; ipc; pid; cpus, cpuset and memory;
// scratch; platform; file-access; overlay), so the changes compose.
std::map<std::string, std::string> combined_options(const EnvironmentRequest& env,
                                                    const std::vector<const FeatureChange*>& changes) {
  std::map<std::string, std::string> options = env.options;
  for (const FeatureChange* c : changes) {
    for (const auto& [key, value] : env.options)
      if (!c->options.count(key)) options.erase(key);
    for (const auto& [key, value] : c->options) {
      const auto before = env.options.find(key);
      if (before == env.options.end() || before->second != value) options[key] = value;
    }
  }
  return options;
}

// Every combination of two or more of the plan's variants, smallest first:
// with the single variants and `env` itself, the 2^k cells of a full
// factorial design.
void add_factorial_combinations(const EnvironmentRequest& env, const std::vector<FeatureChange>& changes,
                                AblationPlan& plan) {
  plan.factorial = true;
  const std::size_t k = plan.variants.size();
  std::vector<unsigned> masks;
  for (unsigned mask = 1; mask < (1u << k); ++mask)
    if (std::popcount(mask) >= 2) masks.push_back(mask);
  std::stable_sort(masks.begin(), masks.end(),
                   [](unsigned a, unsigned b) { return std::popcount(a) < std::popcount(b); });
  for (unsigned mask : masks) {
    AblationCombination combination;
    std::vector<const FeatureChange*> applied;
    for (std::size_t i = 0; i < k; ++i)
      if (mask & (1u << i)) {
        combination.features.push_back(plan.variants[i].feature);
        applied.push_back(&changes[i]);
      }
    combination.label = ablation_label(env.name, combined_options(env, applied));
    parse_environment_request(combination.label);
    plan.combinations.push_back(std::move(combination));
  }
}

std::string valid_features() {
  std::vector<std::string> names;
  for (AblationFeature f : all_ablation_features()) names.emplace_back(ablation_feature_name(f));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

AblationPlan plan_ablation(const EnvironmentRequest& env, const std::vector<std::string>& features,
                           const AblationContext& context) {
  if (env.name == "host")
    throw UsageError("dlcbench explain host: the host has no isolation to take away; name a container "
                     "environment, e.g. `dlcbench explain docker` or `dlcbench explain runsc`");
  if (env.name == "charliecloud")
    throw UsageError("dlcbench explain charliecloud: ch-run has no isolation option to take away (a user and a "
                     "mount namespace only: no seccomp filter, cgroup limit, PID or network namespace); measure it "
                     "against the host with `dlcbench run --envs host,charliecloud`");
  std::vector<AblationFeature> asked;
  for (const auto& name : features) {
    const auto feature = ablation_feature_from_name(name);
    if (!feature)
      throw UsageError(fmt::format("--features: unknown feature '{}': valid features are {}", name,
                                   valid_features()));
    if (std::find(asked.begin(), asked.end(), *feature) == asked.end()) asked.push_back(*feature);
  }
  AblationPlan plan;
  plan.of = env.text;
  std::vector<FeatureChange> changes;  // parallel to plan.variants
  for (AblationFeature feature : features.empty() ? all_ablation_features() : asked) {
    FeatureChange c = change_feature(env, feature, context);
    if (!c.why_not.empty()) {
      if (!features.empty())
        throw UsageError(fmt::format("--features {}: {} has no such variant: {}", ablation_feature_name(feature),
                                     env.text, c.why_not));
      plan.left_out.push_back(fmt::format("{}: {}", ablation_feature_name(feature), c.why_not));
      continue;
    }
    AblationVariant v{feature, ablation_label(env.name, c.options), c.change};
    // Checks the variant's options as --envs would (a variant is a plain environment).
    parse_environment_request(v.label);
    if (v.label == env.text) continue;
    plan.variants.push_back(std::move(v));
    changes.push_back(std::move(c));
  }
  if (plan.variants.empty())
    throw UsageError(fmt::format("dlcbench explain {}: no feature applies ({}); name others with --features, "
                                 "valid features are {}",
                                 env.text, fmt::join(plan.left_out, "; "), valid_features()));
  if (plan.variants.size() <= kMaxFactorialFeatures) add_factorial_combinations(env, changes, plan);
  return plan;
}

bool kvm_platform_usable() { return std::filesystem::exists("/dev/kvm") && !read_cpu_isa().hypervisor; }

}  // namespace dlcbench
