// Readers for the gpuwatch extension fields (thresholds, energy, PCIe throughput,
// identity extras, BAR1, fans) and the mode getters (power management, GOM, driver model).
#include "nvml/field_writer.hpp"

#include <fmt/format.h>

namespace gpuwatch::nvml::detail {
namespace {

const char* brand_name(int brand) {
  switch (brand) {
    case NVML_BRAND_QUADRO: return "Quadro";
    case NVML_BRAND_TESLA: return "Tesla";
    case 3: return "NVS";
    case 4: return "Grid";
    case NVML_BRAND_GEFORCE: return "GeForce";
    case 6: return "Titan";
    case NVML_BRAND_NVIDIA_RTX: return "NVIDIA RTX";
    case NVML_BRAND_NVIDIA: return "NVIDIA";
    default: return "Unknown";
  }
}

const char* architecture_name(unsigned arch) {
  switch (arch) {
    case 2: return "Kepler";
    case 3: return "Maxwell";
    case 4: return "Pascal";
    case NVML_DEVICE_ARCH_VOLTA: return "Volta";
    case NVML_DEVICE_ARCH_TURING: return "Turing";
    case NVML_DEVICE_ARCH_AMPERE: return "Ampere";
    case NVML_DEVICE_ARCH_ADA: return "Ada Lovelace";
    case NVML_DEVICE_ARCH_HOPPER: return "Hopper";
    case 10: return "Blackwell";
    default: return "Unknown";
  }
}

// fabric.state, then (once registration completed) status, cliqueId and clusterUuid.
void read_fabric(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  FabricInfo info;
  nvmlReturn_t rc = api.gpu_fabric_info(dev, &info);
  if (rc != NVML_SUCCESS) return w.fail_all(rc);
  for (auto id : w.fields) {
    int which = arg_of(id);
    if (which == 0) {
      w.set(id, FieldValue{static_cast<std::int64_t>(info.state)});
    } else if (info.state != NVML_GPU_FABRIC_STATE_COMPLETED) {
      w.device.get(id) = FieldReading::absent(core::FieldStatus::NotApplicable, {});
    } else if (which == 1) {
      w.set(id, FieldValue{api.error_string(info.status)});
    } else if (which == 2) {
      w.set(id, FieldValue{std::uint64_t{info.clique_id}});
    } else {
      const unsigned char* u = info.cluster_uuid;
      w.set(id, FieldValue{fmt::format("{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
                                       "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                                       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                                       u[12], u[13], u[14], u[15])});
    }
  }
}

}  // namespace

bool read_extension_source(Writer& w, const NvmlApi& api, nvmlDevice_t dev, core::Source source) {
  const NvmlFunctions& f = api.raw();
  switch (source) {
    case Source::TemperatureThreshold:
      w.each([&](FieldId id, FieldValue* out) {
        unsigned c = 0;
        nvmlReturn_t rc = call(f.nvmlDeviceGetTemperatureThreshold, dev, arg_of(id), &c);
        *out = static_cast<std::int64_t>(c);
        return rc;
      });
      break;
    case Source::TotalEnergy: {
      unsigned long long mj = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetTotalEnergyConsumption, dev, &mj);
      w.all(rc, [&](FieldId) { return FieldValue{static_cast<double>(mj) * kMilli}; });
      break;
    }
    case Source::PcieThroughput:
      w.each([&](FieldId id, FieldValue* out) {
        unsigned kb_per_s = 0;
        nvmlReturn_t rc = call(f.nvmlDeviceGetPcieThroughput, dev, arg_of(id), &kb_per_s);
        *out = static_cast<double>(kb_per_s) * 1024.0;
        return rc;
      });
      break;
    case Source::PcieReplayCounter: read_unsigned(w, f.nvmlDeviceGetPcieReplayCounter, dev); break;
    case Source::Brand: {
      int brand = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetBrand, dev, &brand);
      w.all(rc, [&](FieldId) { return FieldValue{std::string(brand_name(brand))}; });
      break;
    }
    case Source::Architecture: {
      unsigned arch = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetArchitecture, dev, &arch);
      w.all(rc, [&](FieldId) { return FieldValue{std::string(architecture_name(arch))}; });
      break;
    }
    case Source::NumGpuCores: read_unsigned(w, f.nvmlDeviceGetNumGpuCores, dev); break;
    case Source::BoardPartNumber: read_string(w, f.nvmlDeviceGetBoardPartNumber, dev); break;
    case Source::Bar1Memory: {
      nvmlBAR1Memory_t b{};
      nvmlReturn_t rc = call(f.nvmlDeviceGetBAR1MemoryInfo, dev, &b);
      w.all(rc, [&](FieldId id) { return FieldValue{std::uint64_t{arg_of(id) == 0 ? b.bar1Total : b.bar1Used}}; });
      break;
    }
    case Source::NumFans: read_unsigned(w, f.nvmlDeviceGetNumFans, dev); break;
    case Source::PowerManagementMode: read_enabled(w, f.nvmlDeviceGetPowerManagementMode, dev); break;
    case Source::GpuOperationMode:
    case Source::DriverModel: {
      int current = 0, pending = 0;
      nvmlReturn_t rc = source == Source::GpuOperationMode
                            ? call(f.nvmlDeviceGetGpuOperationMode, dev, &current, &pending)
                            : call(f.nvmlDeviceGetDriverModel, dev, &current, &pending);
      w.all(rc, [&](FieldId id) { return FieldValue{static_cast<std::int64_t>(arg_of(id) == 0 ? current : pending)}; });
      break;
    }
    case Source::GpuFabricInfo: read_fabric(w, api, dev); break;
    default: return false;
  }
  return true;
}

}  // namespace gpuwatch::nvml::detail
