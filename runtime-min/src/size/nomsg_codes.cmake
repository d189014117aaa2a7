# Script behind the runtime.nomsg_codes test (see CMakeLists.txt here).
# In: SRC, BIN (the runtime-size tree, where runtime.size_budget built the
# KILN_MESSAGES=OFF runtime in host_nomsg/) and CC. Links
# tests/unit/runtime/nomsg_codes.c against that runtime and runs it: the
# test fails unless every failure there keeps its status code.
set(bin ${BIN}/host_nomsg)
set(main ${bin}/runtime-min/libkiln_runtime.a)
if(NOT EXISTS ${main})
  message(FATAL_ERROR "runtime.nomsg_codes: ${main} is missing (runtime.size_budget builds it)")
endif()
file(GLOB_RECURSE archives ${bin}/*.a)
list(REMOVE_ITEM archives ${main})
set(exe ${bin}/nomsg_codes)
execute_process(
  COMMAND ${CC} -std=c17 -I${SRC}/runtime-min/include -I${SRC}/format/include
          -I${SRC}/runtime-min/src/elf -I${SRC}/runtime-min/src/cpu
          ${SRC}/tests/unit/runtime/nomsg_codes.c ${main} ${archives} ${main}
          -lpthread -lm -ldl -o ${exe}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "runtime.nomsg_codes: linking failed:\n${err}")
endif()
execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "runtime.nomsg_codes: a failure lost its status code")
endif()
