#include "unit/test_paths.hpp"

#include <cstdlib>
#include <string>

#include "core/optional_module.hpp"

// Set for this file alone by tests/CMakeLists.txt (GPUWATCH_TEST_*).
namespace gpuwatch::test_paths {
const char* sim_driver_dir() { return GPUWATCH_TEST_SIM_DRIVER_DIR; }
const char* source_dir() { return GPUWATCH_TEST_SOURCE_DIR; }
const char* realdata_dir() { return GPUWATCH_TEST_REALDATA_DIR; }
const char* binary_dir() { return GPUWATCH_TEST_BINARY_DIR; }

namespace {
// The test binaries live in <build>/tests, not beside <build>/modules: point the module loader
// (gRPC's kubelet client, libcurl's transport) at the build's modules, unless set already.
const bool module_dir_set = [] { return setenv(core::kModuleDirEnv, (std::string(GPUWATCH_TEST_BINARY_DIR) + "/modules").c_str(), 0) == 0; }();
}  // namespace
}  // namespace gpuwatch::test_paths
