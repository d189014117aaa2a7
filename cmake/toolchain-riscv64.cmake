# Cross-compiling for 64-bit RISC-V Linux (RV64GC) with Debian's cross
# compiler (gcc-riscv64-linux-gnu). Debian 12 has no riscv64 port in its
# archive, so no target libzstd: build the runtime with
# KILN_RUNTIME_ZSTD=OFF (kiln-compile --compression=none writes modules for
# it; its default already stores CPU code uncompressed). Programs run here
# under qemu-riscv64-static. Used by scripts/cross-build.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(KILN_CROSS_TRIPLE riscv64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
