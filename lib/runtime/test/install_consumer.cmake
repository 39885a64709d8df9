# ctest runtime.install_consumer: installs the runtime component into a fresh
# prefix, then configures, builds and runs test/consumer against it with
# find_package(TorchTidy).
foreach(var BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "install_consumer.cmake: ${var} is not set")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
    --component torchtidy_runtime ${config_args})

set(configure_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DEXPECTED_PREFIX=${prefix}")
if(Torch_DIR)
  list(APPEND configure_args "-DTorch_DIR=${Torch_DIR}")
endif()
if(CUDAToolkit_ROOT)
  list(APPEND configure_args "-DCUDAToolkit_ROOT=${CUDAToolkit_ROOT}")
endif()
if(CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
run("configure consumer" ${CMAKE_COMMAND} ${configure_args})
run("build consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("run consumer" "${WORK_DIR}/build/torchtidy_consumer")
message(STATUS "${last_output}")
