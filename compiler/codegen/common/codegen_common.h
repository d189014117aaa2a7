/* Code generation shared by the back ends (compiler/codegen/common,
 * library kiln_codegen_common, prefix cg_): kernel enumeration and the
 * kiln.launch accessors, the root op and its iteration space, the
 * distribution of the root's output over workgroups and its record on the
 * host, small IR builders that fold index constants, the scalar body of
 * every structured op, and the implicit-GEMM reading of convolutions.
 * The CPU and GPU code generators include this header, never each
 * other's internal one (tests/layout/check_codegen_headers.py); both
 * choose the root and the grid through it, so every variant of an
 * executable agrees on the workgroup count the host dispatches. */
#ifndef KILN_CODEGEN_COMMON_H
#define KILN_CODEGEN_COMMON_H

#include "dialects/memref.h"
#include "ir.h"

/* One kernel: a func.func of a variant's inner module (or of a
 * codegen-level module, then variant/export/executable are NULL). */
typedef struct cg_kernel {
  kiln_op *func;
  kiln_op *executable, *variant, *export;
  const char *target; /* the variant's target, else the module's kiln.target */
  kiln_op *top;       /* the top-level module (host dispatch sites) */
} cg_kernel;

typedef kiln_error *(*cg_kernel_fn)(cg_kernel *k, void *user);
/* Calls fn on every kernel of a kernel module (a variant's inner module,
 * or a codegen-level module: ir.h, KILN_PASS_KERNELS); stops at the first
 * error. */
kiln_error *cg_for_each_kernel(kiln_op *module, cg_kernel_fn fn, void *user);
kiln_block *cg_func_body(kiln_op *func);

/* Launch attribute (kiln.launch on the kernel): entries by name. */
const kiln_attr *cg_launch(const kiln_op *func);
/* Integer-array entry of kiln.launch: count or -1 when absent. */
int cg_launch_array(const kiln_op *func, const char *name, int64_t *out, int max);
int64_t cg_launch_int(const kiln_op *func, const char *name, int64_t dflt);

/* The root op of a kernel body: matmul-like > conv > pooling > op with
 * reduction loops > the last structured op. NULL when there is none. */
kiln_op *cg_find_root(kiln_op *func);
typedef enum {
  CG_ROOT_MATMUL, CG_ROOT_CONV, CG_ROOT_POOLING, CG_ROOT_REDUCTION,
  CG_ROOT_ELEMENTWISE
} cg_root_kind;
cg_root_kind cg_root_kind_of(const kiln_op *op);

/* kiln_linalg_iteration, plus linalg.softmax: identity maps, the
 * softmax dimension a reduction. */
int cg_iteration(const kiln_op *op, const kiln_affine_map **maps, bool *red);

/* Per-loop static bounds of a structured op (from operand shapes through
 * the maps); -1 where unknown. Returns the loop count or -1. */
int cg_static_bounds(const kiln_op *op, const kiln_affine_map **maps,
                     bool *red, int64_t *bounds);
/* Number of operands of a structured op that are memrefs or scalars:
 * maps arrays are sized with this + 1. */
#define CG_MAX_OPERANDS 64

/* Decomposes e into sum coef[l] * d_l + *cst (coef[] has loops entries);
 * false when e is not such a sum with non-negative coefficients. */
bool cg_linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst);

/* How a root op's output dims map to workgroups: dims with more than one
 * tile are distributed, the innermost on x, the next on y, all outer ones
 * collapsed on z (delinearized outermost-slowest). A dynamic dim has
 * bound KILN_DYNAMIC; tiled, it is distributed with count KILN_DYNAMIC
 * (ceildiv(dim, tile) at run time, which makes its wg_count slot
 * KILN_DYNAMIC too); untiled, it stays whole (tile KILN_DYNAMIC). */
