# CTest script (cmake -P): the C++ example in README.md (the ```cpp block that starts with the
# first line of examples/user_problem.cpp) must be identical to examples/user_problem.cpp.
#   -DREADME=<README.md> -DEXAMPLE=<examples/user_problem.cpp>
cmake_minimum_required(VERSION 3.25)
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```cpp\n${example}```" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "README.md does not contain examples/user_problem.cpp verbatim in a ```cpp "
                      "block; copy the file into README.md (or vice versa)")
endif()
message(STATUS "README example and examples/user_problem.cpp are identical")
