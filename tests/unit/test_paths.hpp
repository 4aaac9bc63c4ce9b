#pragma once
// Where the C++ tests find the simulated driver, the source tree and ../shared/realdata.
// The paths differ from clone to clone, so they are compiled into one file (test_paths.cpp)
// and every test sees them through these names (force-included, tests/CMakeLists.txt): every
// other test's compile command is then the same in any clone, and ccache hits across clones.
namespace gpuwatch::test_paths {
const char* sim_driver_dir();
const char* source_dir();
const char* realdata_dir();
}  // namespace gpuwatch::test_paths

#define GPUWATCH_SIM_DRIVER_DIR (::gpuwatch::test_paths::sim_driver_dir())
#define GPUWATCH_SOURCE_DIR (::gpuwatch::test_paths::source_dir())
#define GPUWATCH_REALDATA_DIR (::gpuwatch::test_paths::realdata_dir())
