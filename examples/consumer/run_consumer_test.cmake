# CTest script (cmake -P) of the test `consumer_project`: installs the already-built daekit
# into a temporary prefix, then configures, builds and runs examples/consumer against it.
#   -DDAEKIT_BINARY_DIR=<daekit build dir>  -DCONSUMER_SOURCE_DIR=<examples/consumer>
#   -DWORK_DIR=<scratch dir>  [-DCONFIG=<build config>]  [-DCXX_COMPILER=<compiler>]
cmake_minimum_required(VERSION 3.25)
foreach(var DAEKIT_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(step what)
  message(STATUS "consumer test: ${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (${rc})\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

step("install daekit" "${CMAKE_COMMAND}" --install "${DAEKIT_BINARY_DIR}" --prefix "${prefix}"
     --config "${CONFIG}")
set(compiler_arg "")
if(CXX_COMPILER)
  set(compiler_arg "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
step("configure" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${build}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_BUILD_TYPE=${CONFIG}" ${compiler_arg})
step("build" "${CMAKE_COMMAND}" --build "${build}" --config "${CONFIG}")
if(EXISTS "${build}/${CONFIG}/daekit_consumer")
  set(exe "${build}/${CONFIG}/daekit_consumer")
else()
  set(exe "${build}/daekit_consumer")
endif()
step("run" "${exe}")
if(NOT EXISTS "${prefix}/bin/daekit")
  message(FATAL_ERROR "consumer test: the daekit command was not installed to ${prefix}/bin")
endif()
message(STATUS "consumer test: passed")
