#include <stddef.h>
#include "nvml/nvml_abi.h"
#define SIZE(T) sizeof(T),
#define OFFSET(T, m) offsetof(T, m),
const size_t gw_layout_ours[] = {
#include "layout_list.h"
};

/* Types newer than Debian's nvml.h (11.8): checked against the figures of NVIDIA's r550
 * nvml.h (nvmlGpuFabricInfo_v2 = NVML_STRUCT_VERSION(GpuFabricInfo, 2) = 0x02000024). */
_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t is 28 bytes");
_Static_assert(offsetof(nvmlGpuFabricInfo_t, status) == 16, "status after the 16-byte cluster uuid");
_Static_assert(offsetof(nvmlGpuFabricInfo_t, cliqueId) == 20, "cliqueId");
_Static_assert(offsetof(nvmlGpuFabricInfo_t, state) == 24, "state (one byte)");
_Static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36, "nvmlGpuFabricInfo_v2_t is 36 bytes");
_Static_assert(offsetof(nvmlGpuFabricInfo_v2_t, clusterUuid) == 4, "clusterUuid after version");
_Static_assert(offsetof(nvmlGpuFabricInfo_v2_t, state) == 28, "state (one byte)");
_Static_assert(offsetof(nvmlGpuFabricInfo_v2_t, healthMask) == 32, "healthMask");
_Static_assert(nvmlGpuFabricInfo_v2 == 0x02000024u, "nvmlGpuFabricInfo_v2");
_Static_assert(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION == 230, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION");
