// PLACEHOLDER: the NVML exports land here.
#include "nvml/nvml_abi.h"
extern "C" __attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t) { return "Unknown Error"; }
