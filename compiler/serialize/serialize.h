/* serialize: the last stage — one .kiln module from the IR and the
 * session.
 *
 * Takes: a module after the vm stage (vm.funcs with registers, the
 * hal.executable ops with their variants and exports) and the session
 * (rodata blobs, one payload per executable variant). Guarantees: through
 * the format builder (format/include/kiln/module_builder.h) a module with
 * every vm.func (name, exported = public, tensor signature from
 * kiln.signature, bytecode, register counts, VM signature, source
 * locations), the HAL imports in first-use order, the session's rodata in
 * index order, every hal.executable in module order (the ordinals
 * convert-to-vm used) with its exports by ordinal (workgroup size,
 * bindings and read-only flags, push-constant count) and one variant per
 * target with its payload (by default PTX zstd-compressed when that
 * pays, CPU ELF uncompressed so the runtime maps it without
 * decompressing; the session's compression option stores none or all of
 * them compressed instead); cuda variants
 * carry per-export launch metadata (block from the export's
 * kiln.block_size or the kernel's kiln.launch block_size, static and
 * dynamic shared memory bytes from kiln.static_shared_memory_bytes /
 * kiln.dynamic_shared_memory_bytes) and every variant the LLVM version
 * that generated it; the producer record holds the compiler's version
 * and source revision, the session's flags and the input's base name and
 * SHA-256. The same IR and session give the
 * same bytes, in memory or streamed. Anything missing (a payload, an export
 * attribute) is an error naming the executable, variant or function. */
#ifndef KILN_SERIALIZE_H
#define KILN_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module bytes in one malloc'ed buffer (free() it). Every weight is
 * copied into that buffer: use the streaming forms for real models. */
kiln_error *kiln_serialize_module(kiln_op *module, kiln_session *session,
                                  uint8_t **data, size_t *size);
/* The same bytes streamed to a file (created or truncated; removed again
 * on failure) or to an open descriptor (written at its position, left
 * open): the FlatBuffer, then each segment straight from where it lives,
 * so initializers (session rodata, hal.rodata values) are never copied
 * on their way into the module. */
kiln_error *kiln_serialize_module_to_file(kiln_op *module, kiln_session *session,
                                          const char *path);
kiln_error *kiln_serialize_module_to_fd(kiln_op *module, kiln_session *session, int fd);
/* Older name of kiln_serialize_module_to_file (same streaming writer). */
kiln_error *kiln_serialize_to_file(kiln_op *module, kiln_session *session,
                                   const char *path);

#ifdef __cplusplus
}
#endif
#endif /* KILN_SERIALIZE_H */
