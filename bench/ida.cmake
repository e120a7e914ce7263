# Optional comparison with SUNDIALS IDA (included from bench/CMakeLists.txt). Needs the
# SUNDIALS 6 libraries sundials_ida, sundials_nvecserial, sundials_sunmatrix{dense,band,sparse}
# and sundials_sunlinsol{dense,band,klu} and the header ida/ida.h (Debian/Ubuntu:
# libsundials-dev). Without
# them (or with another major version) nothing is built and configuring still succeeds.
#   daekit_ida_runner  static library: run_ida() on a daekit ImplicitDae (ida_runner.hpp)
#   daekit_ida_check   IDA on the built-in index-1 problems, scd against the references
find_path(DAEKIT_SUNDIALS_INCLUDE_DIR ida/ida.h)
find_library(DAEKIT_SUNDIALS_IDA_LIBRARY sundials_ida)
find_library(DAEKIT_SUNDIALS_NVECSERIAL_LIBRARY sundials_nvecserial)
find_library(DAEKIT_SUNDIALS_SUNMATRIXDENSE_LIBRARY sundials_sunmatrixdense)
find_library(DAEKIT_SUNDIALS_SUNLINSOLDENSE_LIBRARY sundials_sunlinsoldense)
find_library(DAEKIT_SUNDIALS_SUNMATRIXBAND_LIBRARY sundials_sunmatrixband)
find_library(DAEKIT_SUNDIALS_SUNLINSOLBAND_LIBRARY sundials_sunlinsolband)
find_library(DAEKIT_SUNDIALS_SUNMATRIXSPARSE_LIBRARY sundials_sunmatrixsparse)
find_library(DAEKIT_SUNDIALS_SUNLINSOLKLU_LIBRARY sundials_sunlinsolklu)

set(_daekit_ida_missing "")
foreach(_var IN ITEMS DAEKIT_SUNDIALS_INCLUDE_DIR DAEKIT_SUNDIALS_IDA_LIBRARY
        DAEKIT_SUNDIALS_NVECSERIAL_LIBRARY DAEKIT_SUNDIALS_SUNMATRIXDENSE_LIBRARY
        DAEKIT_SUNDIALS_SUNLINSOLDENSE_LIBRARY DAEKIT_SUNDIALS_SUNMATRIXBAND_LIBRARY
        DAEKIT_SUNDIALS_SUNLINSOLBAND_LIBRARY DAEKIT_SUNDIALS_SUNMATRIXSPARSE_LIBRARY
        DAEKIT_SUNDIALS_SUNLINSOLKLU_LIBRARY)
  if(NOT ${_var})
    list(APPEND _daekit_ida_missing ${_var})
  endif()
endforeach()

set(_daekit_sundials_major "")
if(NOT _daekit_ida_missing)
  set(_daekit_sundials_config ${DAEKIT_SUNDIALS_INCLUDE_DIR}/sundials/sundials_config.h)
  if(EXISTS ${_daekit_sundials_config})
    file(STRINGS ${_daekit_sundials_config} _daekit_major_line
         REGEX "^#define SUNDIALS_VERSION_MAJOR [0-9]+")
    string(REGEX REPLACE ".*SUNDIALS_VERSION_MAJOR ([0-9]+).*" "\\1" _daekit_sundials_major
                         "${_daekit_major_line}")
  endif()
endif()

if(_daekit_ida_missing)
  message(STATUS "daekit: SUNDIALS IDA not found (${_daekit_ida_missing}): "
                 "skipping daekit_ida_runner and daekit_ida_check")
elseif(NOT _daekit_sundials_major STREQUAL "6")
  message(STATUS "daekit: the SUNDIALS headers in ${DAEKIT_SUNDIALS_INCLUDE_DIR} are not 6.x "
                 "(SUNDIALS_VERSION_MAJOR '${_daekit_sundials_major}'): skipping "
                 "daekit_ida_runner and daekit_ida_check")
else()
  message(STATUS "daekit: SUNDIALS ${_daekit_sundials_major}.x IDA found "
                 "(${DAEKIT_SUNDIALS_IDA_LIBRARY}): building daekit_ida_check")
  add_library(daekit_ida_runner STATIC ${CMAKE_CURRENT_SOURCE_DIR}/ida_runner.cpp)
  target_include_directories(daekit_ida_runner PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                             ${DAEKIT_SUNDIALS_INCLUDE_DIR} ${DAEKIT_KLU_INCLUDE_DIR})
  target_link_libraries(daekit_ida_runner PUBLIC daekit
    ${DAEKIT_SUNDIALS_IDA_LIBRARY} ${DAEKIT_SUNDIALS_SUNLINSOLDENSE_LIBRARY}
    ${DAEKIT_SUNDIALS_SUNMATRIXDENSE_LIBRARY} ${DAEKIT_SUNDIALS_SUNLINSOLBAND_LIBRARY}
    ${DAEKIT_SUNDIALS_SUNMATRIXBAND_LIBRARY} ${DAEKIT_SUNDIALS_SUNLINSOLKLU_LIBRARY}
    ${DAEKIT_SUNDIALS_SUNMATRIXSPARSE_LIBRARY} ${DAEKIT_SUNDIALS_NVECSERIAL_LIBRARY}
    ${DAEKIT_KLU_LIBRARY})
  target_compile_options(daekit_ida_runner PRIVATE -Wall -Wextra)
  add_executable(daekit_ida_check ${CMAKE_CURRENT_SOURCE_DIR}/ida_check.cpp)
  target_link_libraries(daekit_ida_check PRIVATE daekit_ida_runner)
  target_compile_options(daekit_ida_check PRIVATE -Wall -Wextra)
endif()
