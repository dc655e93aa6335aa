// `dlcbench explain ENV`: the environment as it is, and variants of it with
// one isolation feature changed at a time (seccomp, the network, IPC and PID
// namespaces, the cgroup limits, where scratch writes go, and gVisor's
// platform and file-system options). Each variant is an environment of the
// plan like any other, launched interleaved with the rest and
// fingerprinted; the analysis (analysis/ablation.h) turns the difference
// each makes into that feature's share of the overhead.
#pragma once

#include <string>
#include <vector>

#include "core/ablation_plan.h"
#include "runtimes/environment.h"

namespace dlcbench {

// What the plan needs to know of the machine and the workloads.
struct AblationContext {
  // A workload writes to the container's own file system: io-seq or io-lat
  // with --path rootfs. Only then does moving scratch writes change it.
  bool writes_rootfs = false;
  // gVisor's KVM platform can start here: /dev/kvm, and not itself a guest
  // without nested virtualisation (where it hangs).
  bool kvm_usable = false;
};

// The variants of `env`. `features` empty: every feature that applies, the
// rest in left_out. A feature named in `features` that does not apply is a
// UsageError naming the variant and why; an unknown name lists the valid
// ones; the host has nothing to take away.
AblationPlan plan_ablation(const EnvironmentRequest& env, const std::vector<std::string>& features,
                           const AblationContext& context);

// /dev/kvm exists and /proc/cpuinfo has no "hypervisor" flag.
bool kvm_platform_usable();

}  // namespace dlcbench
