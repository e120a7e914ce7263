# Detection for the Python module: sets the option DAEKIT_BUILD_PYTHON (default ON when
# pybind11 and numpy are found) and, when it is ON, Python_EXECUTABLE and the pybind11 targets.
set(DAEKIT_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python interpreter for the module (needs numpy; Debian's python3-numpy)")
set(_daekit_python_found OFF)
if(EXISTS "${DAEKIT_PYTHON}")
  execute_process(COMMAND "${DAEKIT_PYTHON}" -c "import numpy"
                  RESULT_VARIABLE _daekit_numpy_rc OUTPUT_QUIET ERROR_QUIET)
  if(_daekit_numpy_rc EQUAL 0)
    # FindPython with this interpreter first: pybind11 then uses it (its new-style tools)
    # instead of looking for a Python of its own.
    set(Python_EXECUTABLE "${DAEKIT_PYTHON}")
    set(PYBIND11_FINDPYTHON ON)
    find_package(Python 3.8 QUIET COMPONENTS Interpreter Development.Module)
    if(Python_FOUND)
      find_package(pybind11 2.6 CONFIG QUIET)
      if(pybind11_FOUND)
        set(_daekit_python_found ON)
      endif()
    endif()
  endif()
endif()
option(DAEKIT_BUILD_PYTHON "Build the Python module daekit (python/)" ${_daekit_python_found})
if(DAEKIT_BUILD_PYTHON)
  if(NOT _daekit_python_found)
    message(FATAL_ERROR "DAEKIT_BUILD_PYTHON is ON but pybind11 (pybind11-dev), numpy for "
                        "${DAEKIT_PYTHON} (python3-numpy) or its headers (python3-dev) were "
                        "not found: run scripts/setup.sh")
  endif()
  message(STATUS "daekit: Python module for ${Python_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
else()
  message(STATUS "daekit: Python module not built (DAEKIT_BUILD_PYTHON=OFF)")
endif()