typedef struct cg_dist {
  uint32_t rank;                    /* root output rank */
  int loop[KILN_MAX_LOOPS];         /* root loop of each output dim */
  int64_t bound[KILN_MAX_LOOPS], tile[KILN_MAX_LOOPS], count[KILN_MAX_LOOPS];
  int wg[KILN_MAX_LOOPS];           /* 0 x, 1 y, 2 z, -1 one tile */
  int64_t wg_count[3];
  /* the root reduces trailing loops into one value per leading loop
   * position (a row): ops over rows x columns may follow it (row chains,
   * form-dispatch-regions), restricted to its tile of rows */
  bool rows;
} cg_dist;
/* False when the root's outputs are not projected permutations or tiles
 * does not have one entry per root loop. */
bool cg_distribution(const kiln_op *root, const int64_t *tiles, int ntiles, cg_dist *d);
/* The same with coefficients and constants of either sign (a reversed
 * read: Winograd's transforms, a Slice with a negative step). */
bool cg_signed_linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst);
/* span[l]: how many values loop l takes in every workgroup, or -1 when
 * that varies or is known only at run time: a split loop's tile where
 * the tiles divide its static bound, an unsplit loop's static bound. */
void cg_loop_spans(const cg_dist *d, int loops, const int *dim_of_loop, const int64_t *bounds,
                   int64_t *span);
/* Can a read at e be confined to a workgroup's tile? e is a signed sum of
 * loops (cg_signed_linear_expr) whose loops with a negative coefficient
 * have a span: the window then starts at their last value. */
bool cg_tileable_read(const kiln_affine_expr *e, int loops, const int64_t *span, int64_t *coef,
                      int64_t *cst);
/* Records kiln.launch's workgroup_count of kernel func on its export and
 * on the host's dispatch sites of it (top: the whole module), with host
 * ops computing its run-time entries; first: func's variant is the
 * first to record (later ones must agree). */
kiln_error *cg_record_grid(kiln_op *top, kiln_op *executable, kiln_op *export, kiln_op *func,
                           bool first);
/* Is output dim k of d split into several tiles (or possibly, at run
 * time)? True when d splits some output dim. */
bool cg_dist_split(const cg_dist *d, uint32_t k);
bool cg_dist_splits(const cg_dist *d);
/* A border fill of a window: X is a linalg.fill of a buffer B, or of a
 * static unit-stride subview of B, and window (a root's output) is a
 * static unit-stride subview of the same B, of the same rank (a pad's
 * border around the interior its producer writes). Per dim k: at[k],
 * len[k] the fill's range in B, lo[k] the window's offset, full[k] B's
 * size (a run-time dim, whole in both, KILN_DYNAMIC in len, lo's 0 and
 * full: a batch nothing pads). Split along k, each workgroup fills the part of the fill's range
 * that its tile covers, the first tile also the rows before the window
 * and the last those after it, so the tiles cover B once. */
typedef struct cg_border {
  int64_t at[KILN_MAX_LOOPS], len[KILN_MAX_LOOPS], lo[KILN_MAX_LOOPS], full[KILN_MAX_LOOPS];
} cg_border;
bool cg_border_fill(const kiln_op *x, const kiln_value *window, cg_border *bf);
/* The output map of X in root-output dims (dim_of_loop[l] = output dim of
 * loop l, or -1); false when X does not iterate the root's output space
 * (rt: the root's output type before tiling; window: the root's output
 * value before tiling, whose border fills may differ in split dims). */
bool cg_output_dims(kiln_op *x, const kiln_affine_map **maps, int loops, const cg_dist *d,
                    const kiln_type *rt, const kiln_value *window, int *dim_of_loop);
/* The buffer memref v views: v up its memref.subview, cast,
 * expand_shape, collapse_shape and reinterpret_cast ops (an alloca, a
 * binding, or another op's result). */
const kiln_value *cg_view_base(const kiln_value *v);
/* For every linalg input of kernel func that reads, through another
 * view, a buffer (cg_view_base) that a linalg output of the kernel
 * writes, the root output dims on which the two positions differ:
 * clash[k] for each dim k that moves either index of a buffer dim where
 * they differ (offsets, coefficients, loops that are no root dim: a
 * window's taps), every dim where a view or index is not static and
 * linear. A split of such a dim would read what other workgroups write.
 * d, rt, window as for cg_output_dims; true when some clash[k]. */
