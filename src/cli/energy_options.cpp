#include "cli/energy_options.hpp"

#include <cstdlib>

namespace gpuwatch::cli {

void add_energy_options(CLI::App& app, EnergyArgs& args, const std::string& whose) {
  app.add_option("--price-per-kwh", args.price_per_kwh,
                 "Price of a kWh for " + whose + " cost: a number (0.12) or a CSV table HOUR,PRICE by hour of day (docs/energy.md)");
  app.add_option("--currency", args.currency, "The price's currency [default: USD]");
  app.add_option("--pue", args.pue, "The facility's PUE (>= 1): a number (1.2) or a CSV table HOUR,PUE [default: 1, GPU energy only]");
  app.add_option("--carbon-intensity", args.carbon_intensity,
                 "Grid intensity in gCO2/kWh for " + whose + " CO2: a number (350) or a CSV table HOUR,GRAMS by hour of day");
  app.add_option("--energy-config", args.config,
                 "YAML file of price_per_kwh, currency, pue, carbon_intensity (each fixed or by hour); flags override it "
                 "[default: $XDG_CONFIG_HOME/gpuwatch/energy.yaml, else ~/.config/gpuwatch/energy.yaml, when it exists]");
}

core::Result<jobs::EnergyRates> energy_rates(const EnergyArgs& args) {
  return jobs::energy_rates_from_options(args.config, args.price_per_kwh, args.pue, args.carbon_intensity, args.currency,
                                         jobs::default_energy_config_path(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")));
}

}  // namespace gpuwatch::cli
