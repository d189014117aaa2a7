# runtime-min's build options, read by the top-level CMakeLists.txt before
# cmake/KilnDeps.cmake and format/ (both test KILN_RUNTIME_ZSTD, format/ the
# CUDA, profile and sequence options too) and again by runtime-min/; it
# only declares options, so reading it twice changes nothing.
option(KILN_RUNTIME_LOCAL_TASK "runtime-min: the local-task device (thread pool)" ON)
option(KILN_RUNTIME_CUDA "runtime-min: the cuda device (dlopen libcuda.so.1)" ON)
option(KILN_RUNTIME_ZSTD "runtime-min: zstd-compressed executables" ON)
option(KILN_RUNTIME_PROFILE "runtime-min: dispatch observers (kiln_device_options_t.dispatch_observer)" ON)
option(KILN_RUNTIME_TEXT "runtime-min: str tensors and the hal.text.convert import (ONNX string ops)" ON)
option(KILN_RUNTIME_SHAPE_DATA "runtime-min: hal.buffer_view.load and hal.check.shape (shapes read from tensor data)" ON)
option(KILN_RUNTIME_SEQUENCES "runtime-min: hal.list.* imports (ONNX sequences whose elements differ in shape)" ON)
option(KILN_RUNTIME_TRANSFERS "runtime-min: hal.command_buffer.copy/fill imports (kiln-compile uses copy for host loops' scan outputs)" ON)
option(KILN_RUNTIME_HUGE_PAGES "runtime-min: transparent huge pages for big pool blocks and mapped modules (madvise hints; OFF: plain memset)" ON)
