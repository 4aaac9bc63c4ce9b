// PLACEHOLDER: core library sources land here.
namespace gpuwatch::core {}
