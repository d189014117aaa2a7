# Cross-compiling for 64-bit Arm Linux with Debian's cross compiler
# (gcc-aarch64-linux-gnu). Target libraries come from Debian multiarch
# (/usr/lib/aarch64-linux-gnu, e.g. libzstd-dev:arm64); programs run here
# under qemu-aarch64-static. Used by scripts/cross-build.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(KILN_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
