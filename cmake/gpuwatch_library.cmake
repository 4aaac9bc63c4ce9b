# gpuwatch_library(NAME folder DEPS ...): a static library gpuwatch_<folder> made of
# every .cpp in the folder (globbed, so adding a file needs no CMake edit), with
# src/ as its include root, so code includes "core/field.hpp", "nvml/loader.hpp"...
function(gpuwatch_library name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER sources EXCLUDE REGEX ".*/main\\.cpp$")
  add_library(gpuwatch_${name} STATIC ${sources})
  add_library(gpuwatch::${name} ALIAS gpuwatch_${name})
  target_include_directories(gpuwatch_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpuwatch_${name} PUBLIC ${ARG_DEPS})
  gpuwatch_set_warnings(gpuwatch_${name})
endfunction()
