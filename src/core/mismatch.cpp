#include "core/mismatch.h"

#include "core/errors.h"
#include "core/json_fields.h"

namespace dlcbench {

void to_json(nlohmann::json& j, const Mismatch& m) {
  j = {{"field", m.field},       {"baseline_value", m.baseline_value}, {"other_value", m.other_value},
       {"requested", m.requested}, {"blocking", m.blocking},             {"fix", m.fix}};
  if (m.possible_cause) j["possible_cause"] = true;
}

void from_json(const nlohmann::json& j, Mismatch& m) {
  using json_fields::string_field;
  const std::string where = "a mismatch's ";
  if (!j.is_object()) json_fields::wrong_type("a mismatch", j, "an object");
  m.field = string_field(j, "field", "?", where);
  // Version 1 wrote "baseline" and "value".
  m.baseline_value = string_field(j, "baseline_value", string_field(j, "baseline", "?", where), where);
  m.other_value = string_field(j, "other_value", string_field(j, "value", "?", where), where);
  m.requested = json_fields::bool_field(j, "requested", false, where);
  m.blocking = json_fields::bool_field(j, "blocking", true, where);
  m.fix = string_field(j, "fix", "", where);
  m.possible_cause = json_fields::bool_field(j, "possible_cause", false, where);
}

}  // namespace dlcbench
