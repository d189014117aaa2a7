/* Internals of compiler/codegen/cpu (prefix cpu_; the cg_ names are
 * compiler/codegen/common's, whose header this includes): the target's
 * vector width, distribution checks, and the CPU lowerings (softmax,
 * vector bodies, the microkernel, convolutions, matmuls, fused
 * epilogues). */
#ifndef KILN_CODEGEN_CPU_INTERNAL_H
#define KILN_CODEGEN_CPU_INTERNAL_H

#include "codegen_common.h"
#include "codegen_cpu.h"
#include "transforms.h" /* kiln_pass_dce after each rewrite */

/* The target's vector shape (target.c, one row of
 * vector_targets.def per architecture and feature): f32 lanes of the
 * vectors the kernels compute on for a target string (16 with avx512f,
 * 8 with avx/avx2 or RVV, 4 with SSE2 or NEON); and how many vectors of
 * vw lanes a register-blocked microkernel inside op keeps as
 * accumulators (MR x NR, at most CPU_UK_MAX_ACC). */
int64_t cpu_vector_width(const char *target);
int cpu_accumulators(const kiln_op *op, int64_t vw);
const char *cpu_dot4_isa(const kiln_op *op, int64_t vw);

/* Lowers linalg.softmax on memrefs to three loops per row (max, exp and
 * sum, scale), on vectors of width vw along a contiguous last dim;
 * lower_softmax.c. NULL or the error. */
kiln_error *cpu_lower_softmax(kiln_op *op, int64_t vw);

/* cg_emit_body (codegen_common.h) on vectors of vw lanes (lower_to_loops.c): in[i] is a vector
 * where the operand varies along the vector, else a scalar (broadcast
 * where an op mixes both); named ops get their implied body on broadcast
 * operands. The ops a generic's body is made of must be elementwise (or
 * linalg.index of a dim that is not along the vector). */
bool cpu_emit_body_vector(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                         kiln_value *const *ivs, int64_t vw, kiln_value **out);
/* Can cpu_emit_body_vector emit o, an op of a body other than linalg.index
 * and linalg.yield: one result, no regions, at most 8 operands, and a
 * scalar constant or an elementwise op not on index (lower_to_loops.c). */
bool cpu_vector_body_op(const kiln_op *o);

/* The register-blocked microkernel (microkernel.c): MR x NR vectors of
 * accumulators loaded with load_c, updated over a nest of nk reduction
 * loops [klo, khi) by fma(broadcast(load_a(r)), load_b(q)), stored with
 * store_c. k_begin (optional) runs first in the innermost body, so the
 * callbacks can share index arithmetic through user; c_begin / c_end
 * (optional) run before the first load_c and after the last store_c. */
#define CPU_UK_MAX_NR 4
#define CPU_UK_MAX_ACC 32
#define CPU_UK_MAX_LANES 4
typedef struct cpu_ukernel {
  int mr, nr, nk;
  const kiln_type *vt; /* vector<VW x elem> */
  /* int8: acc = vector.dot4(acc, A's 4 bytes, B's 4*VW bytes), isa its
   * instruction (NULL: generic); load_a returns a vector<4xi8>. */
  bool dot4;
  const char *isa;
  bool signed_a, pairs; /* vector.dot4's attributes of those names */
  /* Lane groups (lower_conv's grouped path): 0, or load_a returns a
   * vector whose lanes are blocks of `lanes` elements (one group's input
   * channels each); element e of each block, broadcast within its block
   * (vector.shuffle), multiplies B vector load_b(e * nr + q). With
   * `rotate`, instead nr == lanes accumulators a row, A's vector
   * unshuffled times B vector load_b(s) into accumulator s, whose lane i
   * of a block belongs to lane (i + s) % lanes of the output: one
   * shuffle a row and accumulator after the reduction instead of one a
   * reduction step (load_c and store_c see column 0 only). */
  int lanes;
  bool rotate;
  kiln_value *klo[KILN_MAX_LOOPS], *khi[KILN_MAX_LOOPS];
  void (*k_begin)(kiln_builder *b, void *user, kiln_value *const *k);
  void (*c_begin)(kiln_builder *b, void *user);
  void (*c_end)(kiln_builder *b, void *user);
  kiln_value *(*load_a)(kiln_builder *b, void *user, int r, kiln_value *const *k); /* scalar */
  kiln_value *(*load_b)(kiln_builder *b, void *user, int q, kiln_value *const *k); /* vector */
  kiln_value *(*load_c)(kiln_builder *b, void *user, int r, int q);              /* vector */
  void (*store_c)(kiln_builder *b, void *user, int r, int q, kiln_value *v);
  void *user;
} cpu_ukernel;
void cpu_emit_ukernel(kiln_builder *b, const cpu_ukernel *uk);

