/* Helpers for the runtime tests: the handmade kernel and modules, and
 * "scalar modules" whose exported function f() runs a bytecode body that
 * leaves an i64 in slots 0:1 and returns it as dim 1 of an empty
 * tensor<0x?xi8> view, so VM arithmetic is observable through the public
 * API without any kernel. Library kiln_rt_testkit. */
#ifndef KILN_RT_TESTKIT_H
#define KILN_RT_TESTKIT_H

#include "handmade.h"
#include "kiln/runtime.h"
#include "kiln/vm_bytecode.h"

/* The pool device, or local-sync in builds without it
 * (-DKILN_RUNTIME_LOCAL_TASK=OFF), so the tests run in every configuration. */
#ifndef KILN_TEST_LOCAL_TASK
#define KILN_TEST_LOCAL_TASK "local-task"
#endif

/* The kernel library bytes (read once, never freed). */
const uint8_t *rt_kernel(size_t *size);

/* The handmade module with options (defaults when o is NULL); free(). */
uint8_t *rt_handmade(const kiln_handmade_options_t *o, size_t *size);

/* Body emitter: slots 0..39 and refs are free; the result goes to 0:1. */
typedef void (*rt_body_fn)(kiln_vm_asm_t *a, void *user);

/* A module "scalar" with exported f() (body + epilogue) and, when
 * helper is non-NULL, a second function "g" with VM signature
 * helper_signature (scalar_count 40) for calls. Returns NULL when the
 * builder fails; free(). */
uint8_t *rt_scalar_module(rt_body_fn body, void *user, rt_body_fn helper,
                          const char *helper_signature, size_t *size);

/* A module whose exported f(tensor<4xf32>) -> tensor<8xf32> fills bytes
 * [0, fill_length) of a new 32-byte buffer with 1.0f, copies copy_length
 * bytes of the input there at byte 16, and returns the buffer as 8xf32
 * (the transfer commands of the HAL). free(). */
uint8_t *rt_transfer_module(int64_t fill_length, int64_t copy_length,
                            size_t *size);

/* A module whose exported f(a, b: tensor<?xf32>) -> (tensor<?xf32>,
 * tensor<0x?x?x?xi8>) runs the list imports (ONNX sequences):
 * l1 = insert(create(), a, 0), l2 = insert(l1, b, ins), l3 = erase(l2,
 * erase), and returns get(l3, get) and a view whose dims 1..3 are the
 * sizes of l1, l2 and l3 (which shows l1 and l2 unchanged). mode 1 calls
 * get on view a instead of a list, mode 2 returns l2 as output 0.
 * free(). */
uint8_t *rt_list_module(int64_t ins, int64_t erase, int64_t get, int mode,
                        size_t *size);

/* A module whose exported f(s: seq<tensor<?xf32>>, v: tensor<?xf32>) ->
 * (seq<tensor<?xf32>>, tensor<?xf32>) returns s with v appended and
 * element 0 of that (sequences at the call boundary). free(). */
uint8_t *rt_sequence_module(size_t *size);

/* Loads bytes, calls f on local-sync (buffers up to 256 MiB, at most 10^6
 * backward branches + calls); on success stores the i64 in *out
 * and returns NULL, else the status. */
kiln_status_t rt_run_scalar(const uint8_t *module, size_t size, int64_t *out);

#endif /* KILN_RT_TESTKIT_H */
