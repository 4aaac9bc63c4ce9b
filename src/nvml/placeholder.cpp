// PLACEHOLDER
namespace gpuwatch::nvml {}
