# What the toolchain-ARCH.cmake files share: Debian's KILN_CROSS_TRIPLE-gcc
# (C only: a runtime-only build enables no C++), target libraries from the
# target's multiarch folder or /usr/TRIPLE (never the host's), programs
# from the host, and QEMU user mode as the emulator of target programs.
set(CMAKE_C_COMPILER ${KILN_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${KILN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${KILN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${CMAKE_SYSTEM_PROCESSOR}-static
    -L /usr/${KILN_CROSS_TRIPLE})
