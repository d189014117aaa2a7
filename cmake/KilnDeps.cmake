# External components Kiln builds on, all from Debian's archive
# (scripts/bootstrap.sh installs them).
find_package(Threads REQUIRED)
# Also runtime-only builds run it: it compresses the message formats
# (kiln_message_words in KilnHelpers.cmake).
find_program(KILN_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)

# A runtime-only build (often for another architecture) needs libzstd for
# that target and nothing else. The static archive is preferred, so the
# device's programs carry it; the header is architecture-independent.
if(KILN_RUNTIME_ONLY)
  if(KILN_RUNTIME_ZSTD)
    find_path(KILN_ZSTD_INCLUDE_DIR zstd.h)
    find_library(KILN_ZSTD_LIBRARY NAMES libzstd.a zstd)
    if(NOT KILN_ZSTD_INCLUDE_DIR OR NOT KILN_ZSTD_LIBRARY)
      message(FATAL_ERROR "KILN_RUNTIME_ZSTD needs libzstd for ${CMAKE_SYSTEM_PROCESSOR} "
                          "(Debian: libzstd-dev:ARCH); or configure with -DKILN_RUNTIME_ZSTD=OFF")
    endif()
    add_library(PkgConfig::ZSTD UNKNOWN IMPORTED)
    set_target_properties(PkgConfig::ZSTD PROPERTIES IMPORTED_LOCATION ${KILN_ZSTD_LIBRARY}
                          INTERFACE_INCLUDE_DIRECTORIES ${KILN_ZSTD_INCLUDE_DIR})
  endif()
  return()
endif()

find_package(PkgConfig REQUIRED)

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)
pkg_check_modules(PROTOBUF_C IMPORTED_TARGET libprotobuf-c)

find_package(LLVM REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
set(KILN_LLVM_BIN ${LLVM_TOOLS_BINARY_DIR})

find_program(KILN_LLD NAMES ld.lld-19 ld.lld HINTS ${KILN_LLVM_BIN} REQUIRED)
find_program(KILN_CLANG NAMES clang-19 clang HINTS ${KILN_LLVM_BIN} REQUIRED)
find_program(KILN_FILECHECK NAMES FileCheck-19 FileCheck HINTS ${KILN_LLVM_BIN} REQUIRED)
find_program(KILN_NOT NAMES not HINTS ${KILN_LLVM_BIN})
find_program(KILN_FLATC NAMES flatc REQUIRED)
find_program(KILN_MLIR_OPT NAMES mlir-opt-19 mlir-opt HINTS ${KILN_LLVM_BIN})
find_program(KILN_PTXAS NAMES ptxas HINTS /usr/local/cuda/bin)
find_program(KILN_VALGRIND NAMES valgrind)

# LLVM as one imported target for the compiler stages that link it.
add_library(kiln_llvm INTERFACE)
target_include_directories(kiln_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(kiln_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(kiln_llvm INTERFACE ${LLVM_LIBRARY_DIR}/libLLVM.so)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "Kiln needs LLVM 19, found ${LLVM_PACKAGE_VERSION}")
endif()
