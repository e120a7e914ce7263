# CTest script (cmake -P): one group of checks of the daekit command per CASE (each a ctest of
# its own, see apps/CMakeLists.txt): the registry-based options (issue 8) and the reliability
# regressions (issue 9).
#   -DDAEKIT=<path of the daekit executable>  -DWORK_DIR=<scratch directory>  -DCASE=<name>
cmake_minimum_required(VERSION 3.25)
if(NOT DAEKIT OR NOT WORK_DIR OR NOT CASE)
  message(FATAL_ERROR "usage: cmake -DDAEKIT=... -DWORK_DIR=... -DCASE=... -P test_cli_cases.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
find_program(GNUPLOT gnuplot)

# json_value(<var> <key>): the value of "key" (number, string, literal or one-line array) in
# last_stdout
macro(json_value var key)
  if(last_stdout MATCHES "\"${key}\": (\"[^\"]*\"|\\[[^\n]*\\]|[^,\n]+)")
    set(${var} "${CMAKE_MATCH_1}")
  else()
    set(${var} "<missing>")
  endif()
endmacro()

function(check_equal what actual expected)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(SEND_ERROR "${what}: '${actual}', expected '${expected}'")
  endif()
endfunction()

# ---------------------------------------------------------------------------------------------
# Issue 8: the command on the method registry.

if(CASE STREQUAL "methods")
  # the registry's table: every method with its title and summary
  expect(0 "^name +title\n.*\nradau5 +Radau IIA.*\n +M y' = f; index <= 3; order 5.*\nbdf +.*F\\(t, y, y'\\) = 0.*\nprojected-rk +.*constant step only" ""
         methods)
  expect(2 "" "unknown method 'extra'; valid methods: radau5" methods extra)
  expect(2 "" "'methods' takes at most one method name" methods spark hem)
  # issue 24: a method's options from its registered description
  expect(0 "^spark: SPARK.*\noptions \\(daekit solve --option NAME=VALUE; Python: keyword arguments\\)\n.*\n  stages +int +3 +2..9\n +Lobatto stages s: order 2s - 2 in y\n" ""
         methods spark)
  expect(0 "  tableau +tableau +kvaerno4 +a tableau name\n.*named tableaus it accepts: .*sdirk4-hw16" ""
         methods dirk)
  expect(0 "  c +double +auto +any finite number, or auto\n" "" methods beta-multistep)
  # any registered name for --method; the message lists them all
  expect(2 "" "unknown method 'euler'; valid methods: radau5, bdf, projected-rk"
         solve vanderpol --method euler)

elseif(CASE STREQUAL "projected_rk")
  # constant steps with a chosen tableau on the index-3 pendulum
  expect(0 "\"status\": \"success\"" ""
         solve pendulum --method projected-rk --fixed-step --h0 0.01 --tableau radau-ia-3 --json)
  json_value(method method)
  json_value(tableau tableau)
  json_value(fixed fixed_step)
  json_value(naccept naccept)
  json_value(nreject nreject)
  check_equal("method" "${method}" "\"projected-rk\"")
  check_equal("tableau" "${tableau}" "\"radau-ia-3\"")
  check_equal("fixed_step" "${fixed}" "true")
  check_equal("naccept (20 / 0.01)" "${naccept}" "2000")
  check_equal("nreject" "${nreject}" "0")
  expect(0 "daekit projected-rk on pendulum.*status +success" ""
         solve pendulum --method projected-rk --fixed-step --h0 0.01 --tableau radau-ia-3)
  # with the velocity projection the hidden constraint G v = 0 holds to round-off
  expect(0 "\"projection\": \"velocity\"" "" solve pendulum --method projected-rk --fixed-step
         --h0=0.01 --tableau=radau-ia-3 --projection velocity --t-end 2 --json)
  string(REGEX MATCH "\"velocity\": ([-0-9.e+]+)" m "${last_stdout}")
  if(NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 GREATER_EQUAL 1e-12)
    message(SEND_ERROR "projected-rk --projection velocity: |G v| '${CMAKE_MATCH_1}' not < 1e-12")
  endif()
  expect(0 "projection +velocity, 200 projections" "" solve pendulum --method
         projected-rk --fixed-step --h0 0.01 --tableau radau-iia-2 --projection velocity --t-end 2)
  # what it needs, and the errors
  expect(2 "" "method 'projected-rk' has no error estimate .*--fixed-step and --h0"
         solve pendulum --method projected-rk)
  expect(2 "" "--fixed-step needs --h0" solve pendulum --method projected-rk --fixed-step)
  expect(2 "" "unknown tableau 'rk5'; valid tableaus: radau-iia-S, radau-ia-S, gauss-S"
         solve pendulum --method projected-rk --fixed-step --h0 0.01 --tableau rk5)
  expect(2 "" "--tableau is for --method projected-rk" solve pendulum --tableau gauss-2)
  expect(2 "" "RK4 \\(Kutta\\): A is singular" solve pendulum --method projected-rk
         --fixed-step --h0 0.01 --tableau rk4)
  # issue 13: paper 000's (B1)-(B3) for the projected index-3 method
  expect(2 "" "Lobatto IIIA\\(3\\)' fails the conditions of Schropp \\(2006\\).*\\(B1\\) A is singular"
         solve pendulum --method projected-rk --fixed-step --h0 0.01 --tableau lobatto-iiia-3
         --projection full)
  expect(2 "" "Gauss\\(2\\)' fails the conditions of Schropp \\(2006\\).*\\(B2\\)"
         solve pendulum --method projected-rk --fixed-step --h0 0.01 --tableau gauss-2
         --projection velocity)
  # --projection: the methods with the capability, from the registry
  expect(2 "" "--projection velocity needs --method radau5 or projected-rk or radau or dirk \\(method 'bdf' has no projection\\)"
         solve pendulum --method bdf --projection velocity)

elseif(CASE STREQUAL "trace")
  expect(0 "\"status\": \"success\"" "wrote trace.csv \\([0-9]+ attempted steps\\)"
         solve vanderpol --trace trace.csv --json)
  json_value(nsteps nsteps)
  json_value(trace_file trace_file)
  check_equal("trace_file" "${trace_file}" "\"trace.csv\"")
  file(STRINGS "${WORK_DIR}/trace.csv" lines)
  list(LENGTH lines nlines)
  list(GET lines 0 header)
  check_equal("trace.csv header" "${header}"
              "t,h,outcome,order,newton_iterations,newton_rate,error,detail")
  math(EXPR expected "${nsteps} + 1")  # header + one row per attempted step
  check_equal("trace.csv lines (nsteps ${nsteps} + header)" "${nlines}" "${expected}")
  list(FILTER lines INCLUDE REGEX
       "^[-0-9.e+]+,[-0-9.e+]+,(accepted|rejected|newton_failed|singular|non_finite|failed),[0-9]+,[0-9]+,[-0-9.e+]+,[-0-9.e+]+,")
  foreach(outcome accepted rejected)
    if(NOT lines MATCHES ",${outcome},")
      message(SEND_ERROR "trace.csv has no '${outcome}' row")
    endif()
  endforeach()
  list(LENGTH lines nrows)
  math(EXPR expected "${nlines} - 1")
  check_equal("well-formed trace rows" "${nrows}" "${expected}")
  # the trace of a failed solve is written too; a bad path is an output error (exit 1)
  expect(1 "\"status\": \"max_steps_exceeded\"" "" solve robertson --max-steps 5 --trace failed.csv
         --json)
  json_value(nsteps nsteps)
  math(EXPR expected "${nsteps} + 1")
  file(STRINGS "${WORK_DIR}/failed.csv" lines)
  list(LENGTH lines nlines)
  check_equal("failed.csv lines (nsteps ${nsteps} + header)" "${nlines}" "${expected}")
  expect(1 "" "cannot open 'no/such/dir/t.csv' for writing" solve vanderpol --trace no/such/dir/t.csv)

elseif(CASE STREQUAL "linear_solver")
  expect(2 "" "invalid input for problem 'vanderpol' with method 'radau5': linear solver 'banded' needs a banded structure"
         solve vanderpol --linear-solver banded)
  expect(2 "" "unknown linear solver 'lapack'; choose auto, dense, banded, sparse or iterative"
         solve vanderpol --linear-solver lapack)
  expect(0 "\"linear_solver\": \"dense" "" solve vanderpol --linear-solver dense --json)
  expect(0 "\"linear_solver\": \"GMRES \\+ AMG\"" "" solve heat2d --linear-solver iterative --json)
  # the iterative backend on a small index-3 problem (zero diagonal entries): its coarsest
  # level, a dense LU, is the whole system
  expect(0 "\"status\": \"success\".*\"linear_solver\": \"GMRES \\+ AMG\"" ""
         solve pendulum --linear-solver iterative --json)
  # a matrix the iteration cannot solve (air-pipe-1000's algebraic rows): a quick, clear failure
  expect(1 "the iterative linear solver failed 10 solves" ""
         solve air-pipe-1000 --linear-solver iterative)
  # a device or binary file as --params: refused at once (it was read until memory ran out)
  expect(2 "" "--params '/dev/zero', line 1: a NUL byte \\(not a text file\\)"
         sweep andrews --params /dev/zero)
  # the global error check: estimated, reported, warned about above 10 tolerances
  expect(0 "\"global_error_check\": false,.*\"global_error\": null,.*\"global_error_component\": null" ""
         solve vanderpol --json)
  expect(0 "estimated global error at t = 10: [0-9.]+ times the tolerance" ""
         solve pendulum-ssf --method bdf --rtol 1e-9 --atol 1e-9 --global-error)
  expect(0 "\"global_error_check\": true,.*\"global_error\": [0-9]" ""
         solve transistor --method bdf --global-error --json)
  expect(0 "\"controller\": \"pi\"" "" solve vanderpol --controller pi --json)
  expect(2 "" "unknown controller 'pid'" solve vanderpol --controller pid)
  # bdf chooses its own steps: the controller is reported as unused
  expect(0 "\"warnings\": \\[\"method bdf chooses its step sizes.*controller\"\\]" ""
         solve vanderpol --method bdf --controller classical --json)

elseif(CASE STREQUAL "exclude_from_error")
  expect(0 "\"excluded_from_error_test\": \\[0, 2\\]" ""
         solve robertson --exclude-from-error y1,2 --json)
  expect(0 "\"excluded_from_error_test\": \\[\\]" "" solve robertson --exclude-from-error none --json)
  expect(0 "\"excluded_from_error_test\": \\[4\\]" ""
         solve pendulum --exclude-from-error lambda,4 --json)
  expect(0 "not in the error test 4" "" solve pendulum --exclude-from-error=lambda --full-report)
  expect(2 "" "unknown component 'y9' of problem 'robertson'; valid: indices 0..2 or names y1, y2, y3"
         solve robertson --exclude-from-error y9)
  expect(2 "" "component '3' outside 0..2" solve robertson --exclude-from-error 3)
  expect(2 "" "leaves no component in the error test" solve robertson --exclude-from-error 0,1,2)
  expect(2 "" "--exclude-from-error needs a list" solve robertson --exclude-from-error=)
  # --nonnegative takes the same lists
  expect(0 "\"nonnegative\": \\[0, 1, 2\\]" "" solve robertson --nonnegative y1,y2,y3 --json)
  expect(2 "" "--nonnegative: empty item in the list '0,,1'" solve robertson --nonnegative 0,,1)
  # --tstops (issue 26): discontinuity times, a restart at each; validated before the run
  expect(0 "\"nrestart\": 2[^0-9].*\"tstops\": \\[0.5, 1\\]" "" solve vanderpol --tstops 0.5,1 --json)
  expect(2 "" "Options::tstops must be strictly increasing" solve vanderpol --tstops 1,0.5)
  expect(2 "" "tstops\\[0\\] = 3 lies outside the interval \\[0, 2\\]" solve vanderpol --tstops 3)
  expect(2 "" "option --tstops needs a finite number, got 'nan'" solve vanderpol --tstops 0.5,nan)

elseif(CASE STREQUAL "full_report")
  expect(0 "daekit radau5 on vanderpol\n  method auto +radau5: index 1, rtol 1e-06 >= 1e-06, n = 2 \\(.*\\)\n  status +success.*given +used\n  rtol .*linear solver .*statistics\n.*  nfail .*  nevents .*scd +[0-9]"
         "" solve vanderpol --full-report)
  # the brief report does not list every counter
  expect(0 "status +success" "" solve vanderpol)
  if(last_stdout MATCHES "nfev_jac ")
    message(SEND_ERROR "the brief report lists the counters:\n${last_stdout}")
  endif()
  expect(0 "located events +t = [0-9.]+  valve at upper limit" "" solve pi-valve --full-report)
  expect(0 "status +success" "" solve vanderpol --no-jacobian-check)
  # the options the method used (issue 24), as the method reports them
  expect(0 "  method options +max_newton_iterations=7 newton_tolerance=0 start_newton_from_zero=false" ""
         solve vanderpol --full-report)
  expect(0 "  method options +stages=4 mass_form_part=3" ""
         solve pendulum-index2 --method spark --option stages=4 --full-report)

elseif(CASE STREQUAL "json_keys")
  # radau5's run (the default method is auto: the default run is checked below)
  expect(0 "^{\n.*\n}\n$" "" solve pendulum --method radau5 --json)
  foreach(key format_version daekit_version problem title method method_choice method_requested
              status ok message n
              component_names t0 t_end t y stats nfev nfev_jac njac nlu nsol nsteps naccept nreject
              nnewton nnewton_fail nproject nfail nroot nevents cpu_seconds rtol atol h0 max_steps
              projection formulation max_residual scd reference_t events linear_solver rtol_used
              atol_used jacobian_colours h_last h_next order yp warnings notes
              excluded_from_error_test controller trace_file fixed_step tableau nonnegative
              method_options scd_components component_digits)
    if(NOT last_stdout MATCHES "\n *\"${key}\": ")
      message(SEND_ERROR "solve pendulum --json: key '${key}' missing:\n${last_stdout}")
    endif()
  endforeach()
  if(NOT last_stdout MATCHES "\"method_options\": {\n *\"max_newton_iterations\": 7,\n *\"newton_tolerance\": 0,\n *\"start_newton_from_zero\": false,")
    message(SEND_ERROR "method_options of radau5 (typed values):\n${last_stdout}")
  endif()
  # types of the new keys
  json_value(v linear_solver)
  if(NOT v MATCHES "^\"dense")
    message(SEND_ERROR "linear_solver: ${v}")
  endif()
  foreach(key rtol_used atol_used h_last h_next)
    json_value(v ${key})
    if(NOT v MATCHES "^[0-9][-0-9.e+]*$")
      message(SEND_ERROR "${key}: '${v}' is not a positive number")
    endif()
  endforeach()
  json_value(v order)
  check_equal("order" "${v}" "5")
  foreach(key jacobian_colours nfail)
    json_value(v ${key})
    if(NOT v MATCHES "^[0-9]+$")
      message(SEND_ERROR "${key}: '${v}' is not a count")
    endif()
  endforeach()
  json_value(v yp)
  if(NOT v MATCHES "^\\[[-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+\\]$")
    message(SEND_ERROR "yp: '${v}' is not an array of 5 numbers")
  endif()
  json_value(v warnings)  # a run that met its tolerance: nothing to act on
  check_equal("warnings" "${v}" "[]")
  json_value(v notes)  # radau5 states what its tolerance means (issue 24)
  if(NOT v MATCHES "^\\[\"radau5 controls the local error per step against 0.1")
    message(SEND_ERROR "notes: '${v}' is not an array with radau5's notes")
  endif()
  foreach(pair "excluded_from_error_test;[]" "controller;\"gustafsson\""
               "trace_file;null" "fixed_step;false" "tableau;null" "nonnegative;[]"
               "nroot;0" "nevents;0" "projection;\"none\"")
    list(GET pair 0 key)
    list(GET pair 1 expected)
    json_value(v ${key})
    check_equal("${key}" "${v}" "${expected}")
  endforeach()
  # the default run (method auto: radau on the index-3 pendulum): the same keys, no warning,
  # the method that ran, the rule that chose it and what was asked for
  expect(0 "^{\n.*\n}\n$" "" solve pendulum --json)
  foreach(pair "method;\"radau\"" "method_requested;\"auto\"" "warnings;[]")
    list(GET pair 0 key)
    list(GET pair 1 expected)
    json_value(v ${key})
    check_equal("default run ${key}" "${v}" "${expected}")
  endforeach()
  json_value(v method_choice)
  if(NOT v MATCHES "^\"radau: index-3 components \\(")
    message(SEND_ERROR "default run method_choice: '${v}'")
  endif()
  # counters in stats: the report's numbers
  expect(0 "" "" solve pi-valve --json)
  json_value(v nevents)
  check_equal("pi-valve nevents" "${v}" "4")
  json_value(v nroot)
  if(NOT v GREATER 0)
    message(SEND_ERROR "pi-valve nroot '${v}' not > 0")
  endif()

# ---------------------------------------------------------------------------------------------
# Issue 9: reliability. Each case is the regression test of one item.

elseif(CASE STREQUAL "plot_injection")
  # 1. A file name never reaches gnuplot's command language: control characters are refused,
  #    and quotes and other shell/gnuplot syntax are just characters of the name.
  expect(2 "" "option --plot: the file name 'x.png\\\\n!touch pwned\\\\n' contains a control character"
         solve vanderpol --plot "x.png\n!touch pwned\n")
  expect(2 "" "contains a control character" solve vanderpol --out "a\rb.csv")
  expect(2 "" "contains a control character" solve vanderpol --trace "t\tx.csv")
  expect(2 "" "contains a control character" demo --outdir "d\nx")
  if(EXISTS "${WORK_DIR}/pwned")
    message(SEND_ERROR "--plot ran a gnuplot command from the file name: ${WORK_DIR}/pwned exists")
  endif()
  if(GNUPLOT)
    # (run directly: a quoted argument keeps the semicolon that CMake's lists would split at)
    string(ASCII 59 semicolon)
    foreach(name "it's.png" "q'${semicolon} !touch pwned2 #.png" "x\" !touch pwned3 \".png"
                 "$(touch pwned4)`touch pwned5`.png")
      execute_process(COMMAND "${DAEKIT}" solve vanderpol --plot "${name}" RESULT_VARIABLE rc
                      OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY "${WORK_DIR}")
      check_equal("solve vanderpol --plot \"${name}\": exit code (stderr: ${err})" "${rc}" "0")
      file(READ "${WORK_DIR}/${name}" magic LIMIT 4 HEX)
      check_equal("PNG magic of '${name}'" "${magic}" "89504e47")
    endforeach()
    foreach(f pwned2 pwned3 pwned4 pwned5)
      if(EXISTS "${WORK_DIR}/${f}")
        message(SEND_ERROR "--plot ran a command from the file name: ${f} exists")
      endif()
    endforeach()
  else()
    expect(1 "" "gnuplot not found" solve vanderpol --plot "it's.png")
  endif()

elseif(CASE STREQUAL "write_errors")
  # 2. Every write is checked: /dev/full, directories, missing directories, a failing gnuplot.
  expect(1 "status +success" "--out: error writing '/dev/full': No space left on device"
         solve vanderpol --out /dev/full)
  expect(1 "\"status\": \"success\"" "--out: error writing '/dev/full'"
         solve vanderpol --out /dev/full --json)
  expect(1 "" "--trace: error writing '/dev/full'" solve vanderpol --trace /dev/full)
  expect(1 "" "cannot open '.' for writing" solve vanderpol --out .)
  expect(1 "" "cannot open 'no/such/dir/x.csv' for writing" solve vanderpol --out no/such/dir/x.csv)
  # checked before the solve; an existing file is left as it was
  file(WRITE "${WORK_DIR}/keep.csv" "old")
  expect(1 "" "cannot open 'no/x.png' for writing" solve vanderpol --out keep.csv --plot no/x.png)
  file(READ "${WORK_DIR}/keep.csv" kept)
  check_equal("keep.csv after a refused run" "${kept}" "old")
  expect(1 "" "cannot create the output directory '/dev/full/x'" demo --outdir /dev/full/x)
  # the report on a full stdout
  execute_process(COMMAND "${DAEKIT}" solve vanderpol OUTPUT_FILE /dev/full
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  check_equal("solve vanderpol > /dev/full: exit code" "${rc}" "1")
  if(NOT err MATCHES "cannot write the output: No space left on device")
    message(SEND_ERROR "solve vanderpol > /dev/full: stderr '${err}'")
  endif()
  if(GNUPLOT)
    expect(1 "" "--plot: error writing '/dev/full': No space left on device"
           solve vanderpol --plot /dev/full)
  endif()
  # a gnuplot that fails, and one that exits 0 without drawing
  file(MAKE_DIRECTORY "${WORK_DIR}/fail" "${WORK_DIR}/silent")
  file(WRITE "${WORK_DIR}/fail/gnuplot" "#!/bin/sh\necho 'gnuplot: broken' >&2\nexit 3\n")
  file(WRITE "${WORK_DIR}/silent/gnuplot" "#!/bin/sh\nexit 0\n")
  file(CHMOD "${WORK_DIR}/fail/gnuplot" "${WORK_DIR}/silent/gnuplot"
       PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  expect_env(1 "" "gnuplot failed \\(exit status 3\\) while writing 'f.png': gnuplot: broken"
             "PATH=${WORK_DIR}/fail:$ENV{PATH}" solve vanderpol --plot f.png)
  expect_env(1 "" "gnuplot drew no image while writing 's.png'"
             "PATH=${WORK_DIR}/silent:$ENV{PATH}" solve vanderpol --plot s.png)
  foreach(f f.png s.png)
    if(EXISTS "${WORK_DIR}/${f}")
      message(SEND_ERROR "${f} written although gnuplot failed")
    endif()
  endforeach()

elseif(CASE STREQUAL "number_syntax")
  # 3. Only plain decimal numbers; values the library refuses are usage errors with its message.
  foreach(option --rtol --atol --h0 --t-end)
    foreach(value "0x10" "0X1p-3" "inf" "-inf" "nan" "NAN(1)" "infinity" "1e" "1e+" " 5" "5 " ""
                  "." "-" "+" "1,5" "1.5.2" "1e5x" "1e999" "-1e999" "--" "e5" "1d-3" "٣")
      expect(2 "" "option ${option} needs a finite number, got '" solve vanderpol
             "${option}=${value}")
    endforeach()
  endforeach()
  expect(2 "" "invalid option for problem 'vanderpol': options: atol must lie in \\(0, 1e100\\)"
         solve vanderpol --atol 1e308)
  expect(2 "" "atol must lie in \\(0, 1e100\\)" solve vanderpol --atol 1e-400)
  expect(2 "" "rtol must lie in \\(10 eps, 1\\)" solve vanderpol --rtol 1e-300)
  expect(2 "" "h0 must be >= 0" solve vanderpol --h0 -1)
  foreach(value "0" "-1" "-0")
    expect(2 "" "option --max-steps must be a positive integer, got '${value}'"
           solve vanderpol --max-steps ${value})
  endforeach()
  foreach(value "1.5" "1e3" "0x10" " 5" "5 " "" "+" "ten")
    expect(2 "" "option --max-steps needs an integer, got '" solve vanderpol "--max-steps=${value}")
  endforeach()
  expect(2 "" "option --max-steps is too large: '99999999999999999999' \\(at most 9223372036854775807\\)"
         solve vanderpol --max-steps 99999999999999999999)
  # the plain forms are accepted
  expect(0 "\"rtol\": 0.001,\n  \"atol\": 1e-07,\n  \"h0\": 1e-06" ""
         solve vanderpol --rtol .001 --atol=1E-7 --h0 +1e-6 --t-end 1.5 --max-steps +5000 --json)

elseif(CASE STREQUAL "exit_codes")
  # 4. Whatever the command line, an exit code 0, 1 or 2 and, for 2, a message.
  string(REPEAT "x" 5000 long)
  foreach(args
      "" "solve" "solve;" "solve;;--json" ";;" "list;extra" "demo;--outdir" "help;x"
      "solve;pendulum;--method;bdf" "solve;pendulum;--method;bdf;--formulation;ggl"
      "solve;andrews;--method;bdf;--max-steps;50" "solve;vanderpol;--t-end;-1;--max-steps;200"
      "solve;vanderpol;--t-end;1e300;--max-steps;30" "solve;vanderpol;--h0;1e300"
      "solve;vanderpol;--fixed-step;--h0;1e-300;--max-steps;20"
      "solve;vanderpol;--fixed-step;--h0;0.5" "solve;robertson;--fixed-step;--h0;1e10"
      "solve;pendulum;--method;projected-rk;--fixed-step;--h0;1e-9;--max-steps;10"
      "solve;pendulum;--method;projected-rk;--fixed-step;--h0;100;--tableau;gauss-9"
      "solve;pendulum;--method;projected-rk;--fixed-step;--h0;0.1;--tableau;radau-ia-1"
      "solve;truck;--linear-solver;sparse" "solve;transistor;--linear-solver;banded"
      "solve;pi-valve;--t-end;-5" "solve;moon;--rtol;0.9;--atol;1e99"
      "solve;akzo;--exclude-from-error;0,1,2,3,4" "solve;index3-chain;--method;bdf"
      "solve;pendulum-index2;--projection;full" "solve;pendulum;--formulation;index1;--projection;full"
      "solve;vanderpol;--out;" "solve;vanderpol;--plot=" "solve;vanderpol;--json=1"
      "solve;vanderpol;--${long}" "solve;${long}" "${long}" "solve;pendulüm" "solve;vanderpol;--method;radau5\n"
      "solve;vanderpol;--rtol;1e-2;--rtol;x" "solve;vanderpol;-5" "solve;vanderpol;-"
      "--version" "version" "methods;--json")
    expect_clean(${args})
  endforeach()

elseif(CASE STREQUAL "demo")
  # 6. The demo still writes its files.
  expect(0 "Summary\n.*pendulum +success" "" demo --outdir out)
  foreach(f pendulum vanderpol robertson andrews transistor)
    if(NOT EXISTS "${WORK_DIR}/out/${f}.csv")
      message(SEND_ERROR "demo: out/${f}.csv missing")
    endif()
  endforeach()
  if(GNUPLOT AND NOT EXISTS "${WORK_DIR}/out/pendulum.png")
    message(SEND_ERROR "demo: out/pendulum.png missing")
  endif()
  expect(2 "" "'demo' takes no problem names" demo pendulum)

elseif(CASE STREQUAL "applications")
  # Issue 14: the notes' applications from the command line. A stalled solve at an impasse
  # point says so (ch. 7); the moon flights end at their outcome events (ch. 8), their designed
  # end (exit 0, issue 28), and report the drift of the Jacobi integral; the
  # attemperator's switch (ch. 10) is a located event.
  expect(1 "" "an impasse point \\(Bendtsen and Thomsen 1999, ch. 7\\)" solve impasse)
  # issue 28: --impasse locates and passes the point (exit 0, the designed end), reports its
  # alpha; bad settings and a regular M are refused
  expect(0 "status +user_stop: the solve stopped at t = 0.99997.*\nimpasse: impasse point of the DAE at t = 1 .*accessible \\(alpha = -2 < 0\\).*\nimpasse: SingDAE followed the augmented curve \\(7.22\\) for 500 RK4 steps" ""
         solve impasse --impasse --method radau5)
  # the default method (auto: radau at rtol 1e-8) stops closer to the point, and passes it
  expect(0 "daekit radau on impasse\n.*status +user_stop: the solve stopped at t = 0.99998.*\nimpasse: impasse point of the DAE at t = 1 .*accessible \\(alpha = -2 < 0\\).*\nimpasse: SingDAE followed the augmented curve \\(7.22\\) for 500 RK4 steps" ""
         solve impasse --impasse)
  expect(0 "\"impasse\": \\{[ \n]*\"found\": true,[ \n]*\"passed\": true,[ \n]*\"t\": (1|0\\.99999999)[0-9.e+-]*,.*\"alpha\": -(2|1\\.9999)[.0-9e-]*,[ \n]*\"accessible\": true,[ \n]*\"rk4_steps\": 100," ""
         solve impasse --impasse --impasse-arc-length 0.1 --json)
  expect(2 "" "--impasse-arc-length needs --impasse" solve impasse --impasse-arc-length 1)
  expect(2 "" "--impasse-arc-length: SingDAE options" solve impasse --impasse --impasse-arc-length -1)
  expect(2 "" "regular" solve vanderpol-b --impasse)
  # the notes' Example 4.1: implicit Euler at constant steps on the index-3 chain, y at x = 1
  # with the notes' errors (y2 - cos 1 = 0.0208, y3 + sin 1 = 0.0282 at h = 0.05); variable
  # steps stay refused at index 3
  expect(0 "\"y\": \\[0\\.84147098[0-9]*, 0\\.5611[0-9]*, -0\\.813[0-9]*\\]" "" solve index3-chain --method bdf --option fixed_order=1 --fixed-step --h0 0.05 --json)
  expect(2 "" "BDF does not take index-3 problems" solve index3-chain --method bdf)
  # scd over y1, y2 (y3 is of index 3, as the multipliers elsewhere); y3's digits are reported
  # beside it: radau5 at the default rtol 1e-6 gives y2 to 7.8 digits and y3 to 5.2
  expect(0 "\n  scd +7\\.8[0-9] over y1, y2 \\(reference.*\n  outside scd +y3 5\\.1[0-9]\n" ""
         solve index3-chain --method radau5)
  expect(0 "\"scd\": 7\\.8[0-9]*,.*\"scd_components\": \\[0, 1\\],[ \n]*\"component_digits\": \\[16, 7\\.8[0-9]*, 5\\.1[0-9]*\\]" ""
         solve index3-chain --method radau5 --json)
  expect(0 "\"scd\": null,.*\"scd_components\": \\[0, 1\\],[ \n]*\"component_digits\": null" ""
         solve index3-chain --method radau5 --t-end 0.5 --json)
  expect(0 "closest approach to the Moon.*Jacobi integral J: max \\|I - I\\(y0\\)\\| [0-9.e-]+ over the steps" "" solve moon)
  expect(0 "hits the Earth" "" solve moon-0.5 --method erk)
  expect(0 "leaves the Earth-Moon system" "" solve moon-stabilised-2.0)
  expect(0 "hits the Earth" "" solve moon-1.1)
  if(last_stdout MATCHES "closest approach")  # r2 >= 0.72 on this flight: no approach
    message(SEND_ERROR "daekit solve moon-1.1 reports an approach to the Moon:\n${last_stdout}")
  endif()
  expect(0 "\"first_integrals\": \\[[ \n]*\\{[ \n]*\"name\": \"Jacobi integral J\",[ \n]*\"max_drift\": [0-9]" "" solve moon-1.1 --json)
  expect(0 "z_s: valve clamped at 1" "" solve attemperator --full-report)

elseif(CASE STREQUAL "option_values")
  # An option's value is never another option: `--out --json` wrote a file named --json and
  # swallowed the flag. Every option with a value, with the value missing at the end of the
  # command line and with the next option in its place: exit 2 and a message naming both.
  set(solve_options --method --option --tableau --projection --formulation --rtol --atol --h0 --t-end
      --max-steps --linear-solver --controller --exclude-from-error --nonnegative --tstops --out --trace
      --plot)
  foreach(option ${solve_options})
    expect(2 "" "option ${option} of 'solve' needs a value \\(" solve vanderpol ${option})
    expect(2 "" "option ${option} needs [^\n]*, got '--json' \\(the next option: the value is missing\\)"
           solve vanderpol ${option} --json)
    expect(2 "" "option ${option} needs [^\n]*, got '--full-report'"
           solve vanderpol ${option} --full-report --json)
  endforeach()
  expect(2 "" "option --out needs a file name, got '--json'" solve vanderpol --out --json)
  expect(2 "" "option --trace needs a file name, got '--plot'" solve vanderpol --trace --plot x.png)
  foreach(option --params --values --first --count --method --option --rtol --atol --h0 --t-end
          --max-steps --linear-solver)
    expect(2 "" "option ${option} of 'sweep' needs a value \\(" sweep andrews ${option})
    expect(2 "" "option ${option} needs [^\n]*, got '--values'"
           sweep andrews ${option} --values 0.03)
  endforeach()
  expect(2 "" "option --outdir of 'demo' needs a value \\(a directory name\\)" demo --outdir)
  expect(2 "" "option --outdir needs a directory name, got '--x'" demo --outdir --x)
  # the --name=value form is explicit, but a file name starting with -- is refused all the same
  # (./--json names that file)
  expect(2 "" "option --out needs a file name, got '--json' \\(an option, not a name; write ./--json"
         solve vanderpol --out=--json)
  expect(2 "" "option --plot needs a file name, got '--x.png'" solve vanderpol --plot=--x.png)
  expect(2 "" "option --outdir needs a directory name, got '--d'" demo --outdir=--d)
  file(GLOB dashed "${WORK_DIR}/--*")
  if(dashed)
    message(SEND_ERROR "files named like options were written: ${dashed}")
  endif()
  # negative numbers and stdin's "-" are values, not options
  expect(0 "\"t_end\": -0.5," "" solve pendulum --t-end -0.5 --json)

  # --out, --trace and --plot naming the same file: one would overwrite the other (the trace
  # is written during the solve, the CSV after it): refused before anything is written
  expect(2 "" "--out and --trace name the same file \\('same.csv'\\): one would overwrite the other"
         solve vanderpol --out same.csv --trace same.csv)
  expect(2 "" "--out and --plot name the same file \\('x.png' and './x.png'\\)"
         solve vanderpol --out x.png --plot ./x.png)
  expect(2 "" "--trace and --plot name the same file" solve vanderpol --trace t.out
         --plot sub/../t.out)
  file(WRITE "${WORK_DIR}/kept.csv" "old")
  file(CREATE_LINK kept.csv "${WORK_DIR}/link.csv" SYMBOLIC)
  expect(2 "" "--out and --trace name the same file \\('kept.csv' and 'link.csv'\\)"
         solve vanderpol --out kept.csv --trace link.csv)
  file(READ "${WORK_DIR}/kept.csv" kept)
  check_equal("kept.csv after the refused run" "${kept}" "old")
  foreach(f same.csv x.png t.out)
    if(EXISTS "${WORK_DIR}/${f}")
      message(SEND_ERROR "${f} written by a refused run")
    endif()
  endforeach()
  # different files are fine
  expect(0 "\"trace_file\": \"t2.csv\"" "" solve vanderpol --out o2.csv --trace t2.csv --json)

else()
  message(FATAL_ERROR "test_cli_cases.cmake: unknown CASE '${CASE}'")
endif()
