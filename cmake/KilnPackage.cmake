# Installing Kiln: `cmake --install BUILD --prefix P` puts into P
#   bin/                 the tools
#   include/kiln/        runtime.h, compiler.h, version.h
#   lib/libkiln_runtime.a   every runtime component in one archive
#   lib/libkiln_runtime.so  the same as a shared library (public API only)
#   lib/libkiln_compiler.so the compiler behind kiln/compiler.h
#   lib/cmake/Kiln/      KilnConfig.cmake (+ version file): Kiln::runtime,
#                        Kiln::runtime_shared, Kiln::compiler
#   lib/pkgconfig/       kiln-runtime.pc (--static: the static link line),
#                        kiln-compiler.pc
# The packaged libraries are made of the object files the build already
# has (the components kiln_runtime and kiln_compiler_api link, found by
# walking their link libraries), so nothing is compiled twice and a new
# component is packaged without an edit here. Included last by the
# top-level CMakeLists.txt, when every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_PACKAGE_DIR ${PROJECT_BINARY_DIR}/package)

# kiln_package_walk(TARGET LIBS_VAR EXTERNAL_VAR): the Kiln static
# libraries TARGET links, recursively and TARGET first, and what else they
# link (imported targets, INTERFACE libraries' link items, plain names).
function(kiln_package_walk target libs_var ext_var)
  set(todo ${target})
  set(libs)
  set(ext)
  while(todo)
    list(POP_FRONT todo t)
    if(t IN_LIST libs)
      continue()
    endif()
    list(APPEND libs ${t})
    set(deps)
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(d ${t} ${prop})
      if(d)
        list(APPEND deps ${d})
      endif()
    endforeach()
    foreach(d ${deps})
      # Unwrap the generator expressions Kiln's CMake files use.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" d "${d}")
      string(REGEX REPLACE "^\\$<\\$<TARGET_EXISTS:([^>]*)>:.*>$" "\\1" d "${d}")
      if(d MATCHES "^\\$<")
        message(FATAL_ERROR "KilnPackage: cannot package ${t}'s link item ${d}")
      elseif(TARGET ${d})
        get_target_property(type ${d} TYPE)
        get_target_property(imported ${d} IMPORTED)
        if(NOT imported AND type STREQUAL "STATIC_LIBRARY")
          list(APPEND todo ${d})
        elseif(NOT imported AND type STREQUAL "INTERFACE_LIBRARY")
          get_target_property(items ${d} INTERFACE_LINK_LIBRARIES)
          if(items)
            list(APPEND ext ${items})
          endif()
        else()
          list(APPEND ext ${d})
        endif()
      elseif(d)
        list(APPEND ext ${d})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES ext)
  set(${libs_var} ${libs} PARENT_SCOPE)
  set(${ext_var} ${ext} PARENT_SCOPE)
endfunction()