bool cg_view_clashes(kiln_op *func, const cg_dist *d, const kiln_type *rt, const kiln_value *window,
                     bool *clash);
/* Can every op of the kernel be restricted to the root's tiles (fused ops
 * iterate the root's output space; values written in the kernel are read
 * only inside the same tile)? When not, *why says what prevents it. */
bool cg_can_distribute(kiln_op *func, kiln_op *root, const cg_dist *d, const char **why);

/* The launch rule (launch_rule.c): kiln.launch = {pipeline, tile_sizes,
 * vector_width, workgroup_count, workgroup_size} on kernel K, tiles
 * depending only on the shapes; with RECORD, also workgroup_count on its
 * export and host dispatch sites (cg_record_grid). llvm-cpu's
 * select-launch-config calls it with the target's vector width; the GPU
 * path runs it on every kernel of a module with 4 lanes, recording
 * nothing (cg_launch_rule_all), so every variant of an executable agrees
 * on the grid. */
const char *cg_pipeline_name(cg_root_kind k);
kiln_error *cg_launch_rule(cg_kernel *k, int64_t vector_width, bool record);
kiln_error *cg_launch_rule_all(kiln_op *module, int64_t vector_width);
/* Replaces the tile sizes (and so the workgroup count) the rule chose for
 * kernel FUNC by TILES (n entries, one per root loop) when every op of
 * the kernel can be restricted to them (cg_can_distribute); false (and
 * nothing changed) otherwise. Records nothing on the host: for a GPU-only
 * executable, whose grid no CPU variant shares. */
bool cg_launch_retile(kiln_op *func, const int64_t *tiles, int n);
/* Constant matmul B's of at most this many bytes are pre-packed at
 * compile time (the CPU's prepack.c): the packed copy is held next to
 * the original until the module is written, and kiln-compile promises
 * about one copy of the weights in memory (onnx_memory_bounded). */
#define CG_PREPACK_MAX_BYTES ((int64_t)16 << 20)
/* A streamed matmul: at most CG_STREAM_MAX_ROWS rows (a classifier's
 * fully connected layer at batch 1..4) with a B of more than
 * CG_PREPACK_MAX_BYTES (K x N elements of elem_bytes), read unpacked and
 * once per call. Its B is bandwidth-bound, so the launch rule gives each
 * workgroup a wide column tile (cg_stream_tile: long contiguous runs of
 * every B row, a whole 4 KiB page at 1024 columns, where 64-column tiles
 * read 256 bytes of a new page per row) and the CPU lowers it row by row
 * of B into C (lower_matmul.c). Shapes only: every variant agrees. */
#define CG_STREAM_MAX_ROWS 4
static inline bool cg_streamed_matmul(int64_t M, int64_t K, int64_t N, int64_t elem_bytes) {
  return M >= 1 && M <= CG_STREAM_MAX_ROWS && K > 0 && N > 0 &&
         K * N > CG_PREPACK_MAX_BYTES / elem_bytes;
}
/* The column tile of a streamed matmul of N columns: the widest of 1024,
 * 512, ... 16 that gives at least 4 tiles of which two workers, taking
 * them in turn, get shares within 1/8 of an equal half. */
int64_t cg_stream_tile(int64_t N);
/* Push constant holding dim k of the root's output (a binding with a
 * dynamic dim), or -1. */
int64_t cg_output_dim_constant(kiln_op *root, uint32_t k);

