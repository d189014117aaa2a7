/* Internals shared by the flow passes (prefix fl_): building
 * linalg.generic ops, reading iteration spaces, composing affine maps,
 * walking host functions. Not part of the public API (flow.h). */
#ifndef KILN_FL_INTERNAL_H
#define KILN_FL_INTERNAL_H

#include "flow.h"
#include "dialects/flow.h"

/* A kernel binds at most FL_MAX_BINDINGS buffers (the export's 32-bit
 * readonly/written masks, materialize-interfaces). A concat's copy
 * dispatch binds its pieces, its result and place-concats' tie. */
#define FL_MAX_BINDINGS 32u
#define FL_MAX_CONCAT_PIECES (FL_MAX_BINDINGS - 2u)

/* The walks most flow passes make, after fl_require_valid(module, pass)
 * (whose error they return): fn on each host function that has a body
 * (kiln_each_func: with its entry block; the first error fn returns ends
 * the walk and is returned), on each entry block, or on each op of it in
 * order. For ops, *next is the op's next as it was before fn ran; fn may
 * move it (past ops it rewrote or erased) and the walk goes on from
 * there. */
typedef void (*fl_body_fn)(kiln_context *ctx, kiln_block *body, void *user);
typedef void (*fl_op_fn)(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user);
kiln_error *fl_each_host_func(kiln_op *module, const char *pass, kiln_func_fn fn, void *user);
kiln_error *fl_each_host_body(kiln_op *module, const char *pass, fl_body_fn fn, void *user);
kiln_error *fl_each_host_op(kiln_op *module, const char *pass, fl_op_fn fn, void *user);

/* A linalg.generic at b's insertion point over `loops` loops (reduction[i]
 * marks reduction loops; NULL = all parallel), inputs then outputs with
 * one map each. Tensor outputs become results. The body block is created
 * with one argument per operand (element type) and left without ops: the
 * caller appends them and a linalg.yield. */
kiln_op *fl_build_generic(kiln_builder *b, uint32_t nin, kiln_value *const *ins,
                          uint32_t nout, kiln_value *const *outs,
                          const kiln_affine_map *const *maps, uint32_t loops,
                          const bool *reduction);
/* linalg.yield of vals at the end of block. */
void fl_build_yield(kiln_context *ctx, kiln_block *block, uint32_t n,
                    kiln_value *const *vals, kiln_loc loc);
/* tensor.empty() : type, at b. */
kiln_value *fl_build_empty(kiln_builder *b, const kiln_type *type);
/* An identity copy of tensor v into a fresh tensor.empty, at b. */
kiln_value *fl_build_copy(kiln_builder *b, kiln_value *v);

/* Loop bounds of a structured op from its operand shapes (-1 when a loop
 * is not a plain dimension of any operand). Returns the loop count or -1.
 * maps (num_operands entries) and reduction (KILN_MAX_LOOPS) may be NULL.
 * linalg.softmax reports its result dims, `dimension` as a reduction. */
int fl_iteration(const kiln_op *op, int64_t *bounds, const kiln_affine_map **maps,
                 bool *reduction);
bool fl_all_parallel(const kiln_op *op);
/* A named op's strides or dilations pair (absent: 1, 1); false when the
 * attribute is malformed or holds a value below 1. */
bool fl_pair_attr(const kiln_op *op, const char *name, int64_t out[2]);
/* A linalg.generic that only moves data: all parallel, one input, one
 * result, a body yielding its input (a transpose, broadcast or copy; the
 * maps say which). */
bool fl_is_copy(const kiln_op *op);

/* e with every dim i replaced by subs[i]. */
const kiln_affine_expr *fl_affine_substitute(kiln_context *ctx,
                                             const kiln_affine_expr *e,
                                             const kiln_affine_expr *const *subs);
/* outer ∘ inner: a map over inner's dims giving outer's results. */
const kiln_affine_map *fl_affine_compose(kiln_context *ctx,
                                         const kiln_affine_map *outer,
                                         const kiln_affine_map *inner);

/* Iterator type attribute #linalg.iterator_type<parallel|reduction>. */
const kiln_attr *fl_iterator_attr(kiln_context *ctx, bool reduction);

/* The passes rewrite only verified IR: kiln-opt --no-verify must not let
 * malformed ops (unset operands, missing attributes) reach them. Returns an
 * error naming the pass when module does not verify. */
kiln_error *fl_require_valid(kiln_op *module, const char *pass);

/* Is op a static-shape ranked tensor? */
bool fl_is_static_tensor(const kiln_type *t);

/* Scalars (iN, index, f16, bf16, f32, f64) cross host boundaries
 * (function signatures, dispatch results) as rank-0 tensors. index has no
 * memory layout of its own there: it travels as i64. */
bool fl_is_scalar(const kiln_type *t);
/* The rank-0 tensor type carrying scalar type t (tensor<i64> for index). */
const kiln_type *fl_scalar_tensor_type(kiln_context *ctx, const kiln_type *t);
/* tensor.from_elements of scalar v at b (index cast to i64 first). */
kiln_value *fl_build_scalar_to_tensor(kiln_builder *b, kiln_value *v);
/* tensor.extract of rank-0 tensor t at b, cast back to `scalar` when that
 * is index. */
