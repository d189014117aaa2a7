/* make_vm_seeds DIR: writes seed inputs for fuzz_vm_exec (a signature
 * byte, then bytecode): the handmade host function's instruction mix in
 * small valid programs, so the fuzzer starts from verified code. */
#include <stdio.h>
#include <string.h>

#include "kiln/vm_bytecode.h"

#define LIST(...) \
  (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}
#define NONE 0, (const int *)NULL

static int write_seed(const char *dir, const char *name, uint8_t sig,
                      kiln_vm_asm_t *a) {
  if (kiln_vm_asm_finish(a)) return 1;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  fputc(sig, f);
  fwrite(a->code, 1, a->size, f);
  fclose(f);
  kiln_vm_asm_free(a);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  int rc = 0;
  kiln_vm_asm_t a;
  /* Full path: allocate, dispatch the kernel, return a view. */
  kiln_vm_asm_init(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)16);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 3, LIST(0), LIST(3));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 3, LIST(1), LIST(4));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 9, NONE, LIST(5));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 2, 0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 3, 1);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 4, 4);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 6, (int64_t)0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 10,
                   LIST(5, 2, 2, 3, 3, 3, 1, 4, 3, 3, 6, 0, 4, 6, 0, 2, 6, 0),
                   NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 11, LIST(5), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 12, LIST(5), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 13, NONE, NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 8, 12);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 10, (int64_t)4);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 2, LIST(2, 6, 8, 1, 10), LIST(6));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(6));
  rc |= write_seed(argv[1], "dispatch", 0, &a);
  /* Arithmetic, a loop and a call. */
  kiln_vm_asm_init(&a);
  const uint32_t top = kiln_vm_asm_label(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)10);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 2, (int64_t)1);
  kiln_vm_asm_bind(&a, top);
  kiln_vm_asm_emit(&a, KILN_VM_OP_SUB_I64, 0, 0, 2);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL, 1, LIST(0, 1), LIST(4));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CEILDIV_I64, 6, 0, 2);
  kiln_vm_asm_emit(&a, KILN_VM_OP_SITOFP_I64_F32, 8, 6);
  kiln_vm_asm_emit(&a, KILN_VM_OP_FPTOSI_F32_I32, 9, 8);
  kiln_vm_asm_emit(&a, KILN_VM_OP_LTS_I64, 10, 2, 0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_BR_IF, 10, (int)top);
  kiln_vm_asm_emit(&a, KILN_VM_OP_MOV_REF, 3, 0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(3));
  rc |= write_seed(argv[1], "loop_call", 0, &a);
  /* View queries and an assert. */
  kiln_vm_asm_init(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 0, 0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 5, LIST(0, 0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 6, LIST(1), LIST(4));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 7, LIST(1), LIST(5));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 8, LIST(0, 0, 5, 1, 2), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, LIST(0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(1));
  rc |= write_seed(argv[1], "views", 0, &a);
  /* A command buffer with only a barrier (once an UBSan report: pointer
   * arithmetic on the empty binding array). */
  kiln_vm_asm_init(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 9, NONE, LIST(5));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 11, LIST(5), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 12, LIST(5), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(0));
  rc |= write_seed(argv[1], "barrier_only", 0, &a);
  return rc;
}
