#pragma once
// The Level Zero calls gpuwatch makes, as a table of function pointers: filled by dlsym from
// the loader (level_zero_library.cpp, the only place that dlopens it) or by unit tests with
// fakes. Types are the loader's own (Debian's libze-dev headers); gpuwatch never links the loader.
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

namespace gpuwatch::intel {

// X(name): every entry of the table, in the order the loader is asked for them.
#define GW_SYSMAN_FUNCTIONS(X)                                                                      \
  X(zeInit) X(zeDriverGet) X(zeDriverGetProperties) X(zeDeviceGet) X(zeDeviceGetProperties)         \
  X(zesDeviceGetProperties) X(zesDevicePciGetProperties)                                            \
  X(zesDeviceEnumMemoryModules) X(zesMemoryGetProperties) X(zesMemoryGetState)                      \
  X(zesDeviceEnumTemperatureSensors) X(zesTemperatureGetProperties) X(zesTemperatureGetState)       \
  X(zesDeviceEnumEngineGroups) X(zesEngineGetProperties) X(zesEngineGetActivity)                    \
  X(zesDeviceEnumPowerDomains) X(zesPowerGetProperties) X(zesPowerGetEnergyCounter)

struct SysmanFunctions {
#define GW_SYSMAN_MEMBER(name) decltype(&::name) name = nullptr;
  GW_SYSMAN_FUNCTIONS(GW_SYSMAN_MEMBER)
#undef GW_SYSMAN_MEMBER
};

}  // namespace gpuwatch::intel
