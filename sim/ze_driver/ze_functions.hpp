#pragma once
// The Level Zero functions the simulated driver implements. They are hidden (the loader reaches
// them through the tables that ze_tables.cpp hands out), so they never interpose on the loader's
// own exported zeInit, zeDeviceGet and so on.
#include "sim/ze_driver/ze_state.hpp"

namespace gpuwatch::sim::ze {

// Core (ze_core_api.cpp)
ze_result_t init(ze_init_flags_t flags);
ze_result_t driver_get(uint32_t* count, ze_driver_handle_t* drivers);
ze_result_t driver_get_api_version(ze_driver_handle_t driver, ze_api_version_t* version);
ze_result_t driver_get_properties(ze_driver_handle_t driver, ze_driver_properties_t* properties);
ze_result_t device_get(ze_driver_handle_t driver, uint32_t* count, ze_device_handle_t* devices);
ze_result_t device_get_sub_devices(ze_device_handle_t device, uint32_t* count, ze_device_handle_t* subs);
ze_result_t device_get_properties(ze_device_handle_t device, ze_device_properties_t* properties);

// Sysman: the device (zes_device_api.cpp)
ze_result_t zes_device_get_properties(zes_device_handle_t device, zes_device_properties_t* properties);
ze_result_t zes_device_pci_get_properties(zes_device_handle_t device, zes_pci_properties_t* properties);
ze_result_t zes_device_processes_get_state(zes_device_handle_t device, uint32_t* count, zes_process_state_t* out);

// Sysman: the domains (zes_domains_api.cpp)
ze_result_t enum_memory_modules(zes_device_handle_t device, uint32_t* count, zes_mem_handle_t* out);
ze_result_t memory_get_properties(zes_mem_handle_t mem, zes_mem_properties_t* properties);
ze_result_t memory_get_state(zes_mem_handle_t mem, zes_mem_state_t* state);
ze_result_t enum_temperature_sensors(zes_device_handle_t device, uint32_t* count, zes_temp_handle_t* out);
ze_result_t temperature_get_properties(zes_temp_handle_t temp, zes_temp_properties_t* properties);
ze_result_t temperature_get_state(zes_temp_handle_t temp, double* celsius);
ze_result_t enum_engine_groups(zes_device_handle_t device, uint32_t* count, zes_engine_handle_t* out);
ze_result_t engine_get_properties(zes_engine_handle_t engine, zes_engine_properties_t* properties);
ze_result_t engine_get_activity(zes_engine_handle_t engine, zes_engine_stats_t* stats);
ze_result_t enum_power_domains(zes_device_handle_t device, uint32_t* count, zes_pwr_handle_t* out);
ze_result_t device_get_card_power_domain(zes_device_handle_t device, zes_pwr_handle_t* out);
ze_result_t power_get_properties(zes_pwr_handle_t power, zes_power_properties_t* properties);
ze_result_t power_get_energy_counter(zes_pwr_handle_t power, zes_power_energy_counter_t* energy);
ze_result_t power_get_limits(zes_pwr_handle_t power, zes_power_sustained_limit_t* sustained,
                             zes_power_burst_limit_t* burst, zes_power_peak_limit_t* peak);
ze_result_t enum_frequency_domains(zes_device_handle_t device, uint32_t* count, zes_freq_handle_t* out);
ze_result_t frequency_get_properties(zes_freq_handle_t freq, zes_freq_properties_t* properties);
ze_result_t frequency_get_state(zes_freq_handle_t freq, zes_freq_state_t* state);

}  // namespace gpuwatch::sim::ze
