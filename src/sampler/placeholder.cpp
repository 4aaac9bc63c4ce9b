// PLACEHOLDER
namespace gpuwatch::sampler {}
