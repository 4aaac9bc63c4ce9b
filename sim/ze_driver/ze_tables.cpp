// The driver's exported entry points: the DDI table getters the loader (libze_loader.so.1)
// looks up by name, one per table it asks for (ze_ddi.h, zet_ddi.h, zes_ddi.h of the installed
// headers; the 1.8 loader fails zeInit when a driver lacks any of them). Each getter first fills
// every slot of its table with `unsupported` (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE), then sets
// the functions this driver implements (ze_functions.hpp).
//
// A table is a struct of nothing but function pointers; `unsupported` takes no arguments and is
// called through pointers of every signature, which the x86-64 and AArch64 C calling conventions
// allow (the caller sets up and removes the arguments, the return is in a register).
#include <cstring>

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "sim/ze_driver/ze_functions.hpp"

namespace gpuwatch::sim::ze {
namespace {

extern "C" ze_result_t gw_ze_unsupported() { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

template <class Table>
ze_result_t provide_table(ze_api_version_t version, Table* table, void (*fill)(Table&)) {
  if (!table) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  using AnyFn = ze_result_t (*)();
  static_assert(sizeof(Table) % sizeof(AnyFn) == 0, "a DDI table holds function pointers only");
  const AnyFn unsupported = &gw_ze_unsupported;
  for (std::size_t at = 0; at < sizeof(Table); at += sizeof(AnyFn))
    std::memcpy(reinterpret_cast<char*>(table) + at, &unsupported, sizeof(AnyFn));
  if (fill) fill(*table);
  return ZE_RESULT_SUCCESS;
}

void fill_global(ze_global_dditable_t& t) { t.pfnInit = init; }
void fill_driver(ze_driver_dditable_t& t) {
  t.pfnGet = driver_get;
  t.pfnGetApiVersion = driver_get_api_version;
  t.pfnGetProperties = driver_get_properties;
}
void fill_device(ze_device_dditable_t& t) {
  t.pfnGet = device_get;
  t.pfnGetSubDevices = device_get_sub_devices;
  t.pfnGetProperties = device_get_properties;
}
void fill_zes_device(zes_device_dditable_t& t) {
  t.pfnGetProperties = zes_device_get_properties;
  t.pfnPciGetProperties = zes_device_pci_get_properties;
  t.pfnProcessesGetState = zes_device_processes_get_state;
  t.pfnEnumMemoryModules = enum_memory_modules;
  t.pfnEnumTemperatureSensors = enum_temperature_sensors;
  t.pfnEnumEngineGroups = enum_engine_groups;
  t.pfnEnumPowerDomains = enum_power_domains;
  t.pfnGetCardPowerDomain = device_get_card_power_domain;
  t.pfnEnumFrequencyDomains = enum_frequency_domains;
}
void fill_memory(zes_memory_dditable_t& t) {
  t.pfnGetProperties = memory_get_properties;
  t.pfnGetState = memory_get_state;
}
void fill_temperature(zes_temperature_dditable_t& t) {
  t.pfnGetProperties = temperature_get_properties;
  t.pfnGetState = temperature_get_state;
}
void fill_engine(zes_engine_dditable_t& t) {
  t.pfnGetProperties = engine_get_properties;
  t.pfnGetActivity = engine_get_activity;
}
void fill_power(zes_power_dditable_t& t) {
  t.pfnGetProperties = power_get_properties;
  t.pfnGetEnergyCounter = power_get_energy_counter;
  t.pfnGetLimits = power_get_limits;
}
void fill_frequency(zes_frequency_dditable_t& t) {
  t.pfnGetProperties = frequency_get_properties;
  t.pfnGetState = frequency_get_state;
}

}  // namespace
}  // namespace gpuwatch::sim::ze

// GETTER exported for TABLE, filled by FILL (nullptr: every function unsupported).
#define GW_ZE_TABLE(getter, table, fill)                                                      \
  GW_ZE_EXPORT ze_result_t getter(ze_api_version_t version, table* ddi) {                    \
    return gpuwatch::sim::ze::provide_table<table>(version, ddi, fill);                       \
  }

using namespace gpuwatch::sim::ze;

GW_ZE_TABLE(zeGetGlobalProcAddrTable, ze_global_dditable_t, fill_global)
GW_ZE_TABLE(zeGetDriverProcAddrTable, ze_driver_dditable_t, fill_driver)
GW_ZE_TABLE(zeGetDeviceProcAddrTable, ze_device_dditable_t, fill_device)
GW_ZE_TABLE(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t, nullptr)
GW_ZE_TABLE(zeGetContextProcAddrTable, ze_context_dditable_t, nullptr)
GW_ZE_TABLE(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t, nullptr)
GW_ZE_TABLE(zeGetCommandListProcAddrTable, ze_command_list_dditable_t, nullptr)
GW_ZE_TABLE(zeGetImageProcAddrTable, ze_image_dditable_t, nullptr)
GW_ZE_TABLE(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t, nullptr)
GW_ZE_TABLE(zeGetFenceProcAddrTable, ze_fence_dditable_t, nullptr)
GW_ZE_TABLE(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, nullptr)
GW_ZE_TABLE(zeGetEventProcAddrTable, ze_event_dditable_t, nullptr)
GW_ZE_TABLE(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t, nullptr)
GW_ZE_TABLE(zeGetModuleProcAddrTable, ze_module_dditable_t, nullptr)
GW_ZE_TABLE(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, nullptr)
GW_ZE_TABLE(zeGetKernelProcAddrTable, ze_kernel_dditable_t, nullptr)
GW_ZE_TABLE(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t, nullptr)
GW_ZE_TABLE(zeGetSamplerProcAddrTable, ze_sampler_dditable_t, nullptr)
GW_ZE_TABLE(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t, nullptr)
GW_ZE_TABLE(zeGetMemProcAddrTable, ze_mem_dditable_t, nullptr)
GW_ZE_TABLE(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t, nullptr)
GW_ZE_TABLE(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t, nullptr)
GW_ZE_TABLE(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t, nullptr)

GW_ZE_TABLE(zetGetDeviceProcAddrTable, zet_device_dditable_t, nullptr)
GW_ZE_TABLE(zetGetContextProcAddrTable, zet_context_dditable_t, nullptr)
GW_ZE_TABLE(zetGetCommandListProcAddrTable, zet_command_list_dditable_t, nullptr)
GW_ZE_TABLE(zetGetModuleProcAddrTable, zet_module_dditable_t, nullptr)
GW_ZE_TABLE(zetGetKernelProcAddrTable, zet_kernel_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricProcAddrTable, zet_metric_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t, nullptr)
GW_ZE_TABLE(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t, nullptr)
GW_ZE_TABLE(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t, nullptr)
GW_ZE_TABLE(zetGetDebugProcAddrTable, zet_debug_dditable_t, nullptr)

GW_ZE_TABLE(zesGetDriverProcAddrTable, zes_driver_dditable_t, nullptr)
GW_ZE_TABLE(zesGetDeviceProcAddrTable, zes_device_dditable_t, fill_zes_device)
GW_ZE_TABLE(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t, nullptr)
GW_ZE_TABLE(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t, nullptr)
GW_ZE_TABLE(zesGetPowerProcAddrTable, zes_power_dditable_t, fill_power)
GW_ZE_TABLE(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t, fill_frequency)
GW_ZE_TABLE(zesGetEngineProcAddrTable, zes_engine_dditable_t, fill_engine)
GW_ZE_TABLE(zesGetStandbyProcAddrTable, zes_standby_dditable_t, nullptr)
GW_ZE_TABLE(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t, nullptr)
GW_ZE_TABLE(zesGetMemoryProcAddrTable, zes_memory_dditable_t, fill_memory)
GW_ZE_TABLE(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t, nullptr)
GW_ZE_TABLE(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t, fill_temperature)
GW_ZE_TABLE(zesGetPsuProcAddrTable, zes_psu_dditable_t, nullptr)
GW_ZE_TABLE(zesGetFanProcAddrTable, zes_fan_dditable_t, nullptr)
GW_ZE_TABLE(zesGetLedProcAddrTable, zes_led_dditable_t, nullptr)
GW_ZE_TABLE(zesGetRasProcAddrTable, zes_ras_dditable_t, nullptr)
GW_ZE_TABLE(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t, nullptr)
