# Script behind the runtime-size target (see CMakeLists.txt here).
# In: SRC BIN GENERATOR CC LLD NM STRIP SIZE, BUDGET (x86-64 with
# messages), BUDGET_NOMSG (x86-64 without), and ENFORCE (the
# runtime.size_budget test sets it: then over budget is an error).
# Out: one line per configuration on stdout, the host's with-messages
# figure first: "runtime-min ARCH ...: N bytes stripped (...)".
#
# What is measured: the runtime as an embedder links it. The smallest
# configuration is built MinSizeRel (the runtime-side libraries add
# function/data sections and -Oz themselves: kiln_runtime_defaults), runtime
# side only, without unwind tables; lld then links, with
# --gc-sections, every section the runtime's exported kiln_ functions
# reach (no libc: it belongs to the platform), and the stripped result's
# file size is reported. The same sources are measured four ways: the
# host compiler with and without message text (KILN_MESSAGES=OFF), and
# Debian's aarch64 and riscv64 cross compilers with messages (reported,
# not budgeted: skipped with a reason when the cross compiler is absent).
set(flags "-fno-asynchronous-unwind-tables -fno-unwind-tables")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime-size: '${ARGN}' failed:\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

# measure(NAME ARCH MESSAGES TOOLCHAIN BUDGET): builds, links and prints one
# configuration; sets over_NAME to the bytes over BUDGET (0 when none).
function(measure name arch messages toolchain budget)
  set(bin ${BIN}/${name})
  set(compiler -DCMAKE_C_COMPILER=${CC})
  if(toolchain)
    set(compiler -DCMAKE_TOOLCHAIN_FILE=${SRC}/cmake/toolchain-${arch}.cmake)
  endif()
  run(${CMAKE_COMMAND} -S ${SRC} -B ${bin} -G ${GENERATOR} ${compiler}
      -DCMAKE_BUILD_TYPE=MinSizeRel "-DCMAKE_C_FLAGS=${flags}"
      -DKILN_RUNTIME_ONLY=ON -DKILN_MESSAGES=${messages}
      -DKILN_RUNTIME_LOCAL_TASK=OFF -DKILN_RUNTIME_CUDA=OFF
      -DKILN_RUNTIME_ZSTD=OFF -DKILN_RUNTIME_PROFILE=OFF
      -DKILN_RUNTIME_TRANSFERS=OFF -DKILN_RUNTIME_HUGE_PAGES=OFF -DKILN_RUNTIME_TEXT=OFF -DKILN_RUNTIME_SHAPE_DATA=OFF -DKILN_RUNTIME_SEQUENCES=OFF -DKILN_SANITIZE=OFF -DKILN_FUZZ=OFF)

  # Only the archives this build produces must be counted: drop old ones.
  file(GLOB_RECURSE old ${bin}/*.a)
  if(old)
    file(REMOVE ${old})
  endif()
  run(${CMAKE_COMMAND} --build ${bin} --target kiln_runtime --parallel 2)
  file(GLOB_RECURSE archives ${bin}/*.a)
  set(main ${bin}/runtime-min/libkiln_runtime.a)
  list(REMOVE_ITEM archives ${main})

  # Roots: every kiln_ function or object libkiln_runtime.a defines.
  run(${NM} -g --defined-only --format=posix ${main})
  string(REGEX MATCHALL "(^|\n)kiln_[A-Za-z0-9_]+ [TDRB]" defs "${run_out}")
  set(roots)
  foreach(d ${defs})
    string(REGEX REPLACE "^\n?([A-Za-z0-9_]+) .*" "\\1" sym "${d}")
    list(APPEND roots --undefined=${sym})
  endforeach()
  list(REMOVE_DUPLICATES roots)

  set(out ${bin}/kiln_runtime_min.elf)
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
      elseif(s MATCHES "^\\.rodata|^\\.srodata|^\\.eh_frame")
        math(EXPR rodata "${rodata} + ${n}")
      elseif(s MATCHES "^\\.data|^\\.sdata|^\\.bss|^\\.sbss|^\\.got")
        math(EXPR data "${data} + ${n}")
      endif()
    endif()
  endforeach()
  if(messages)
    set(what "with messages")
  else()
    set(what "without message text (KILN_MESSAGES=OFF)")
  endif()
  set(over 0)
  if(budget)
    math(EXPR margin "${budget} - ${bytes}")
    if(margin LESS 0)
      math(EXPR over "0 - ${margin}")
      set(verdict ", budget ${budget}: OVER by ${over} bytes")
    else()
      set(verdict ", budget ${budget}: ${margin} bytes under")
    endif()
  else()
    set(verdict " (reported, no budget)")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo
    "runtime-min ${arch} ${what}: ${bytes} bytes stripped (code ${code}, read-only data ${rodata}, writable data ${data})${verdict}")

  # The largest functions and objects (string literals, which have no
  # symbol, are in the read-only figure above), so the next cut starts
  # from a measurement.
  run(${NM} --defined-only --size-sort --reverse-sort -S --radix=d ${out})
  string(REPLACE "\n" ";" lines "${run_out}")
  set(largest)
  set(shown 0)
  foreach(l ${lines})
    if(shown LESS 10 AND l MATCHES "^[0-9]+ 0*([0-9]+) [A-Za-z] ([A-Za-z0-9_.]+)$")
      list(APPEND largest "${CMAKE_MATCH_2} ${CMAKE_MATCH_1}")
      math(EXPR shown "${shown} + 1")
    endif()
  endforeach()
  string(REPLACE ";" ", " largest "${largest}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "  largest: ${largest}")
  set(over_${name} ${over} PARENT_SCOPE)
endfunction()

cmake_host_system_information(RESULT host QUERY OS_PLATFORM)
execute_process(COMMAND ${CMAKE_COMMAND} -E echo
  "runtime-min smallest configuration: local-sync + VM + loader + ELF loader; no local-task, CUDA, zstd, dispatch observers, copy/fill transfers, huge-page hints; MinSizeRel, gc-sections from the kiln_ API, libc not counted")
measure(host ${host} ON "" ${BUDGET})
measure(host_nomsg ${host} OFF "" ${BUDGET_NOMSG})
foreach(arch aarch64 riscv64)
  if(host STREQUAL arch)
    continue()
  endif()
  find_program(cross_cc_${arch} ${arch}-linux-gnu-gcc)
  if(cross_cc_${arch})
    measure(${arch} ${arch} ON ON "")
  else()
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo
      "runtime-min ${arch}: skipped, ${arch}-linux-gnu-gcc not found (scripts/bootstrap.sh with KILN_BOOTSTRAP_EXTRA=cross installs it)")
  endif()
endforeach()

if(ENFORCE AND (over_host GREATER 0 OR over_host_nomsg GREATER 0))
  message(FATAL_ERROR "runtime-min is over its budget (see the lines above "
          "for which configuration and where the bytes are)")
endif()
