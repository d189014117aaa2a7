/* The op table generated from ops.def, and lookup by name. Guarantees:
 * ir_op_table[k].kind == k; unregistered ops share the last row. */
#include "dialects/dialects.h"
#include "ir_internal.h"

#define TERMINATOR KILN_OPF_TERMINATOR
#define PURE KILN_OPF_PURE
#define COMMUTATIVE KILN_OPF_COMMUTATIVE
#define ISOLATED KILN_OPF_ISOLATED
#define SYMBOL KILN_OPF_SYMBOL
#define SYMBOL_TABLE KILN_OPF_SYMBOL_TABLE
#define CONSTANT KILN_OPF_CONSTANT
#define ELEMENTWISE KILN_OPF_ELEMENTWISE
#define NO_TERMINATOR KILN_OPF_NO_TERMINATOR
#define SAME_TYPES KILN_OPF_SAME_TYPES
#define LINALG KILN_OPF_LINALG
#define RETURN_LIKE KILN_OPF_RETURN_LIKE

const kiln_op_info ir_op_table[KILN_OP_COUNT] = {
#define KILN_OP(ID, NAME, OMIN, OMAX, RMIN, RMAX, GMIN, GMAX, FLAGS, VERIFY, \
                PARSE, PRINT, RESNAME)                                      \
  [KILN_OP_##ID] = {KILN_OP_##ID, NAME, OMIN, OMAX, RMIN, RMAX, GMIN, GMAX, \
                    (uint32_t)(FLAGS), VERIFY, PARSE, PRINT, RESNAME},
#include "ops.def"
#undef KILN_OP
    [KILN_OP_UNREGISTERED] = {KILN_OP_UNREGISTERED, "<unregistered>", 0, -1,
                              0, -1, 0, -1, 0, 0, 0, 0, 0},
};

const kiln_op_info *kiln_op_info_get(kiln_op_kind kind) {
  return &ir_op_table[kind < KILN_OP_COUNT ? kind : KILN_OP_UNREGISTERED];
}

const kiln_op_info *kiln_op_info_lookup(const char *name, size_t len) {
  /* Linear scan is fine for ~100 ops; the parser calls it once per op. */
  for (int k = 0; k < KILN_OP_UNREGISTERED; k++) {
    const char *n = ir_op_table[k].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return &ir_op_table[k];
  }
  return NULL;
}
