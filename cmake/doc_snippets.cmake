# The C++ code blocks of the documentation (README.md, docs/**/*.md) compiled into one program
# and run, one ctest test per block (doc_snippet_<page>_<k>): scripts/doc_snippets.py writes a
# translation unit per block into build/doc_snippets at configure time; the pages are
# configure dependencies, so an edited page regenerates them on the next build.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "daekit: no Python 3 interpreter: the documentation's C++ blocks are not tested")
  return()
endif()
set(_doc_dir ${CMAKE_BINARY_DIR}/doc_snippets)
execute_process(
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/doc_snippets.py cpp ${_doc_dir}
  OUTPUT_VARIABLE _doc_snippets OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _doc_rc)
if(NOT _doc_rc EQUAL 0)
  message(FATAL_ERROR "scripts/doc_snippets.py failed (${_doc_rc})")
endif()
file(GLOB_RECURSE _doc_pages ${PROJECT_SOURCE_DIR}/docs/*.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/README.md ${_doc_pages} ${PROJECT_SOURCE_DIR}/scripts/doc_snippets.py)
set(_doc_sources ${_doc_dir}/doc_snippets_main.cpp)
foreach(_name IN LISTS _doc_snippets)
  list(APPEND _doc_sources ${_doc_dir}/${_name}.cpp)
endforeach()
add_executable(daekit_doc_snippets ${_doc_sources})
target_link_libraries(daekit_doc_snippets PRIVATE daekit)
target_compile_options(daekit_doc_snippets PRIVATE -O1 -Wall -Wextra -Wno-unused)  # -O1: builds fast
# Build time: every block includes daekit/daekit.hpp; parsed once in a precompiled header
# (docs/results/build-time.md).
if(DAEKIT_PCH)
  target_precompile_headers(daekit_doc_snippets PRIVATE ${DAEKIT_PCH_HEADERS}
    "${PROJECT_SOURCE_DIR}/include/daekit/daekit.hpp")
endif()
foreach(_name IN LISTS _doc_snippets)
  add_test(NAME ${_name} COMMAND daekit_doc_snippets ${_name} WORKING_DIRECTORY ${_doc_dir})
  set_tests_properties(${_name} PROPERTIES TIMEOUT 120)
endforeach()
