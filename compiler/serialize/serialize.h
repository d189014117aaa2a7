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
 * target with its payload, zstd-compressed when that pays. The same IR and
 * session give the same bytes. Anything missing (a payload, an export
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

/* The module bytes in one malloc'ed buffer (free() it). */
kiln_error *kiln_serialize_module(kiln_op *module, kiln_session *session,
                                  uint8_t **data, size_t *size);
/* The same, written to path. */
kiln_error *kiln_serialize_to_file(kiln_op *module, kiln_session *session,
                                   const char *path);

#ifdef __cplusplus
}
#endif
#endif /* KILN_SERIALIZE_H */
