#pragma once
// The MIG families: one info series per MIG device, and per GPU instance its memory and
// (Hopper and later) its GPM activity over the window since the previous sample, from
// DeviceSnapshot::mig_devices / gpu_instance_activity (sampler::ProfilingSampler). Memory
// belongs to the GPU instance, shared by its compute instances, so it is written once per
// GPU instance; join with *_mig_info on (uuid, gpu_instance_id) to reach the MIG devices.
// Only GPUs that are up; nothing at all when no GPU is in MIG mode.
#include <string>
#include <vector>

#include "live/view.hpp"

namespace gpuwatch::exporter {

// gpuwatch_mig_info{gpu,uuid,mig_uuid,gpu_instance_id,compute_instance_id,profile} 1,
// gpuwatch_mig_memory_{total,used,free,reserved}_bytes{gpu,uuid,gpu_instance_id},
// gpuwatch_mig_<gpm field json key>{...} (e.g. gpuwatch_mig_tensor_active_ratio),
// gpuwatch_mig_pcie_{tx,rx}_bytes_per_second. LABELS[i] is GPU i's `gpu="i",uuid="..."`.
void encode_mig_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

// nvidia_gpu_exporter's nvidia_smi_mig_info{uuid,mig_uuid,gpu_instance_id,compute_instance_id,profile},
// nvidia_smi_mig_memory_{total,used,free,reserved}_bytes{uuid,gpu_instance_id},
// nvidia_smi_mig_{graphics_activity,sm_activity,sm_occupancy,tensor_activity}_ratio and
// nvidia_smi_mig_pcie_throughput_{tx,rx}_bytes_per_second. LABELS[i] is GPU i's `uuid="..."`.
void encode_mig_nvidia_smi(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

}  // namespace gpuwatch::exporter
