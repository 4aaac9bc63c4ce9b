# Warnings are applied per target (spdlog style).
function(gpuwatch_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  if(GPUWATCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
