// The names an expression may use: numeric fields of the field table, function names, and the
// list expression_identifiers() gives messages and docs.
#include "alerts/expression_vocabulary.hpp"

#include "core/field_table.hpp"

namespace gpuwatch::alerts {
namespace expression_syntax {

const std::map<std::string, core::FieldId, std::less<>>& numeric_fields() {
  static const auto fields = [] {
    std::map<std::string, core::FieldId, std::less<>> m;
    for (const auto& f : core::field_table()) {
      if (f.display == core::Display::Text) continue;
      m.emplace(std::string(f.name), f.id);
      for (auto alias : f.alias_list()) m.emplace(std::string(alias), f.id);
    }
    return m;
  }();
  return fields;
}

const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& w : kWindowFunctions) v.emplace_back(w.name);
    for (const char* n : {"abs", "xid_age", "xid_age_except", "finding"}) v.emplace_back(n);
    return v;
  }();
  return names;
}

}  // namespace expression_syntax

std::vector<std::string> expression_identifiers(Scope scope) {
  std::vector<std::string> names;
  for (const auto& d : expression_syntax::kDerived)
    if (scope == Scope::Gpu || !d.gpu_only) names.emplace_back(d.name);
  for (const auto& c : expression_syntax::kConstants) names.emplace_back(c.name);
  if (scope == Scope::Gpu)
    for (const auto& [name, id] : expression_syntax::numeric_fields()) names.push_back(name);
  return names;
}

}  // namespace gpuwatch::alerts