# kiln_package_libs(EXTERNAL OUT_VAR): EXTERNAL as -l flags for .pc files
# and installed CMake targets. A dependency this list does not know is an
# error, so a new one cannot be left out of the installed link lines.
function(kiln_package_libs ext out_var)
  set(flags)
  foreach(e ${ext})
    if(e STREQUAL "PkgConfig::ZSTD")
      list(APPEND flags -lzstd)
    elseif(e STREQUAL "Threads::Threads")
      list(APPEND flags -lpthread)
    elseif(e STREQUAL "PkgConfig::PROTOBUF_C")
      list(APPEND flags -lprotobuf-c)
    elseif(e MATCHES "^(dl|m|pthread)$")
      list(APPEND flags -l${e})
    elseif(e MATCHES "/libLLVM[^/]*\\.so$")
      list(APPEND flags -L${LLVM_LIBRARY_DIR} -lLLVM)
    else()
      message(FATAL_ERROR "KilnPackage: no link flag known for ${e}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES flags)
  set(${out_var} ${flags} PARENT_SCOPE)
endfunction()

# kiln_package_objects(LIBS OUT_VAR): their object files, for new targets.
function(kiln_package_objects libs out_var)
  set(objs)
  foreach(l ${libs})
    set_target_properties(${l} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND objs $<TARGET_OBJECTS:${l}>)
  endforeach()
  set(${out_var} ${objs} PARENT_SCOPE)
endfunction()

# A shared library must resolve everything it uses itself, except in
# sanitizer and fuzzer builds, whose runtime the executable brings.
set(KILN_PACKAGE_NO_UNDEFINED)
if(NOT KILN_SANITIZE AND NOT KILN_FUZZ)
  set(KILN_PACKAGE_NO_UNDEFINED -Wl,--no-undefined)
endif()

# ---- the runtime
kiln_package_walk(kiln_runtime runtime_libs runtime_ext)
kiln_package_objects("${runtime_libs}" runtime_objs)
kiln_package_libs("${runtime_ext}" KILN_RUNTIME_LINK_FLAGS)

add_library(kiln_runtime_package STATIC ${runtime_objs})
set_target_properties(kiln_runtime_package PROPERTIES OUTPUT_NAME kiln_runtime
  ARCHIVE_OUTPUT_DIRECTORY ${KILN_PACKAGE_DIR})

# The shared runtime exports exactly the functions runtime.h declares.
file(STRINGS ${PROJECT_SOURCE_DIR}/runtime-min/include/kiln/runtime.h decls
     REGEX "^([a-z_][a-z0-9_ *]*[ *])?kiln_[a-z0-9_]+\\(")
set(runtime_api)
foreach(line ${decls})
  string(REGEX MATCH "kiln_[a-z0-9_]+\\(" name "${line}")
  string(REPLACE "(" ";" name "${name}")
  list(APPEND runtime_api ${name})
endforeach()
list(REMOVE_DUPLICATES runtime_api)
list(JOIN runtime_api ";\n    " runtime_api)
file(CONFIGURE OUTPUT ${KILN_PACKAGE_DIR}/kiln_runtime.map CONTENT
"/* Generated by cmake/KilnPackage.cmake from runtime.h. */
{
  global:
    @runtime_api@;
  local: *;
};
" @ONLY)
add_library(kiln_runtime_shared SHARED ${runtime_objs})
set_target_properties(kiln_runtime_shared PROPERTIES OUTPUT_NAME kiln_runtime
  LIBRARY_OUTPUT_DIRECTORY ${KILN_PACKAGE_DIR}
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINK_DEPENDS ${KILN_PACKAGE_DIR}/kiln_runtime.map)
target_link_libraries(kiln_runtime_shared PRIVATE ${runtime_ext})
target_link_options(kiln_runtime_shared PRIVATE
  -Wl,--version-script=${KILN_PACKAGE_DIR}/kiln_runtime.map ${KILN_PACKAGE_NO_UNDEFINED})

# ---- the compiler (shared only: it links LLVM, protobuf-c and zstd)
kiln_package_walk(kiln_compiler_api compiler_libs compiler_ext)
kiln_package_objects("${compiler_libs}" compiler_objs)
kiln_package_libs("${compiler_ext}" KILN_COMPILER_LINK_FLAGS)
file(WRITE ${KILN_PACKAGE_DIR}/kiln_compiler.map
"/* Written by cmake/KilnPackage.cmake: kiln/compiler.h's functions. */
{
  global:
    kiln_compiler_*;
  local: *;
};
")
add_library(kiln_compiler_shared SHARED ${compiler_objs})
set_target_properties(kiln_compiler_shared PROPERTIES OUTPUT_NAME kiln_compiler
  LIBRARY_OUTPUT_DIRECTORY ${KILN_PACKAGE_DIR}
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINK_DEPENDS ${KILN_PACKAGE_DIR}/kiln_compiler.map)
target_link_libraries(kiln_compiler_shared PRIVATE ${compiler_ext})
target_link_options(kiln_compiler_shared PRIVATE
  -Wl,--version-script=${KILN_PACKAGE_DIR}/kiln_compiler.map ${KILN_PACKAGE_NO_UNDEFINED})

# ---- install rules
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH TRUE)
foreach(tool kiln-compile kiln-run kiln-bench kiln-dump kiln-opt kiln-translate
        kiln-onnx-info kiln-onnx-import)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(TARGETS kiln_runtime_package kiln_runtime_shared kiln_compiler_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/runtime-min/include/kiln/runtime.h
              ${PROJECT_SOURCE_DIR}/compiler/include/kiln/compiler.h
              ${KILN_GENERATED_DIR}/include/kiln/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)

list(JOIN KILN_RUNTIME_LINK_FLAGS " " KILN_RUNTIME_LIBS_PRIVATE)
list(JOIN KILN_COMPILER_LINK_FLAGS " " KILN_COMPILER_LIBS_PRIVATE)
set(KILN_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${KILN_PACKAGE_DIR}/KilnConfig.cmake INSTALL_DESTINATION ${KILN_CONFIG_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${KILN_PACKAGE_DIR}/KilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${KILN_PACKAGE_DIR}/KilnConfig.cmake ${KILN_PACKAGE_DIR}/KilnConfigVersion.cmake
        DESTINATION ${KILN_CONFIG_DIR})
# .pc files find the prefix from where they lie (${pcfiledir}), so an
# install with --prefix elsewhere still points at itself.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "KilnPackage: CMAKE_INSTALL_LIBDIR must be relative to the prefix")
endif()
string(REGEX REPLACE "[^/]+" ".." KILN_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
foreach(pc kiln-runtime kiln-compiler)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${KILN_PACKAGE_DIR}/${pc}.pc @ONLY)
  install(FILES ${KILN_PACKAGE_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
