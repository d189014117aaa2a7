# Script behind the runtime.runtime_only_configure test. In: SRC BIN
# GENERATOR CC. Configures runtime-only trees the way a user first does,
# with only KILN_RUNTIME_ONLY (and KILN_MESSAGES) given and every runtime
# option at its default, and fails when the configure fails or a link line
# names a Kiln library as -lkiln_...: the sign of a target used before the
# folder that makes it saw the option that enables it (how kiln-run once
# failed to link with "cannot find -lkiln_format_zstd"). Configure only,
# so it costs seconds; the link lines are what would break.
foreach(messages ON OFF)
  set(bin ${BIN}/messages-${messages})
  file(REMOVE_RECURSE ${bin})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${bin} -G ${GENERATOR}
            -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release
            -DKILN_RUNTIME_ONLY=ON -DKILN_MESSAGES=${messages}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime-only configure (KILN_MESSAGES=${messages}) failed:\n${out}\n${err}")
  endif()
  file(GLOB_RECURSE link_files ${bin}/build.ninja ${bin}/link.txt)
  if(NOT link_files)
    message(FATAL_ERROR "runtime-only configure (KILN_MESSAGES=${messages}): no build.ninja or link.txt under ${bin}")
  endif()
  foreach(f ${link_files})
    file(STRINGS ${f} bad REGEX "-lkiln_[A-Za-z0-9_]+")
    if(bad)
      string(REGEX MATCH "-lkiln_[A-Za-z0-9_]+" lib "${bad}")
      message(FATAL_ERROR "runtime-only configure (KILN_MESSAGES=${messages}): ${f} links "
                          "${lib}, a Kiln target not defined where it is used")
    endif()
  endforeach()
  message(STATUS "runtime-only configure (KILN_MESSAGES=${messages}): link lines name only built archives")
endforeach()
