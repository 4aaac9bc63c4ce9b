// PLACEHOLDER
namespace gpuwatch::sim {}
