#include "jobs/energy_rates.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>

#include "core/bounded_read.hpp"

namespace gpuwatch::jobs {
namespace {

std::string_view trimmed_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<double> whole_number(std::string_view s) {
  s = trimmed_view(s);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const char* rate_words(RateKind kind) {
  switch (kind) {
    case RateKind::Price: return "a price per kWh (>= 0)";
    case RateKind::Pue: return "a PUE (>= 1)";
    case RateKind::Carbon: return "a grid intensity in gCO2/kWh (>= 0)";
  }
  return "";
}

bool rate_ok(RateKind kind, double v) { return kind == RateKind::Pue ? v >= 1.0 : v >= 0.0; }

core::Result<void> check_rate(const Rate& rate, RateKind kind, const std::string& where) {
  auto bad = [&](double v) { return core::make_error(fmt::format("{}: {} is not {}", where, v, rate_words(kind))); };
  if (rate.fixed && !rate_ok(kind, *rate.fixed)) return bad(*rate.fixed);
  for (const auto& [hour, v] : rate.by_hour)
    if (!rate_ok(kind, v)) return bad(v);
  if (!rate.fixed && rate.by_hour.empty()) return core::make_error(where + ": an empty table");
  return {};
}

core::Result<Rate> yaml_rate(const YAML::Node& node, const std::string& key, const std::string& origin, RateKind kind) {
  Rate rate;
  rate.origin = origin;
  const std::string where = fmt::format("{}: {}", origin, key);
  auto number = [&](const YAML::Node& n) -> std::optional<double> {
    return n.IsScalar() ? whole_number(n.Scalar()) : std::nullopt;
  };
  if (node.IsScalar()) {
    rate.fixed = number(node);
    if (!rate.fixed) return core::make_error(fmt::format("{}: '{}' is not a number", where, node.Scalar()));
  } else if (node.IsSequence()) {
    if (node.size() != 24) return core::make_error(fmt::format("{}: a list by hour needs 24 values, not {}", where, node.size()));
    for (std::size_t h = 0; h < 24; ++h) {
      auto v = number(node[h]);
      if (!v) return core::make_error(fmt::format("{}: hour {} is not a number", where, h));
      rate.by_hour[static_cast<int>(h)] = *v;
    }
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      auto hour = number(entry.first);
      auto v = number(entry.second);
      if (!hour || *hour < 0 || *hour > 23 || std::floor(*hour) != *hour)
        return core::make_error(fmt::format("{}: '{}' is not an hour 0..23", where, entry.first.Scalar()));
      if (!v) return core::make_error(fmt::format("{}: hour {} is not a number", where, *hour));
      rate.by_hour[static_cast<int>(*hour)] = *v;
    }
  } else {
    return core::make_error(where + ": give a number, a map {HOUR: VALUE} or a list of 24 values");
  }
  if (auto ok = check_rate(rate, kind, where); !ok) return ok.error();
  return rate;
}

}  // namespace

double Rate::at_hour(int hour) const {
  if (fixed || by_hour.empty()) return fixed.value_or(0);
  auto it = by_hour.upper_bound(hour);
  if (it == by_hour.begin()) return by_hour.rbegin()->second;  // before the first entry: wraps from yesterday's last
  return std::prev(it)->second;
}

core::Result<std::map<int, double>> parse_hour_table_csv(std::string_view text) {
  std::map<int, double> out;
  int line_no = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = trimmed_view(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    std::size_t comma = line.find(',');
    if (comma == std::string_view::npos) return core::make_error(fmt::format("line {}: expected HOUR,VALUE", line_no));
    auto hour = whole_number(line.substr(0, comma));
    auto value = whole_number(line.substr(comma + 1));
    if (!hour && !value && out.empty()) continue;  // a header line
    if (!hour || *hour < 0 || *hour > 23 || std::floor(*hour) != *hour)
      return core::make_error(fmt::format("line {}: the hour is not 0..23", line_no));
    if (!value) return core::make_error(fmt::format("line {}: the value is not a number", line_no));
    out[static_cast<int>(*hour)] = *value;
  }
  if (out.empty()) return core::make_error("no HOUR,VALUE line");
  return out;
}

core::Result<Rate> read_rate_option(const std::string& value, const std::string& flag, RateKind kind) {
  Rate rate;
  if (auto v = whole_number(value)) {
    rate.fixed = v;
    rate.origin = flag;
  } else {
    auto text = core::read_regular_file(value, flag + " table", core::kMaxConfigFileBytes);
    if (!text) return core::make_error(fmt::format("{}: '{}' is neither a number nor a readable table: {}", flag, value,
                                                   text.error().message));
    auto table = parse_hour_table_csv(*text);
    if (!table) return core::make_error(fmt::format("{} {}: {}", flag, value, table.error().message));
    rate.by_hour = std::move(*table);
    rate.origin = "table " + std::filesystem::path(value).filename().string();
  }
  if (auto ok = check_rate(rate, kind, flag); !ok) return ok.error();
  return rate;
}

core::Result<EnergyRates> parse_energy_config(std::string_view yaml, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return core::make_error(fmt::format("{}: {}", origin, e.what()));
  }
  EnergyRates out;
  if (root.IsNull()) return out;
  if (!root.IsMap()) return core::make_error(origin + ": expected a map of price_per_kwh, pue, carbon_intensity, currency");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    auto rate = [&](RateKind kind, std::optional<Rate>& into) -> core::Result<void> {
      auto r = yaml_rate(entry.second, key, origin, kind);
      if (!r) return r.error();
      into = std::move(*r);
      return {};
    };
    core::Result<void> done{};
    if (key == "price_per_kwh") done = rate(RateKind::Price, out.price);
    else if (key == "pue") done = rate(RateKind::Pue, out.pue);
    else if (key == "carbon_intensity") done = rate(RateKind::Carbon, out.carbon);
    else if (key == "currency" && entry.second.IsScalar() && !entry.second.Scalar().empty()) {
      out.currency = entry.second.Scalar();
      out.currency_origin = origin;
    } else
      return core::make_error(fmt::format("{}: unknown key '{}' (price_per_kwh, pue, carbon_intensity, currency)", origin, key));
    if (!done) return done.error();
  }
  return out;
}