kiln_value *fl_build_tensor_to_scalar(kiln_builder *b, kiln_value *t,
                                      const kiln_type *scalar);

/* A host loop: an scf.for at the top of a host function whose body
 * holds only calls of host-loop bodies (private functions marked
 * `kiln.host_loop_body`, planned as host functions of their own: a
 * command buffer and a wait per step, buffers sized per step), host
 * index arithmetic, scan row writes (tensor.empty sized by host index
 * values; tensor.insert_slice of a call's result into such a buffer or
 * a carried one, which plan-memory turns into a copy of the row's bytes)
 * and the yield. It stays on the host: no dispatch region takes it, its
 * tensors cross the call as buffer views. */
bool fl_host_loop(const kiln_op *op);
/* Is fn a host-loop body (kept by inline-calls, called per step)? */
bool fl_host_loop_body(const kiln_op *fn);
/* Host list ops (flow.list.*, dialects/flow.h flow_is_list_op: ONNX
 * sequences at run time) stay on the host like flow.text: no dispatch
 * region takes them. */

/* Values outline-dispatches recomputes inside each kernel that uses them
 * instead of passing them: scalar constants, tensor.empty (its sizes
 * cloned or passed), fills of clonable values, and side-effect-free
 * scalar ops without regions (tensor.extract, scalar arith/math) whose
 * operands are clonable or tensors (those tensors become kernel
 * arguments); never tensor.dim. At most FL_CLONE_BUDGET producers are
 * looked at (expressions are DAGs). */
#define FL_CLONE_BUDGET 256
bool fl_clonable(kiln_value *v);
/* Index values the host computes itself, from function argument dims and
 * constants with integer arith: they stay on the host and reach kernels
 * as push constants. */
bool fl_host_index(kiln_value *v);
/* tensor.extract in a host function of a function argument (or a float
 * argument's bits: fl_bits_of_arg) or of a tensor that function computes
 * (static shape, i32/i64) at constant indices: a shape value the host
 * reads (hal.buffer_view.load), from input data before it records any
 * command, from computed data after waiting for the commands that
 * compute it (plan-memory). */
bool fl_host_load(const kiln_op *op);
/* The float argument t is a same-shape, same-width integer bitcast (or
 * view) of; t itself otherwise. */
kiln_value *fl_bits_of_arg(kiln_value *t);

/* ---- dimensions (fl_dims.c) ----
 * The host value of dim d of tensor v, built at b: a constant for a
 * static dim, else the value the host computes from function argument
 * dims (fl_arg_dim), host loops' result dims (fl_loop_dim) and the size
 * operands of the ops that made v; NULL when v's producer has no rule. */
kiln_value *fl_dim_value(kiln_builder *b, kiln_value *v, uint32_t d);
/* Entry k of a static list attribute with KILN_DYNAMIC holes filled by
 * the operands from `first` on (slice offsets, sizes, strides, pad
 * amounts): the operand, or a constant built at b; NULL when absent. */
kiln_value *fl_mixed_entry(kiln_builder *b, kiln_op *op, const char *name, uint32_t first, uint32_t k);
/* fl_dim_value, or else a tensor.dim of v at b (resolve-dims resolves it
 * later or reports v's producer). */
kiln_value *fl_build_dim(kiln_builder *b, kiln_value *v, uint32_t d);
/* tensor.dim of function argument arg, one per (arg, d) at the entry of
 * its function; NULL when arg is not a function argument. */
kiln_value *fl_arg_dim(kiln_context *ctx, kiln_value *arg, uint32_t d);
/* tensor.dim of result r of a host loop (fl_host_loop) or of a list's
 * element (flow.list.get), one per (r, d) right after the op: its steps
 * or the list decide r's shape, so the host reads it after the op ran
 * (plan-memory). */
kiln_value *fl_loop_dim(kiln_context *ctx, kiln_value *r, uint32_t d);
/* Is v an argument of a top-level function's entry block? */
bool fl_is_func_arg(const kiln_value *v);
/* Is v an index arith.constant? Its value in *out. */
bool fl_const_index(const kiln_value *v, int64_t *out);
/* Do two index values certainly hold the same number (same value, equal
 * constants, or products of the same factors)? */
bool fl_same_dim(kiln_value *a, kiln_value *b);

/* Whether the module is compiled for a CPU target (its session's
 * --target values, or the host when none): layouts chosen for the CPU
 * kernels (blocked filters) are skipped when every target is a GPU, whose
 * kernels match the plain named forms. */
bool fl_targets_cpu(const kiln_op *module);

/* !flow.dispatch.tensor<ACCESS:T>: the type of a dispatch argument
 * (ACCESS readonly, writeonly or readwrite). */
const kiln_type *fl_dispatch_tensor_type(kiln_context *ctx, const char *access, const kiln_type *t);

/* Drops from a block of scalar float ops each clamp (maximumf or minimumf
 * with a constant) that a later clamp of the same direction makes
 * redundant through monotone ops (fl_clamps.c). Whether it changed any. */
bool fl_drop_subsumed_clamps(kiln_block *block);

/* A convolution generic's body: yield addf(out, mulf(x, w)), operands in
 * either order; with int_input, x may be sitofp of integer bytes
 * (convert_conv_nhwc.c). */
bool fl_conv_mac_body(kiln_op *op, bool int_input);

#endif
