#include "diagnose/kinds.hpp"

#include <vector>

namespace gpuwatch::diagnose {
namespace {

const std::vector<KindInfo>& table() {
  static const std::vector<KindInfo> kTable = {
#define GW_KIND(enumerator, id, category, urgency, store_share, title, phrase, summary, timeline, ...) \
  KindInfo{Kind::enumerator, id, Category::category, Urgency::urgency, StoreShare::store_share, title, phrase, \
           summary, timeline, {__VA_ARGS__}},
#include "diagnose/kinds.def"
#undef GW_KIND
  };
  return kTable;
}

}  // namespace

std::span<const KindInfo> kind_table() { return table(); }
const KindInfo& kind_info(Kind kind) { return table()[static_cast<std::size_t>(kind)]; }
std::string_view kind_id(Kind kind) { return kind_info(kind).id; }
std::string_view kind_phrase(Kind kind) { return kind_info(kind).phrase; }

std::optional<Kind> kind_of_id(std::string_view id) {
  for (const auto& info : table())
    if (info.id == id) return info.kind;
  return std::nullopt;
}

std::vector<std::string> default_advice(Kind kind) {
  std::vector<std::string> out;
  for (auto a : kind_info(kind).advice) out.emplace_back(a);
  return out;
}

}  // namespace gpuwatch::diagnose
