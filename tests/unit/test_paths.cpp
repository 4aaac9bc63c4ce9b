#include "unit/test_paths.hpp"

// Set for this file alone by tests/CMakeLists.txt (GPUWATCH_TEST_*).
namespace gpuwatch::test_paths {
const char* sim_driver_dir() { return GPUWATCH_TEST_SIM_DRIVER_DIR; }
const char* source_dir() { return GPUWATCH_TEST_SOURCE_DIR; }
const char* realdata_dir() { return GPUWATCH_TEST_REALDATA_DIR; }
}  // namespace gpuwatch::test_paths
