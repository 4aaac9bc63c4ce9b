#pragma once
// The cost and carbon flags (issue 29, docs/energy.md) of the commands that put a price on energy:
// `run` (a job's summary) and `report --slurm-job/--pod` (a Slurm job's or a pod's energy).
#include <CLI/CLI.hpp>
#include <string>

#include "core/result.hpp"
#include "jobs/energy_rates.hpp"

namespace gpuwatch::cli {

struct EnergyArgs {
  // A number, or a CSV table by hour; the YAML file holds all three.
  std::string config, price_per_kwh, pue, carbon_intensity, currency;
};

// --price-per-kwh, --currency, --pue, --carbon-intensity, --energy-config; WHOSE: "the job's".
void add_energy_options(CLI::App& app, EnergyArgs& args, const std::string& whose);

// The flags over the energy config (--energy-config, else the default file when it exists).
core::Result<jobs::EnergyRates> energy_rates(const EnergyArgs& args);

}  // namespace gpuwatch::cli
