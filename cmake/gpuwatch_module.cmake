# gpuwatch_module(NAME SOURCES ... LIBS ...): an optional module, gpuwatch-NAME.so, loaded with
# dlopen the first time it is needed (src/core/optional_module.hpp). The parts of gpuwatch that
# need large libraries (gRPC and protobuf, libcurl) live in modules, so a command that never uses
# them never maps those libraries. Built beside the binary in <build>/modules, installed to
# lib/gpuwatch/modules; building `gpuwatch` or `unit_tests` builds every module.
set(GPUWATCH_MODULE_OUTPUT_DIR ${CMAKE_BINARY_DIR}/modules)

function(gpuwatch_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  set(target gpuwatch_module_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME gpuwatch-${name}
    LIBRARY_OUTPUT_DIRECTORY ${GPUWATCH_MODULE_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${target} PRIVATE GPUWATCH_MODULE_VERSION="${PROJECT_VERSION}")
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  # Only the entry points are exported (GPUWATCH_MODULE_EXPORT), not the static code linked in.
  target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL)
  if(NOT GPUWATCH_SANITIZE)  # the sanitizer runtimes live in the executable, not the module
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  gpuwatch_set_warnings(${target})
  install(TARGETS ${target} LIBRARY DESTINATION lib/gpuwatch/modules COMPONENT runtime)
  set_property(GLOBAL APPEND PROPERTY GPUWATCH_MODULES ${target})
endfunction()
