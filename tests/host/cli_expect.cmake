# Runs a command-line tool (tessel-layout, tessel-prof) once and checks its exit status, its
# output and the file it wrote.
#   cmake -DEXE=<tool> -DARGS="--a=1|--b=2" -DRC=<status>
#         [-DOUT=<regex on stdout>] [-DERR=<regex on stderr>]
#         [-DFILE=<path that must be written> [-DFILE_MATCHES=<regex on its content>]]
#         [-DSTDOUT_FILE=<where stdout goes instead of OUT, e.g. /dev/full>]
#         -P cli_expect.cmake
# Arguments are separated by '|' so that globs, commas and semicolons pass through unchanged.
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED FILE)
  file(REMOVE "${FILE}")
endif()
if(DEFINED STDOUT_FILE)
  execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_FILE "${STDOUT_FILE}" ERROR_VARIABLE err)
  set(out "")
else()
  execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED OUT AND NOT out MATCHES "${OUT}")
  message(FATAL_ERROR "stdout does not match '${OUT}':\n${out}")
endif()
if(DEFINED ERR AND NOT err MATCHES "${ERR}")
  message(FATAL_ERROR "stderr does not match '${ERR}':\n${err}")
endif()
if(DEFINED FILE)
  if(NOT EXISTS "${FILE}")
    message(FATAL_ERROR "${FILE} was not written\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(DEFINED FILE_MATCHES)
    file(READ "${FILE}" content)
    if(NOT content MATCHES "${FILE_MATCHES}")
      message(FATAL_ERROR "${FILE} does not match '${FILE_MATCHES}':\n${content}")
    endif()
  endif()
endif()
message(STATUS "ok: ${EXE} ${args}")
