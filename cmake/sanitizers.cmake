# GPUWATCH_SANITIZE: build everything with compiler sanitizers, for the CI sanitizer jobs
# (scripts/ci-sanitizers): "address,undefined" (ASan + UBSan, float-cast-overflow included,
# every UB report fatal) or "thread" (TSan). Empty (the default) builds without them.
set(GPUWATCH_SANITIZE "" CACHE STRING "Sanitizers: address,undefined | thread | empty for none")
if(GPUWATCH_SANITIZE)
  set(sanitize_flags -fsanitize=${GPUWATCH_SANITIZE} -fno-omit-frame-pointer)
  if(GPUWATCH_SANITIZE MATCHES "undefined")
    list(APPEND sanitize_flags -fsanitize=float-cast-overflow
         -fno-sanitize-recover=undefined,float-cast-overflow)
  endif()
  add_compile_options(${sanitize_flags})
  add_link_options(-fsanitize=${GPUWATCH_SANITIZE})
  message(STATUS "gpuwatch: sanitizers ${GPUWATCH_SANITIZE}")
endif()
