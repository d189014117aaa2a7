/* The HAL native module's command-buffer half, shared between the natives
 * (hal_module.c) and the recorder (command_buffer.c). */
#ifndef KRT_HAL_INTERNAL_H
#define KRT_HAL_INTERNAL_H

#include "runtime_internal.h"

kiln_status_t krt_command_buffer_create(krt_call_t *call,
                                        krt_command_buffer_t **out);
/* pcs: pc_count i32 values; binds: bind_count (ref, i64, i64) triples. */
kiln_status_t krt_command_buffer_dispatch(
    krt_call_t *call, krt_command_buffer_t *cb, uint32_t executable,
    uint32_t export_ordinal, const int32_t count[3], uint32_t pc_count,
    const krt_value_t *pcs, uint32_t bind_count, const krt_value_t *binds);
kiln_status_t krt_command_buffer_copy(krt_call_t *call,
                                      krt_command_buffer_t *cb,
                                      const krt_value_t *args);
kiln_status_t krt_command_buffer_fill(krt_call_t *call,
                                      krt_command_buffer_t *cb,
                                      const krt_value_t *args);
kiln_status_t krt_command_buffer_barrier(krt_call_t *call,
                                         krt_command_buffer_t *cb);
kiln_status_t krt_command_buffer_execute(krt_call_t *call,
                                         krt_command_buffer_t *cb);

/* hal.text.convert (text.c): the text ops of kiln/text_ops.h. */
kiln_status_t krt_text_convert(krt_call_t *call, const krt_value_t *args,
                               uint32_t n, krt_value_t *results);

/* hal.list.* (list.c): ONNX sequences. */
#define KRT_NATIVE(name)                                                  \
  kiln_status_t name(krt_call_t *call, const krt_value_t *args, uint32_t n, \
                     krt_value_t *results)
KRT_NATIVE(krt_list_create);
KRT_NATIVE(krt_list_size);
KRT_NATIVE(krt_list_get);
KRT_NATIVE(krt_list_insert);
KRT_NATIVE(krt_list_erase);
#undef KRT_NATIVE

#endif /* KRT_HAL_INTERNAL_H */
