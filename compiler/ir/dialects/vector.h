/* Hooks of the vector dialect's rows in ops.def (prefix vector_). */
#ifndef KILN_IR_DIALECT_VECTOR_H
#define KILN_IR_DIALECT_VECTOR_H

#include "../asm.h"

#define VECTOR_HOOKS(X)                                                      \
  X(load) X(store) X(broadcast) X(splat) X(extract) X(insert) X(fma)         \
  X(shuffle) X(dot4) X(reduction) X(transfer)
#define VECTOR_DECLARE(N)                                                    \
  bool vector_verify_##N(kiln_op *op);                                       \
  bool vector_parse_##N(kiln_parser *p, kiln_op_state *st);                  \
  void vector_print_##N(kiln_printer *pr, const kiln_op *op);
VECTOR_HOOKS(VECTOR_DECLARE)
#undef VECTOR_DECLARE

/* The combining kinds of vector.reduction, in #vector.kind<...> spelling:
 * X(ID, NAME, FLOAT_OK, INT_OK). */
#define VECTOR_KINDS(X)                                                      \
  X(ADD, "add", 1, 1) X(MUL, "mul", 1, 1)                                    \
  X(MINUI, "minui", 0, 1) X(MINSI, "minsi", 0, 1) X(MINNUMF, "minnumf", 1, 0) \
  X(MAXUI, "maxui", 0, 1) X(MAXSI, "maxsi", 0, 1) X(MAXNUMF, "maxnumf", 1, 0) \
  X(AND, "and", 0, 1) X(OR, "or", 0, 1) X(XOR, "xor", 0, 1)                  \
  X(MAXIMUMF, "maximumf", 1, 0) X(MINIMUMF, "minimumf", 1, 0)
typedef enum kiln_vector_kind {
#define VECTOR_KIND_ENUM(ID, NAME, F, I) KILN_VECTOR_KIND_##ID,
  VECTOR_KINDS(VECTOR_KIND_ENUM)
#undef VECTOR_KIND_ENUM
  KILN_VECTOR_KIND_COUNT
} kiln_vector_kind;
/* Whether a transfer's permutation_map is the minor identity (absent
 * counts as such), and whether dim i of its vector is marked in bounds. */
bool kiln_vector_transfer_minor_identity(const kiln_op *op);
bool kiln_vector_transfer_in_bounds(const kiln_op *op, uint32_t i);
/* The kind of a vector.reduction, or KILN_VECTOR_KIND_COUNT if malformed. */
kiln_vector_kind kiln_vector_reduction_kind(const kiln_op *op);
/* Whether vector.dot4's `isa` attribute may name isa ("avx512vnni",
 * "avxvnni", "pmaddwd128/256/512", "sdot") for a result of `lanes` i32
 * lanes.
 * vector.dot4 %acc, %a, %b: r[i] = acc[i] + sum_j<4 ext(a[j]) b[4i+j],
 * ext zext or, with the unit attribute `signed_a` (not vpdpbusd), sext;
 * with `pairs` (isa pmaddwdW only) b's 4N bytes are pair-major instead,
 * r[i] = acc[i] + sum_p<2,j<2 ext(a[2p+j]) b[2Np + 2i + j] (the layout
 * pmaddwd reads, no horizontal sums). */
bool kiln_vector_dot4_isa_ok(const char *isa, int64_t lanes);

#endif