/* Builders (insertion point b). */
kiln_value *cg_index(kiln_builder *b, int64_t v);
kiln_value *cg_const_like(kiln_builder *b, const kiln_type *t, double f, int64_t i);
kiln_value *cg_bin(kiln_builder *b, kiln_op_kind kind, kiln_value *x, kiln_value *y);
kiln_value *cg_cmpi(kiln_builder *b, int64_t pred, kiln_value *x, kiln_value *y);
enum { CG_EQ = 0, CG_NE = 1, CG_SLT = 2, CG_SLE = 3, CG_SGT = 4, CG_SGE = 5 };
/* Index arithmetic folding constants. */
kiln_value *cg_add(kiln_builder *b, kiln_value *x, kiln_value *y);
kiln_value *cg_mul(kiln_builder *b, kiln_value *x, kiln_value *y);
kiln_value *cg_muli(kiln_builder *b, kiln_value *x, int64_t c);
bool cg_const_int(const kiln_value *v, int64_t *out);
/* scf.for lb..ub step with iter_args inits; the loop's body ends with
 * scf.yield (of the region args when there are inits) and *body is a
 * builder before it. */
kiln_op *cg_for(kiln_builder *b, kiln_value *lb, kiln_value *ub, kiln_value *step,
                uint32_t ninit, kiln_value *const *inits, kiln_builder *body);
kiln_value *cg_for_iv(kiln_op *loop);
/* Sets the operands of the scf.yield ending loop's body. */
void cg_for_set_yield(kiln_op *loop, uint32_t n, kiln_value *const *vals);
kiln_value *cg_load(kiln_builder *b, kiln_value *memref, uint32_t n, kiln_value *const *idx);
void cg_store(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
              kiln_value *const *idx);
kiln_value *cg_vload(kiln_builder *b, const kiln_type *vt, kiln_value *memref,
                     uint32_t n, kiln_value *const *idx);
void cg_vstore(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
               kiln_value *const *idx);
kiln_value *cg_broadcast(kiln_builder *b, kiln_value *s, const kiln_type *vt);
kiln_value *cg_dim(kiln_builder *b, kiln_value *memref, uint32_t d);
/* memref.subview of src with mixed offsets/sizes (value or static), unit
 * strides; the result keeps src's strides, offset dynamic unless all
 * offsets and src's offset are static. */
kiln_value *cg_subview(kiln_builder *b, kiln_value *src, kiln_value *const *offs,
                       kiln_value *const *sizes);

/* The value of affine expression e at loop ivs (index arithmetic that
 * folds constants). */
kiln_value *cg_affine_value(kiln_builder *b, const kiln_affine_expr *e, kiln_value *const *ivs);

/* The scalar body of a structured op whose operands are memrefs (and
 * scalar inputs): operand values in (one per operand, outputs' current
 * values included), block-arg order as linalg.generic; the yielded values
 * out (one per output). Named ops get their implied body. Ops are built at
 * b; linalg.index dims come from ivs. False with an error on op when the
 * body cannot be built (unsupported named op or element types). */
bool cg_emit_body(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                  kiln_value *const *ivs, kiln_value **out);

/* A structured op read as an implicit GEMM (igemm.c): out += X * W with
 * X and W f32 memrefs, every index a non-negative linear sum of loops and
 * the output a projected permutation without reduction loops. `col` is a
 * parallel loop of W and the output that X does not use (output
 * channels: vector lanes), `row` a parallel loop of X and the output that
 * W does not use (output pixels: register rows); the reduction loops
 * (input channels, window) run inside the microkernel; every other
 * parallel loop is an outer loop. Convolutions of every layout (named or
 * generic, as the ONNX importer emits them) and matmuls fit. */
typedef struct cg_igemm {
  int loops;
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  uint32_t x, w, out;   /* operand numbers */
  int row, col;
  int w_col_dim;        /* W's dim moving by one with d_col */
  bool w_col_plain;     /* ... indexed by exactly d_col */
  int out_col_dim, out_row_dim;
  bool w_contig;        /* W's last index is d_col with unit stride */
  bool out_contig;      /* the output's too */
} cg_igemm;
bool cg_igemm_match(const kiln_op *op, cg_igemm *g);
/* The same, with outer loops (not rows, columns or reductions) of
 * run-time size allowed: their bounds are -1. For the launch
 * configuration, whose full tiles are then static. */
bool cg_igemm_match_outer_dynamic(const kiln_op *op, cg_igemm *g);

#endif
