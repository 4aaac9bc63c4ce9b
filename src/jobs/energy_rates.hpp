#pragma once
// What a kWh costs, how much the facility adds (PUE) and how much CO2 the grid emits per kWh
// (gCO2/kWh), each fixed or an offline table by hour of the day, and where each came from (the
// flag or the file), as CodeCarbon computes emissions: energy x PUE x grid intensity.
// Tables: `HOUR,VALUE` CSV lines (a header line and # comments allowed) or, in the YAML energy
// config, a map {HOUR: VALUE} or a list of 24 values. A table is a step function: the value of the
// latest hour at or before the one asked, wrapping round midnight.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuwatch::jobs {

struct Rate {
  std::optional<double> fixed;
  std::map<int, double> by_hour;  // from hour (0..23) -> value; used when fixed is absent
  std::string origin;             // "--price-per-kwh", "table prices.csv", "--energy-config e.yaml"
  double at_hour(int hour) const;
};

struct EnergyRates {
  std::optional<Rate> price;   // per kWh, in currency
  std::optional<Rate> pue;     // >= 1
  std::optional<Rate> carbon;  // gCO2 per kWh
  std::string currency = "USD";
  std::string currency_origin;  // "" when the default
};

enum class RateKind { Price, Pue, Carbon };

// A `HOUR,VALUE` CSV table.
core::Result<std::map<int, double>> parse_hour_table_csv(std::string_view text);
// A flag's value: a number (fixed) or the path of a CSV table by hour.
core::Result<Rate> read_rate_option(const std::string& value, const std::string& flag, RateKind kind);
// The YAML energy config: {currency, price_per_kwh, pue, carbon_intensity}, each value a number,
// a map {HOUR: VALUE} or a list of 24 values. Unknown keys are errors.
core::Result<EnergyRates> parse_energy_config(std::string_view yaml, const std::string& origin);
// ORIGIN names the file in the sources ("--energy-config e.yaml" by default).
core::Result<EnergyRates> read_energy_config(const std::string& path, const std::string& origin = "");
// The energy config read when --energy-config is not given: $XDG_CONFIG_HOME/gpuwatch/energy.yaml,
// else ~/.config/gpuwatch/energy.yaml (as top's top.yaml); "" without either variable.
std::string default_energy_config_path(const char* xdg_config_home, const char* home);
// The flags given (non-empty) over the config file's values. CONFIG_PATH: --energy-config (an
// error when unreadable); else DEFAULT_PATH when that file exists.
core::Result<EnergyRates> energy_rates_from_options(const std::string& config_path, const std::string& price,
                                                    const std::string& pue, const std::string& carbon,
                                                    const std::string& currency, const std::string& default_path = "");

}  // namespace gpuwatch::jobs
