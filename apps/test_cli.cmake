# CTest script (cmake -P): exact exit codes and the files written by the daekit command.
#   -DDAEKIT=<path of the daekit executable>  -DWORK_DIR=<scratch directory>
cmake_minimum_required(VERSION 3.25)
if(NOT DAEKIT OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DDAEKIT=... -DWORK_DIR=... -P test_cli.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

expect(0 "Usage:" "" --help)
expect(0 "Usage:" "" help)
expect(2 "" "missing command")
expect(2 "" "unknown command 'frobnicate'; valid commands: list, solve, demo, help" frobnicate)
expect(0 "pendulum" "" list)

# solve: report and scd on stdout
expect(0 "status +success.*scd +[0-9]" "" solve vanderpol)
expect(0 "status +success" "" solve vanderpol --method bdf)

# --json: exactly one object on stdout, the contract's keys present
expect(0 "^{\n.*\n}\n$" "" solve pendulum --json)
foreach(key problem method status message t y stats nfev nfev_jac njac nlu nsol nsteps naccept
            nreject nnewton cpu_seconds rtol atol max_residual position velocity scd)
  if(NOT last_stdout MATCHES "\"${key}\": ")
    message(SEND_ERROR "solve pendulum --json: key '${key}' missing:\n${last_stdout}")
  endif()
endforeach()
# the default method is auto (issue 29): "method" is the method that ran (radau for the index-3
# pendulum), "method_requested" what was asked for, "method_choice" the rule
if(NOT last_stdout MATCHES "\"problem\": \"pendulum\"" OR NOT last_stdout MATCHES "\"method\": \"radau\""
   OR NOT last_stdout MATCHES "\"method_requested\": \"auto\""
   OR NOT last_stdout MATCHES "\"method_choice\": \"radau: index-3 components")
  message(SEND_ERROR "solve pendulum --json: wrong problem/method:\n${last_stdout}")
endif()
# a method given is the method run: no rule
expect(0 "\"method\": \"radau5\",\n  \"method_choice\": null,\n  \"method_requested\": \"radau5\"" ""
       solve pendulum --method radau5 --json)
expect(0 "\"max_residual\": null.*\"scd\": [0-9]" "" solve robertson --json)
# t_end other than the reference time: no scd
expect(0 "\"scd\": null" "" solve vanderpol --json --t-end 1)
# user tolerances are echoed
expect(0 "\"rtol\": 0.0001,\n  \"atol\": 1e-07" "" solve vanderpol --json --rtol 1e-4 --atol=1e-7)

# failed solve: exit 1, JSON still printed, report on stderr
expect(1 "\"status\": \"max_steps_exceeded\"" "max_steps_exceeded" solve robertson --max-steps 5 --json)
expect(1 "status +max_steps_exceeded" "ended with status max_steps_exceeded" solve robertson --max-steps 5)

# usage errors: exit 2 with a message naming the problem/option and the valid choices
expect(2 "" "unknown problem 'nosuch'; valid problems: pendulum, " solve nosuch)
expect(2 "" "needs a problem name; valid problems: pendulum" solve)
expect(2 "" "invalid option for problem 'vanderpol': .*rtol" solve vanderpol --rtol -1)
expect(2 "" "invalid option for problem 'vanderpol': .*atol" solve vanderpol --atol 0)
expect(2 "" "option --rtol needs a finite number, got 'x'" solve vanderpol --rtol x)
expect(2 "" "option --rtol of 'solve' needs a value" solve vanderpol --rtol)
expect(2 "" "option --max-steps needs an integer" solve vanderpol --max-steps 1.5)
expect(2 "" "unknown option '--tol' for 'solve'; valid options: --method, " solve vanderpol --tol 1)
expect(2 "" "unknown method 'rk4'; valid methods: radau5, bdf, projected-rk" solve vanderpol --method rk4)
expect(2 "" "equals the start time" solve vanderpol --t-end 0)

# --out: header and one row per accepted step, residual columns for constrained problems
expect(0 "" "" solve pendulum --out pendulum.csv --json)
string(REGEX MATCH "\"naccept\": ([0-9]+)" m "${last_stdout}")
set(naccept "${CMAKE_MATCH_1}")
file(STRINGS "${WORK_DIR}/pendulum.csv" lines)
list(LENGTH lines nlines)
list(GET lines 0 header)
if(NOT header STREQUAL "t,u1,u2,v1,v2,lambda,position_residual,velocity_residual")
  message(SEND_ERROR "pendulum.csv: header '${header}'")
endif()
math(EXPR expected "${naccept} + 2")  # header + t0 + one row per accepted step
if(NOT nlines EQUAL expected)
  message(SEND_ERROR "pendulum.csv: ${nlines} lines, expected ${expected} (naccept ${naccept})")
endif()
expect(0 "wrote vdp.csv" "" solve vanderpol --out vdp.csv)
file(STRINGS "${WORK_DIR}/vdp.csv" lines LIMIT_COUNT 1)
if(NOT lines STREQUAL "t,y1,y2")
  message(SEND_ERROR "vdp.csv: header '${lines}'")
endif()
expect(1 "" "cannot open" solve vanderpol --out no/such/dir/x.csv)

# --plot: a PNG when gnuplot exists, a clear error otherwise
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  expect(0 "wrote pendulum.png" "" solve pendulum --plot pendulum.png)
  file(READ "${WORK_DIR}/pendulum.png" magic LIMIT 4 HEX)
  if(NOT magic STREQUAL "89504e47")
    message(SEND_ERROR "pendulum.png is not a PNG (${magic})")
  endif()
else()
  expect(1 "" "gnuplot not found" solve pendulum --plot pendulum.png)
endif()

# --projection and --formulation (issue 3): every formulation of the pendulum and of Andrews
# solves; the velocity projection holds G v = 0 to round-off; bad values and combinations are
# refused with exit code 2 and a message.
foreach(form index3 index2 index1 ggl)
  expect(0 "\"formulation\": \"${form}\".*\"status\": \"success\"|\"status\": \"success\".*\"formulation\": \"${form}\"" ""
         solve pendulum --formulation ${form} --json)
  expect(0 "status +success" "" solve andrews --formulation ${form})
endforeach()
expect(0 "\"projection\": \"velocity\"" "" solve pendulum --projection velocity --json)
string(REGEX MATCH "\"velocity\": ([-0-9.e+]+)" m "${last_stdout}")
if(NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 GREATER_EQUAL 1e-12)
  message(SEND_ERROR "--projection velocity: max_residual.velocity '${CMAKE_MATCH_1}' not < 1e-12")
endif()
expect(0 "\"projection\": \"none\"" "" solve pendulum --json)
expect(2 "" "unknown projection 'sideways'; valid: none, velocity, full"
       solve pendulum --projection sideways)
expect(2 "" "--projection velocity needs --method radau5" solve pendulum --method bdf
       --projection velocity)
expect(2 "" "unknown formulation 'index4'" solve pendulum --formulation index4)
expect(2 "" "problem 'vanderpol' is not a mechanical system" solve vanderpol --formulation index2)
