# Script behind the runtime-size target (see CMakeLists.txt here).
# In: SRC BIN GENERATOR CC CXX LLD NM STRIP SIZE BUDGET, and ENFORCE (the
# runtime.size_budget test sets it: then over budget is an error).
# Out: one line "runtime-min ...: N bytes ... budget BUDGET" on stdout.
#
# What is measured: the runtime as an embedder links it. The smallest
# configuration is built MinSizeRel with function/data sections and no
# unwind tables; lld then links, with --gc-sections, every section the
# runtime's exported kiln_ functions reach (no libc: it belongs to the
# platform), and the stripped result's file size is reported.
set(flags "-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime-size: '${ARGN}' failed:\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_C_FLAGS=${flags}"
    -DKILN_RUNTIME_LOCAL_TASK=OFF -DKILN_RUNTIME_CUDA=OFF
    -DKILN_RUNTIME_ZSTD=OFF -DKILN_RUNTIME_PROFILE=OFF
    -DKILN_RUNTIME_TRANSFERS=OFF -DKILN_SANITIZE=OFF -DKILN_FUZZ=OFF)

# Only the archives this build produces must be counted: drop old ones.
file(GLOB_RECURSE old ${BIN}/*.a)
if(old)
  file(REMOVE ${old})
endif()
run(${CMAKE_COMMAND} --build ${BIN} --target kiln_runtime --parallel 2)
file(GLOB_RECURSE archives ${BIN}/*.a)
set(main ${BIN}/runtime-min/libkiln_runtime.a)
list(REMOVE_ITEM archives ${main})

# Roots: every kiln_ function or object libkiln_runtime.a defines.
run(${NM} -g --defined-only --format=posix ${main})
string(REGEX MATCHALL "(^|\n)kiln_[A-Za-z0-9_]+ [TDRB]" defs "${run_out}")
set(roots)
foreach(d ${defs})
  string(REGEX REPLACE "^\n?([A-Za-z0-9_]+) .*" "\\1" name "${d}")
  list(APPEND roots --undefined=${name})
endforeach()
list(REMOVE_DUPLICATES roots)

set(out ${BIN}/kiln_runtime_min.elf)
run(${LLD} -static -nostdlib --gc-sections --unresolved-symbols=ignore-all
    -e 0 ${roots} ${main} ${archives} -o ${out})
run(${STRIP} --strip-all -R .comment ${out} -o ${out}.stripped)
file(SIZE ${out}.stripped bytes)

# Breakdown by kind of section, for whoever has to cut.
run(${SIZE} -A ${out}.stripped)
set(code 0)
set(rodata 0)
set(data 0)
string(REPLACE "\n" ";" lines "${run_out}")
foreach(l ${lines})
  if(l MATCHES "^(\\.[A-Za-z0-9_.]+) +([0-9]+)")
    set(s ${CMAKE_MATCH_1})
    set(n ${CMAKE_MATCH_2})
    if(s MATCHES "^\\.text")
      math(EXPR code "${code} + ${n}")
    elseif(s MATCHES "^\\.rodata|^\\.eh_frame")
      math(EXPR rodata "${rodata} + ${n}")
    elseif(s MATCHES "^\\.data|^\\.bss|^\\.got")
      math(EXPR data "${data} + ${n}")
    endif()
  endif()
endforeach()
list(LENGTH archives nlibs)
math(EXPR nlibs "${nlibs} + 1")
math(EXPR margin "${BUDGET} - ${bytes}")
if(margin LESS 0)
  math(EXPR over "0 - ${margin}")
  set(verdict "OVER budget by ${over} bytes")
else()
  set(verdict "${margin} bytes under budget")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E echo
  "runtime-min smallest configuration (local-sync + VM + loader + ELF loader; no local-task, CUDA, zstd, dispatch observers, copy/fill transfers; ${nlibs} libraries, MinSizeRel, gc-sections from the kiln_ API, libc not counted): ${bytes} bytes stripped (code ${code}, read-only data ${rodata}, writable data ${data}) budget ${BUDGET}: ${verdict}")
if(ENFORCE AND margin LESS 0)
  message(FATAL_ERROR "runtime-min is ${over} bytes over its ${BUDGET}-byte "
          "budget (see the line above for where the bytes are)")
endif()