/* Compile-time layouts of constant operands (prepack.c): bindings are
 * all the hal.interface.binding ops of one binding in a kernel (one per
 * version of a kernel split by tile shape). When every host dispatch site
 * of the kernel passes a whole hal.rodata constant in it (one variant, no
 * substituted payload), rewrites those constants with fn (value: the
 * constant as a tensor of the binding's shape; fn returns it in the
 * layout of `packed`, or NULL to refuse), sets out[i] to a new binding
 * op's result of type packed next to bindings[i] (the old ones must no
 * longer be read) and returns true; else false and nothing changed. */
typedef const kiln_attr *(*cpu_layout_fn)(kiln_context *ctx, const kiln_attr *value, void *user);
bool cpu_prepack_bindings(kiln_op *const *bindings, uint32_t nbind, const kiln_type *packed,
                          cpu_layout_fn fn, void *user, kiln_value **out);

/* Fusion into a vectorized reduction's loops (fuse_epilogue.c): the
 * fill of `out` just before op, and the elementwise generic just after
 * op reading `out` in place, applied to each accumulator vector before
 * its store. */
typedef struct cpu_epilogue {
  kiln_op *op;                                  /* the generic, NULL: none */
  uint32_t in;                                  /* its input reading `out` */
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool along[CG_MAX_OPERANDS];                  /* input varies along the vector */
  kiln_value *dst; /* where the result goes when not `out` (cpu_fused_epilogue_to), or NULL */
  /* inputs the caller added into the accumulators' start (an int8
   * product's per-column correction): read as zeros */
  bool zeroed[CG_MAX_OPERANDS];
} cpu_epilogue;
kiln_op *cpu_fused_fill(kiln_op *op, kiln_value *out);
/* Fills *ep (moving the ops defining the generic's operands before op);
 * false (ep->op NULL) when there is no such generic. */
bool cpu_fused_epilogue(kiln_op *op, kiln_value *out, cpu_epilogue *ep);
/* The same, also taking a generic that writes another view (ep->dst, of
 * out's shape, any element type) when out is scratch: a view of a
 * memref.alloca that nothing but op, the generic and a fill of it uses.
 * The caller then stores the generic's result to dst and never out. */
bool cpu_fused_epilogue_to(kiln_op *op, kiln_value *out, cpu_epilogue *ep);
/* The generic's body on accumulator v (vector type vt) of the output
 * element at indices ix. */
kiln_value *cpu_apply_epilogue(kiln_builder *b, const cpu_epilogue *ep, kiln_value *const *ix,
                              kiln_value *v, const kiln_type *vt);
/* A max reduction (pool) of g(x) with g monotone non-decreasing in x and
 * its output filled with -inf first becomes the max of x followed by an
 * elementwise generic applying g to the output (hoist_max_chain.c). */
bool cpu_hoist_max_chain(kiln_op *op);
/* The memref a chain of subviews views. */
kiln_value *cpu_base_memref(kiln_value *v);

/* Lowering of a convolution-like op (cg_igemm_match) to the
 * microkernel over (pixels x output channels x reduction), weights packed
 * into a panel unless already contiguous along the output channels; the
 * fill just before it and the elementwise generic just after it join the
 * microkernel when the output is contiguous along the channels
 * (lower_conv.c). True when it applied: the caller erases op; a fused
 * fill or generic is erased already. */
bool cpu_lower_conv(kiln_op *op, int64_t vector_width);

/* Lowering of a full-tile linalg.matmul (or linalg.batch_matmul of one
 * batch) to a register-blocked microkernel (lower_matmul.c): true when it
 * applied; *tail is then a new linalg.matmul (leftover columns) the caller
 * still lowers, or NULL. */
bool cpu_lower_matmul(kiln_op *op, int64_t vector_width, kiln_op **tail);

#endif
