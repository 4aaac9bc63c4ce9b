#include <stddef.h>
#include "nvml/nvml_abi.h"
#define SIZE(T) sizeof(T),
#define OFFSET(T, m) offsetof(T, m),
const size_t gw_layout_ours[] = {
#include "layout_list.h"
};