core::Result<EnergyRates> read_energy_config(const std::string& path, const std::string& origin) {
  auto text = core::read_regular_file(path, "--energy-config", core::kMaxConfigFileBytes);
  if (!text) return text.error();
  return parse_energy_config(*text, !origin.empty() ? origin
                                                   : "--energy-config " + std::filesystem::path(path).filename().string());
}

std::string default_energy_config_path(const char* xdg_config_home, const char* home) {
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') return std::string(xdg_config_home) + "/gpuwatch/energy.yaml";
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.config/gpuwatch/energy.yaml";
  return "";
}

core::Result<EnergyRates> energy_rates_from_options(const std::string& config_path, const std::string& price,
                                                    const std::string& pue, const std::string& carbon,
                                                    const std::string& currency, const std::string& default_path) {
  EnergyRates rates;
  std::error_code ignored;
  if (!config_path.empty()) {
    auto config = read_energy_config(config_path);
    if (!config) return config.error();
    rates = std::move(*config);
  } else if (!default_path.empty() && std::filesystem::exists(default_path, ignored)) {
    auto config = read_energy_config(default_path, default_path);
    if (!config) return config.error();
    rates = std::move(*config);
  }
  auto flag = [](const std::string& value, const char* name, RateKind kind, std::optional<Rate>& into) -> core::Result<void> {
    if (value.empty()) return {};
    auto r = read_rate_option(value, name, kind);
    if (!r) return r.error();
    into = std::move(*r);
    return {};
  };
  if (auto ok = flag(price, "--price-per-kwh", RateKind::Price, rates.price); !ok) return ok.error();
  if (auto ok = flag(pue, "--pue", RateKind::Pue, rates.pue); !ok) return ok.error();
  if (auto ok = flag(carbon, "--carbon-intensity", RateKind::Carbon, rates.carbon); !ok) return ok.error();
  if (!currency.empty()) {
    rates.currency = currency;
    rates.currency_origin = "--currency";
  }
  return rates;
}

}  // namespace gpuwatch::jobs
