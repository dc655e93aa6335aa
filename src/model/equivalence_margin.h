// The equivalence margin a run's plan records when it names none (--margin):
// "no overhead above 2%" is what users of this tool ask. The plan and its
// reader both default to it, and the verdicts judge against it.
#pragma once

namespace dlcbench {

inline constexpr double kDefaultEquivalenceMargin = 0.02;

}  // namespace dlcbench
