/* Internals of the ONNX importer (prefix oi_): the per-import state, the
 * ONNX value table, the operator table generated from onnx_ops.def, and
 * the IR-building helpers every import_*.c family shares.
 *
 * An ONNX value is an oi_val: its static tensor type, its ONNX element
 * type (IR integers are signless, so u8 and i8 both become i8 and the
 * ONNX type decides signed or unsigned arithmetic), and either an IR
 * value, a constant known at import time, or both. Constants (initializers,
 * Constant nodes, folded shape computations) become IR only when an op
 * needs them as a tensor, so shape subgraphs leave no trace in the IR. */
#ifndef KILN_ONNX_IMPORT_INTERNAL_H
#define KILN_ONNX_IMPORT_INTERNAL_H

#include "ir.h"
#include "kiln_onnx.h"
#include "onnx_import.h"

/* Largest rank the importer handles (linalg loops are bounded too). */
#define OI_MAX_RANK 12
/* Largest dimension and element count of any tensor the importer builds:
 * static shapes of real models are far below; the bound keeps all shape
 * arithmetic (products, strides times sizes) inside int64. */
#define OI_DIM_MAX (INT64_C(1) << 31)
#define OI_NUMEL_MAX (INT64_C(1) << 40)
/* Most node imports of one model, unrolled loops and both branches of
 * every If counted: a bound on the IR a hostile nesting can ask for. */
#define OI_MAX_IMPORTED_NODES (1u << 20)
/* Most tensors one graph output (a sequence) returns. */
#define OI_MAX_FLAT 1024
/* Largest constant the importer folds element by element at import time. */
#define OI_FOLD_MAX 65536
/* Largest float constant an import-time fold may create from a smaller
 * one (a broadcast): more would grow the module where a broadcast read
 * costs nothing. */
#define OI_FOLD_FLOAT_MAX 4096

/* What an ONNX value is: a tensor, or a sequence / optional whose
 * structure the importer knows statically (a sequence's length, an
 * optional's presence, or that presence as a run-time flag), or a
 * sequence whose length only the run time knows (OI_VAL_LIST: a
 * !kiln.seq list the host builds, carried by a host loop). */
typedef enum { OI_VAL_TENSOR, OI_VAL_SEQ, OI_VAL_OPT, OI_VAL_LIST } oi_val_kind;

/* What a DequantizeLinear with constant scale and zero point dequantized
 * (import_quant.c records it, import_qdq.c reads it): q, and its n
 * scales and zero points (zp NULL: zeros), along `axis` when per_axis. */
typedef struct oi_dq {
  struct oi_val *q;
  const double *scale;
  const int64_t *zp;
  int64_t n;
  uint32_t axis;
  bool per_axis;
  /* per-tensor constant parameters: the IR value xq - zp as f32 (the
   * dequantized value is k * scale), what an integer-unit product reads */
  kiln_value *k;
  /* k + 1.5 * 2^23 when k is rounded from a float (k = k_sum - that,
   * exactly), else NULL: an 8-bit kernel's bytes k + c subtract once */
  kiln_value *k_sum;
  /* xq - 128 for u8 xq (xq for i8) as i8 bytes, once an 8-bit kernel
   * made them from k (import_qdq.c), k's other readers then reading k
   * made from them; else NULL */
  kiln_value *x8;
} oi_dq;

/* What QuantizeLinear with a constant per-tensor scale and zero point
 * quantized (x, f32; x / scale already when `divided`), so that a
 * DequantizeLinear with the same parameters computes xq - zp from x
 * without the integer round trip. */
typedef struct oi_q {
  kiln_value *x;
  float scale;
  int64_t zp;
  bool zp_unsigned;       /* u8 (0..255), else i8 (-128..127) */
  bool divided;
  double klo, khi;        /* the range of xq - zp (narrower after a Clip) */
} oi_q;

/* A DequantizeLinear result (per-tensor constants, its k built) clamped
 * to [lo, hi] by Clip or Relu (+-inf: open), for a QuantizeLinear that
 * requantizes it (import_quant.c). */
typedef struct oi_dqc {
  const oi_dq *dq;
  double lo, hi;
} oi_dqc;

/* A product computed in integer units (import_qdq.c): acc, the integer
 * accumulator as f32, with `m` channels along `dim`; scale[m] =
 * f32(x_scale * w_scale[m]); bias[m] the int32 bias (NULL: none), so that
 * a QuantizeLinear of the product requantizes as integer kernels do. */
typedef struct oi_prod {
  kiln_value *acc;
  const double *scale, *bias;
  int64_t m;
  uint32_t dim;
} oi_prod;

typedef struct oi_val {
  const char *name;
  const kiln_type *type;  /* ranked tensor ('?' for a dynamic dim; tensors only) */
  int32_t dtype;          /* ONNX TensorProto.DataType (of the elements) */
  kiln_value *v;          /* IR value; NULL until materialized */
  const Onnx__TensorProto *tensor; /* initializer / Constant payload */
  const kiln_attr *cst;   /* dense attr when known at import time */
  oi_val_kind kind;
  uint32_t len;           /* sequence: length */
  struct oi_val **elems;  /* sequence: its tensors */
  struct oi_val *some;    /* optional: the value, NULL when none */
  kiln_value *has;        /* optional: run-time presence (tensor<i1>), or NULL */
  bool seq_elem;          /* optional: of a sequence (when none, to know its type) */
  /* list: v is its !kiln.seq<T> value and type its element type T (the
   * join of every element's: '?' where dims differ, unranked where ranks
   * do); none_yet while no element's type is known (T a placeholder) */
  bool none_yet;
  /* A shape computation with run-time elements (import_dynamic.c): the
   * elements (rank 0 or 1, static count) as host index values, constants
   * where known; NULL for other values. */
  kiln_value **sym;
  const oi_dq *dq;        /* set by DequantizeLinear (import_qdq.c) */
  const oi_dq *dq_of;     /* a DequantizeLinear of this value with its k built */
  const struct oi_q *q;   /* set by QuantizeLinear with constant per-tensor parameters */
  const struct oi_prod *prod; /* set by a product in integer units (import_qdq.c) */
  const oi_dqc *dqc;      /* set by Clip / Relu of a dequantized value */
} oi_val;

typedef struct oi_ctx oi_ctx;

/* One node being imported: inputs resolved (NULL for omitted optionals),
 * outputs to be set by the import function. */
typedef struct oi_node {
  const Onnx__NodeProto *proto;
  size_t index;
  int kind;               /* the op table's per-op argument */
  const char *op_type;
  size_t nin, nout;
  oi_val **in;
  oi_val **out;           /* filled by oi_set_* */
} oi_node;

typedef bool (*oi_import_fn)(oi_ctx *c, oi_node *n);

struct oi_ctx {
  kiln_context *ctx;
  kiln_onnx_model *model;
  kiln_onnx_status *st;
  const kiln_onnx_import_options *opts; /* NULL: none */
  /* tensor.empty sizes not known yet (oi_empty of a '?' type), resolved
   * after the node (oi_resolve_dims) */
  kiln_op **pending;
  uint32_t npending, cap_pending;
  /* graph inputs' dim_param symbols: the first dim of each */
  const char **sym_names;
  kiln_value **sym_dims;
  uint32_t nsyms, cap_syms;
  kiln_builder b;         /* insertion point in the function body */
  int64_t opset;
  oi_node *node;          /* node being imported (for messages) */
  /* name -> value, open addressing */
  oi_val **slots;
  size_t cap, count;
  /* subgraph scopes: the bindings a subgraph replaced, restored at its end */
  struct oi_undo { const char *name; oi_val *prev; } *undo;
  size_t nundo, capundo;
  uint32_t depth;         /* subgraph nesting */
  size_t imported;        /* nodes imported, unrolled subgraph copies included */
  kiln_op *module;        /* where host loop bodies go (import_control.c) */
  uint32_t nbodies;       /* host loop bodies made, for their names */
};

/* Per-op arguments of the families (the op table's last column): which
 * member of a family a row is. */
enum {
  OI_NONE = 0,
  /* unary float / numeric */
  OI_ABS, OI_NEG, OI_CEIL, OI_FLOOR, OI_ROUND, OI_SQRT, OI_EXP, OI_LOG,
  OI_SIN, OI_COS, OI_TAN, OI_TANH, OI_ERF, OI_RECIPROCAL, OI_SIGN,
  OI_SIGMOID, OI_RELU, OI_SOFTPLUS, OI_SOFTSIGN, OI_ELU, OI_SELU, OI_CELU,
  OI_LEAKY_RELU, OI_HARD_SIGMOID, OI_HARD_SWISH, OI_GELU, OI_THRESHOLDED_RELU,
  OI_NOT, OI_ISNAN, OI_ISINF, OI_ASIN, OI_ACOS, OI_ATAN, OI_SINH, OI_COSH, OI_ASINH,
  OI_ACOSH, OI_ATANH, OI_SHRINK,
  /* binary */
  OI_ADD, OI_SUB, OI_MUL, OI_DIV, OI_POW, OI_MOD, OI_PRELU, OI_BITSHIFT,
  OI_AND, OI_OR, OI_XOR,
  OI_EQUAL, OI_GREATER, OI_LESS, OI_GREATER_EQ, OI_LESS_EQ,
  /* variadic */
  OI_MAX, OI_MIN, OI_SUM, OI_MEAN,
  /* reductions */
  OI_RSUM, OI_RMEAN, OI_RMAX, OI_RMIN, OI_RPROD, OI_RL1, OI_RL2, OI_RSUMSQ,
  OI_RLOGSUM, OI_RLOGSUMEXP, OI_ARGMAX, OI_ARGMIN,
  OI_SOFTMAX, OI_LOGSOFTMAX, OI_HARDMAX,
  /* pools */
  OI_MAXPOOL, OI_AVGPOOL, OI_GLOBAL_MAX, OI_GLOBAL_AVG,
  /* losses */
  OI_NLL, OI_SCE,
  /* recurrent */
  OI_RNN, OI_GRU, OI_LSTM,
  /* integer products: the QLinear form (requantized) */
  OI_QLINEAR,
  /* random generators */
  OI_RANDOM_UNIFORM, OI_RANDOM_NORMAL, OI_RANDOM_UNIFORM_LIKE, OI_RANDOM_NORMAL_LIKE, OI_BERNOULLI,
  /* window functions */
  OI_HANN, OI_HAMMING, OI_BLACKMAN,
  /* sequences and optionals */
  OI_SEQ_EMPTY, OI_SEQ_CONSTRUCT, OI_SEQ_AT, OI_SEQ_INSERT, OI_SEQ_ERASE, OI_SEQ_LENGTH, OI_SPLIT_TO_SEQ,
  OI_CONCAT_FROM_SEQ, OI_OPT_MAKE, OI_OPT_HAS, OI_OPT_GET,
  /* Scan-8: batched */
  OI_SCAN8,
  /* ONNX Runtime's normalizations and Gelus */
  OI_RMS_LN, OI_SKIP_LN, OI_SKIP_RMS_LN, OI_MS_GELU, OI_MS_FAST_GELU, OI_MS_BIAS_GELU, OI_MS_QUICK_GELU,
  /* optimizers (ai.onnx.preview.training) */
  OI_ADAGRAD, OI_ADAM, OI_MOMENTUM,
};

#define OI_OP(NAME, MIN, MAX, FN, KIND, FORM) bool FN(oi_ctx *c, oi_node *n);
#define OI_OP_IN(DOMAIN, NAME, MIN, MAX, FN, KIND, FORM) bool FN(oi_ctx *c, oi_node *n);
#include "onnx_ops.def"
#undef OI_OP
#undef OI_OP_IN

/* ---- version conversion (import_upgrade.c, onnx_forms.def) ---- */
typedef enum {
  OI_STEP_END, OI_STEP_TO_INPUT, OI_STEP_NEW_ATTR, OI_STEP_INSERT_INPUT,
  OI_STEP_EMPTY_ABSENT, OI_STEP_COERCE_2D, OI_STEP_OUT_LIKE_X, OI_STEP_TRAINING_OUTPUTS,
  OI_STEP_UPSAMPLE_NEAREST, OI_STEP_BN_SPATIAL,
} oi_step_kind;
/* What an attribute that became an input turns into. */
enum { OI_AS_INTS = 1, OI_AS_INT_1D, OI_AS_FLOATS, OI_AS_F32, OI_AS_X_SCALAR };
typedef struct oi_step {
  oi_step_kind kind;
  const char *attr;
  int pos;          /* input / output position */
  int as;           /* OI_AS_* */
  const char *str;  /* NEW_ATTR_S value */
  int64_t i;        /* COERCE_2D default axis */
  double f;         /* TO_INPUT_DEF value */
  bool has_default;
} oi_step;
#define OI_END {OI_STEP_END, NULL, 0, 0, NULL, 0, 0, false}
#define OI_TO_INPUT(a, p, as) {OI_STEP_TO_INPUT, a, p, as, NULL, 0, 0, false}
#define OI_TO_INPUT_DEF(a, p, as, v) {OI_STEP_TO_INPUT, a, p, as, NULL, 0, v, true}
#define OI_NEW_ATTR(a) {OI_STEP_NEW_ATTR, a, 0, 0, NULL, 0, 0, false}
#define OI_NEW_ATTR_S(a, s) {OI_STEP_NEW_ATTR, a, 0, 0, s, 0, 0, false}
#define OI_INSERT_INPUT(p) {OI_STEP_INSERT_INPUT, NULL, p, 0, NULL, 0, 0, false}
#define OI_EMPTY_ABSENT(p) {OI_STEP_EMPTY_ABSENT, NULL, p, 0, NULL, 0, 0, false}
#define OI_COERCE_2D(axis) {OI_STEP_COERCE_2D, NULL, 0, 0, NULL, axis, 0, false}
#define OI_OUT_LIKE_X(p) {OI_STEP_OUT_LIKE_X, NULL, p, 0, NULL, 0, 0, false}
#define OI_TRAINING_OUTPUTS {OI_STEP_TRAINING_OUTPUTS, NULL, 0, 0, NULL, 0, 0, false}
#define OI_UPSAMPLE_NEAREST {OI_STEP_UPSAMPLE_NEAREST, NULL, 0, 0, NULL, 0, 0, false}
#define OI_BN_SPATIAL {OI_STEP_BN_SPATIAL, "spatial", 0, 0, NULL, 0, 0, false}
enum {
#define OI_FORM(ID, ...) OI_FORM_##ID,
#include "onnx_forms.def"
#undef OI_FORM
};
/* What a conversion left for after the import function. */
typedef struct oi_upgrade {
  Onnx__NodeProto *copy;           /* the rewritten node; NULL: unchanged */
  const kiln_type *reshape_out0;   /* output 0 back to this shape */
  int out_like_x;                  /* output that takes input 0's type */
  size_t nout_old;                 /* outputs hidden from the function */
  bool done;                       /* the conversion imported the node itself */
} oi_upgrade;
/* Rewrites node N of form FORM into the newest form (a copy). */
bool oi_upgrade_node(oi_ctx *c, oi_node *n, int form, oi_upgrade *u);
/* Maps the outputs of the newest form back to the old form's. */
bool oi_upgrade_outputs(oi_ctx *c, oi_node *n, oi_upgrade *u);
/* Sets (replaces) an attribute on the node's rewritten copy. */
void oi_set_attr_string(oi_ctx *c, oi_node *n, oi_upgrade *u, const char *name, const char *v);
void oi_set_attr_int(oi_ctx *c, oi_node *n, oi_upgrade *u, const char *name, int64_t v);

/* ---- errors (import_graph.c) ---- */
/* "onnx: CODE: node 3 'name' (Conv, opset 13): WHAT"; returns false. */
bool oi_fail(oi_ctx *c, kiln_onnx_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define oi_unsupported(c, ...) oi_fail(c, KILN_ONNX_ERR_UNSUPPORTED, __VA_ARGS__)
#define oi_invalid(c, ...) oi_fail(c, KILN_ONNX_ERR_NODE, __VA_ARGS__)

/* ---- subgraphs (import_graph.c) ---- */
/* Imports subgraph G inline at the current insertion point: its formal
 * inputs bound to ACTUALS (NACT of them; omitted ones NULL), its
 * initializers and nodes defined in a scope that ends with it (outer
 * names stay visible), its outputs returned in OUTS (g->n_output). The
 * node being imported stays the one errors name. */
bool oi_import_subgraph(oi_ctx *c, const Onnx__GraphProto *g, oi_val *const *actuals, size_t nact,
                        oi_val **outs);

/* ---- types (import_types.c) ---- */
/* IR element type of an ONNX data type; NULL when the importer has none. */
const kiln_type *oi_elem_type(oi_ctx *c, int32_t dtype);
bool oi_dtype_is_float(int32_t dtype);
bool oi_dtype_is_unsigned(int32_t dtype); /* u8..u64 and bool */
bool oi_dtype_is_int(int32_t dtype);      /* integers, not bool */
const char *oi_dtype_name(int32_t dtype);
const kiln_type *oi_tensor_type(oi_ctx *c, uint32_t rank, const int64_t *shape,
                                int32_t dtype);
int64_t oi_numel(const kiln_type *t);
/* Every dim in [0, OI_DIM_MAX] and the element count at most
 * OI_NUMEL_MAX; otherwise an error naming WHAT. */
bool oi_dims_ok(oi_ctx *c, uint32_t rank, const int64_t *shape, const char *what);
/* A size-like attribute or constant value in [lo, OI_DIM_MAX]. */
bool oi_size_ok(oi_ctx *c, int64_t v, int64_t lo, const char *what);
/* Requires the input's element type to be one of a mask of classes. */
enum { OI_T_FLOAT = 1, OI_T_SINT = 2, OI_T_UINT = 4, OI_T_BOOL = 8,
       OI_T_INT = OI_T_SINT | OI_T_UINT, OI_T_NUM = OI_T_FLOAT | OI_T_INT,
       OI_T_ANY = OI_T_NUM | OI_T_BOOL };
bool oi_check_type(oi_ctx *c, const oi_val *v, unsigned mask, const char *what);

/* ---- string tensors (import_strings.c) ---- */
bool oi_dtype_is_string(int32_t dtype);
/* !kiln.str, the IR's element type of ONNX strings. */
const kiln_type *oi_text_type(oi_ctx *c);
/* Cast / CastLike of x to `to` where x or `to` is a string. */
bool oi_import_text_cast(oi_ctx *c, oi_node *n, oi_val *x, int32_t to);

/* ---- attributes (import_attrs.c) ---- */
const Onnx__AttributeProto *oi_attr(const oi_node *n, const char *name);
/* Each reads an attribute of the expected ONNX type, or the default when
 * absent; a wrong type is an error naming the attribute. */
bool oi_attr_int(oi_ctx *c, const oi_node *n, const char *name, int64_t def,
                 int64_t *out);
bool oi_attr_float(oi_ctx *c, const oi_node *n, const char *name, double def,
                   double *out);
/* *out = NULL, *count = 0 when absent. */
bool oi_attr_ints(oi_ctx *c, const oi_node *n, const char *name,
                  const int64_t **out, size_t *count);
bool oi_attr_floats(oi_ctx *c, const oi_node *n, const char *name,
                    const float **out, size_t *count);
/* NULL (absent) or the NUL-terminated string. */
bool oi_attr_string(oi_ctx *c, const oi_node *n, const char *name,
                    const char *def, const char **out);
/* Refuses attributes other than the listed ones (NULL-terminated). */
bool oi_attrs_only(oi_ctx *c, const oi_node *n, const char *const *known);
/* Normalizes a possibly negative axis against rank. */
bool oi_axis(oi_ctx *c, int64_t axis, uint32_t rank, const char *what,
             uint32_t *out);

/* ---- values (import_values.c) ---- */
oi_val *oi_val_new(oi_ctx *c, const char *name, const kiln_type *t,
                   int32_t dtype);
/* The IR value of v, creating arith.constant for known constants. */
kiln_value *oi_ir(oi_ctx *c, oi_val *v);
/* The dense attribute of v when known at import time (converts an
 * initializer once); NULL otherwise. */
const kiln_attr *oi_const(oi_ctx *c, oi_val *v);
/* Integer elements of a known constant (at most OI_FOLD_MAX), into
 * arena memory; false with an error naming WHAT when not constant (kind
 * "dynamic": callers use it for values that decide shapes). */
bool oi_const_ints(oi_ctx *c, oi_val *v, const char *what, int64_t **out,
                   int64_t *count);
bool oi_const_floats(oi_ctx *c, oi_val *v, const char *what, double **out,
                     int64_t *count);
/* Conv, MatMul and Gemm of dequantized operands in integer units
 * (import_qdq.c): 1 done, 0 not that form (nothing built), -1 error. */
int oi_qdq_conv(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w, oi_val *bias);
int oi_qdq_matmul(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w);
int oi_qdq_gemm(oi_ctx *c, oi_node *n, oi_val *x, oi_val *w, oi_val *bias, bool trans_b);
/* QLinearConv (conv) or QLinearMatMul with constant scales and zero points
 * (per tensor; the weight's per output channel too) and a constant weight,
 * on the 8-bit kernels of the QDQ forms (import_qdq.c), requantized as
 * ONNX Runtime's QLinearConv: 1 done, 0 not that form (the generic
 * widening path imports it), -1 error. */
int oi_qdq_qlinear(oi_ctx *c, oi_node *n, bool conv);
/* saturate(roundeven(v) + zp) to ONNX type t (u8/i8): v already divided
 * by the scale (import_quant.c). */
kiln_value *oi_quantize_divided(oi_ctx *c, kiln_value *v, int64_t zp, int32_t t);
/* (acc + bias) * f32(scale[m] / y_scale): the product divided by a
 * QuantizeLinear's scale as integer kernels requantize; NULL on error. */
kiln_value *oi_qdq_requant_input(oi_ctx *c, const oi_prod *p, float y_scale);
/* ONNX Runtime's QLinear elementwise and pooling ops' ends
 * (import_quant.c): x (u8/i8) dequantized with one scale s and zero point z
 * (NULL: 0), (x - z) * s in f32; a float v quantized to ONNX type t,
 * saturate(roundeven(v / s) + z). WHAT names the tensor in errors; NULL on
 * an error (reported). */
kiln_value *oi_qlinear_dequantize(oi_ctx *c, oi_val *x, oi_val *s, oi_val *z, const char *what);
kiln_value *oi_qlinear_quantize(oi_ctx *c, kiln_value *v, oi_val *s, oi_val *z, int32_t t, const char *what);
/* The pool n's attributes describe (kind OI_MAXPOOL, OI_AVGPOOL,
 * OI_GLOBAL_MAX or OI_GLOBAL_AVG) of xv [N, C, spatial...] of ONNX type
 * dtype (import_pool.c); MaxPool's Indices set as n's output 1 when n has
 * one. NULL on an error (reported). */
kiln_value *oi_pool_ir(oi_ctx *c, oi_node *n, kiln_value *xv, int32_t dtype);
/* Records on `out` that it is x clamped to [lo, hi], when x is a
 * dequantized value (or such a clamp) import_quant.c can requantize. */
void oi_note_clamp(oi_ctx *c, oi_val *out, const oi_val *x, double lo, double hi);
/* Sets output i. */
void oi_set_out(oi_ctx *c, oi_node *n, size_t i, kiln_value *v, int32_t dtype);
void oi_set_out_const(oi_ctx *c, oi_node *n, size_t i, const kiln_attr *a,
                      int32_t dtype);
/* Output i is the same value as input v (Identity, Dropout, no-op reshape). */
void oi_set_out_alias(oi_ctx *c, oi_node *n, size_t i, oi_val *v);
/* Dense constant from host integers / doubles of the given type. */
const kiln_attr *oi_dense_ints(oi_ctx *c, const kiln_type *t, const int64_t *v);
const kiln_attr *oi_dense_floats(oi_ctx *c, const kiln_type *t, const double *v);
/* A copy of V under no name (an op's output aliasing an existing value). */
oi_val *oi_val_copy(oi_ctx *c, const oi_val *v);
/* Zeros of T. */
const kiln_attr *oi_dense_zero(oi_ctx *c, const kiln_type *t);
/* Splat of one integer (bools as the byte 0 or 1). */
const kiln_attr *oi_splat_int(oi_ctx *c, const kiln_type *t, int64_t v);
/* Arity checks. */
bool oi_arity(oi_ctx *c, oi_node *n, size_t min_in, size_t max_in,
              size_t min_out, size_t max_out);
/* Input i, or an error when it is absent (""). */
oi_val *oi_in(oi_ctx *c, oi_node *n, size_t i);
static inline oi_val *oi_opt_in(oi_node *n, size_t i) {
  return i < n->nin ? n->in[i] : NULL;
}
static inline bool oi_has_out(const oi_node *n, size_t i) {
  return i < n->nout && n->proto->output[i][0] != '\0';
}

/* ---- IR building (import_build.c) ---- */
/* tensor.empty of t; a '?' dim's size is derived after the node from the
 * op the tensor is an init of (oi_resolve_dims): use oi_empty_dims where
 * no input of that op has the dim. */
kiln_value *oi_empty(oi_ctx *c, const kiln_type *t);
/* tensor.empty of t with the dynamic sizes given (index values, one per
 * '?' dim). */
kiln_value *oi_empty_dims(oi_ctx *c, const kiln_type *t, kiln_value *const *dims);
/* Scalar constants (built at the builder's insertion point). */
kiln_value *oi_scalar(kiln_builder *b, const kiln_type *et, double f, int64_t i);
/* linalg.fill of a scalar constant into a fresh tensor. */
kiln_value *oi_filled(oi_ctx *c, const kiln_type *t, double f, int64_t i);
/* linalg.fill of a scalar constant into the init tensor given. */
kiln_value *oi_fill_into(oi_ctx *c, kiln_value *init, double f, int64_t i);
/* Largest / smallest finite-or-infinite value of an element type, as the
 * double or integer oi_scalar takes. */
void oi_elem_lowest(const kiln_type *et, int32_t dtype, double *f, int64_t *i);
void oi_elem_highest(const kiln_type *et, int32_t dtype, double *f, int64_t *i);

/* A linalg.generic: inputs with their maps, one output per `outs` (init
 * tensors) with their maps, `loops` loops of which `red` marks reductions.
 * The body callback receives the block (arguments: inputs then outputs)
 * and a builder at its end; it returns the yielded values. */
typedef bool (*oi_body_fn)(oi_ctx *c, kiln_builder *b, kiln_value *const *args,
                           kiln_value **yield, void *user);
kiln_op *oi_generic(oi_ctx *c, uint32_t nin, kiln_value *const *ins,
                    uint32_t nout, kiln_value *const *outs,
                    const kiln_affine_map *const *maps, uint32_t loops,
                    const bool *red, oi_body_fn body, void *user);
/* Map from `loops` dims picking dims[i] (or a constant 0 for -1). */
const kiln_affine_map *oi_map_dims(oi_ctx *c, uint32_t loops, uint32_t n,
                                   const int64_t *dims);
/* Numpy broadcast of shapes; false (error) when incompatible. */
bool oi_broadcast_shape(oi_ctx *c, uint32_t n, oi_val *const *vals,
                        uint32_t *rank, int64_t *shape);
/* The map of an input broadcast to an output of rank `rank`/`shape`. */
const kiln_affine_map *oi_broadcast_map(oi_ctx *c, const kiln_type *in,
                                        uint32_t rank, const int64_t *shape);
/* Elementwise generic over broadcast inputs: out elem type et. */
kiln_value *oi_elementwise(oi_ctx *c, uint32_t nin, oi_val *const *in,
                           const kiln_type *et, oi_body_fn body, void *user);
/* Same on IR values already shaped (maps via broadcasting too). */
kiln_value *oi_elementwise_ir(oi_ctx *c, uint32_t nin, kiln_value *const *in,
                              uint32_t rank, const int64_t *shape,
                              const kiln_type *et, oi_body_fn body, void *user);
/* Scalar element conversion between IR element types with ONNX
 * signedness (Cast semantics: float->int truncates toward zero,
 * bool: x != 0). */
kiln_value *oi_convert(kiln_builder *b, kiln_value *x, int32_t from, int32_t to,
                       const kiln_type *to_et);
/* linalg.index of loop LOOP inside a generic's body (index, or i64). */
kiln_value *oi_loop_index(kiln_builder *b, uint32_t loop);
kiln_value *oi_loop_index_i64(kiln_builder *b, uint32_t loop);
/* Scalar ops with a single result (arith/math). */
kiln_value *oi_op1(kiln_builder *b, kiln_op_kind k, kiln_value *x);
kiln_value *oi_op2(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y);
kiln_value *oi_cmpf(kiln_builder *b, int pred, kiln_value *x, kiln_value *y);
kiln_value *oi_cmpi(kiln_builder *b, int pred, kiln_value *x, kiln_value *y);
kiln_value *oi_select(kiln_builder *b, kiln_value *c, kiln_value *x, kiln_value *y);
/* tensor.extract / tensor.insert at n index values. */
kiln_value *oi_extract(kiln_builder *b, kiln_value *t, uint32_t n, kiln_value *const *idx);
kiln_value *oi_insert(kiln_builder *b, kiln_value *x, kiln_value *t, uint32_t n, kiln_value *const *idx);
/* Sequential loops for kernels that cannot be data-parallel (a host-level
 * scf.for over tensors becomes one dispatch of its own): scf.for lb..ub
 * step 1 carrying n <= OI_MAX_FOR_ARGS inits; *body is a builder before
 * its yield (which yields args[] unchanged until oi_set_yield), *iv the
 * induction variable. */
#define OI_MAX_FOR_ARGS 4
kiln_op *oi_for(kiln_builder *b, kiln_value *lb, kiln_value *ub, uint32_t n, kiln_value *const *inits,
                kiln_builder *body, kiln_value **iv, kiln_value **args);
/* Sets the yield of region `region` of an scf.for / scf.if. */
void oi_set_yield(kiln_op *op, uint32_t region, uint32_t n, kiln_value *const *v);
/* cmpi / cmpf predicates (MLIR's numbering). */
enum { OI_EQ = 0, OI_NE, OI_SLT, OI_SLE, OI_SGT, OI_SGE, OI_ULT, OI_ULE,
       OI_UGT, OI_UGE };
enum { OI_F_OEQ = 1, OI_F_OGT = 2, OI_F_OGE = 3, OI_F_OLT = 4, OI_F_OLE = 5,
       OI_F_UNE = 13, OI_F_UNO = 14 };
/* Reshapes by collapsing to rank 1 and expanding (or one of the two);
 * same element count required. */
kiln_value *oi_reshape(oi_ctx *c, kiln_value *v, uint32_t rank,
                       const int64_t *shape);
/* tensor.extract_slice with static offsets/sizes/strides. */
kiln_value *oi_slice(oi_ctx *c, kiln_value *v, const int64_t *off,
                     const int64_t *size, const int64_t *stride);
/* tensor.pad with a constant. */
kiln_value *oi_pad(oi_ctx *c, kiln_value *v, const int64_t *lo,
                   const int64_t *hi, double f, int64_t i);
/* linalg.transpose by perm. */
kiln_value *oi_transpose(oi_ctx *c, kiln_value *v, const int64_t *perm);
/* Transpose of a value: a constant is permuted at import time straight
 * from its payload (one copy into the IR; weights need no runtime
 * transpose), anything else becomes linalg.transpose. NULL on error. */
kiln_value *oi_transpose_val(oi_ctx *c, oi_val *v, const int64_t *perm);
/* Element type conversion of a whole tensor. */
kiln_value *oi_cast_tensor(oi_ctx *c, kiln_value *v, int32_t from, int32_t to);

/* ---- random generators (import_random.c) ---- */
/* BatchNormalization-7 with spatial = 0 (import_norm.c). */
bool oi_batchnorm_per_activation(oi_ctx *c, oi_node *n);
/* Dropout in training mode (TRAIN a run-time or constant bool; RATIO
 * optional, 0.5 when absent). */
bool oi_dropout_training(oi_ctx *c, oi_node *n, oi_val *x, oi_val *ratio, oi_val *train);

/* ---- elementary functions without an IR op (import_math.c) ---- */
kiln_value *oi_log1p(kiln_builder *b, kiln_value *x);
kiln_value *oi_atan(kiln_builder *b, kiln_value *x);
kiln_value *oi_asin(kiln_builder *b, kiln_value *x);
kiln_value *oi_acos(kiln_builder *b, kiln_value *x);
kiln_value *oi_sinh(kiln_builder *b, kiln_value *x);
kiln_value *oi_cosh(kiln_builder *b, kiln_value *x);
kiln_value *oi_asinh(kiln_builder *b, kiln_value *x);
kiln_value *oi_acosh(kiln_builder *b, kiln_value *x);
kiln_value *oi_atanh(kiln_builder *b, kiln_value *x);

/* ---- dynamic dims (import_dynamic.c) ---- */
/* Is dim d of t dynamic ('?')? Is any (false for NULL, the type of a
 * sequence or optional value)? */
static inline bool oi_dyn(const kiln_type *t, uint32_t d) { return t->shape[d] == KILN_DYNAMIC; }
bool oi_has_dyn(const kiln_type *t);
/* Refuses n (an error of kind "dynamic": "input I has a run-time dim;
 * WHY") when a tensor input has a '?' dim, for import paths that size
 * from static shapes, whose arithmetic the unknown-dim marker would
 * overflow. True when every tensor input is static. */
bool oi_refuse_dyn_inputs(oi_ctx *c, const oi_node *n, const char *why);
/* An index constant at the builder. */
kiln_value *oi_index(oi_ctx *c, int64_t v);
/* Dim d of v as an index value: a constant, or tensor.dim of its IR value. */
kiln_value *oi_dim(oi_ctx *c, oi_val *v, uint32_t d);
/* Dim d of an IR value, built at b: a constant, or tensor.dim. */
kiln_value *oi_ir_dim(kiln_builder *b, kiln_value *x, uint32_t d);
/* Resolves the sizes oi_empty left for later: each from the op the empty
 * tensor (or its linalg.fill) is an init of, through the indexing maps
 * (an input dim on the same loop); an error naming the node when none is
 * found. Called after every node. */
bool oi_resolve_dims(oi_ctx *c);
/* A shape-like value (Shape results and what is computed from them):
 * per element a static integer or KILN_DYNAMIC with its host index value
 * in dyn[i]; constants give static elements. False with kind "dynamic"
 * (naming WHAT) when v depends on tensor data. */
bool oi_shape_ints(oi_ctx *c, oi_val *v, const char *what, int64_t **stat, kiln_value ***dyn,
                   int64_t *count);
/* A new symbolic value (rank 0 when scalar, else 1-D of n elements). */
oi_val *oi_sym_new(oi_ctx *c, bool scalar, int64_t n, kiln_value **elems, int32_t dtype);
/* The IR tensor of a symbolic value (tensor.from_elements). */
kiln_value *oi_sym_ir(oi_ctx *c, oi_val *v);
/* Shape-op families on symbolic values; each returns true when it handled
 * the node (false with the status set on error: *handled tells which). */
bool oi_sym_node(oi_ctx *c, oi_node *n, bool *handled);
/* Host index arithmetic, folded when both operands are constants. */
kiln_value *oi_ibin(oi_ctx *c, kiln_op_kind k, kiln_value *x, kiln_value *y);
/* min(|x|, 1) on host index values: 0 when x is 0, else 1. */
kiln_value *oi_nonzero(oi_ctx *c, kiln_value *x);
/* Element `flat` (row-major) of t, a static i32/i64 tensor the function
 * computes or takes, as a host index value (tensor.extract + index_cast):
 * plan-memory reads it after the commands computing it ran. Its sign and
 * size are unknown: check what it sizes (oi_check_shape). */
kiln_value *oi_host_read(oi_ctx *c, kiln_value *t, int64_t flat);
/* Is the builder in the top-level function's body (not a Loop/If body),
 * where the host can read computed data? */
bool oi_host_block(oi_ctx *c);
/* flow.check.shape of a result shape decided by run-time data ('?'
 * entries of shape take dyn's values): no negative dim, no byte count
 * that wraps. */
void oi_check_shape(oi_ctx *c, uint32_t rank, const int64_t *shape, kiln_value *const *dyn,
                    const kiln_type *elem);
/* flow.check.dim_eq: a relation an op relies on, checked at run time. */
void oi_check_eq(oi_ctx *c, kiln_value *x, kiln_value *y);
/* flow.check.range: lo <= v <= hi at run time, else the call fails
 * naming WHAT ("size", "offset", "index") of dimension DIM and the bound. */
void oi_check_range(oi_ctx *c, kiln_value *v, kiln_value *lo, kiln_value *hi, const char *what, uint32_t dim);
/* Indices ii (any rank, ONNX dtype DTYPE) from data checked on the host
 * to lie in [-n, n - 1] for axis AXIS of size n (import_shape.c). */
bool oi_check_indices(oi_ctx *c, kiln_value *ii, int32_t dtype, kiln_value *n, uint32_t axis);
/* The window x[start_d + i_d] (host index starts) over an output of
 * shape out, whose '?' dims take sizes' values in order. */
kiln_value *oi_read_window(oi_ctx *c, kiln_value *x, const int64_t *out, kiln_value *const *sizes,
                      kiln_value *const *start);
/* A shape's entries as index values (oi_shape_ints' stat / dyn). */
void oi_shape_elems(oi_ctx *c, int64_t n, const int64_t *st, kiln_value *const *dy, kiln_value **out);
/* v's dims [0, n) merged into one (tensor.collapse_shape; '?' when any
 * is), and the inverse: dim 0 of v split back into like's dims [0, n)
 * (tensor.expand_shape sized by like's dims). */
/* For a reduction over axes read from data (axes->sym, k of them): x
 * copied with its kept dims first, in order, and the k reduced ones last;
 * kst/kdy get the keepdims result's shape (1 where reduced; kdy NULL
 * where kst is static). NULL on error. */
/* The bits of the elements of a small f32/f64 graph input (rank 0 or 1),
 * as host values (the host reads integers only; the value is
 * sign-extended from the element's width); NULL for other values. */
kiln_value **oi_float_bits(oi_ctx *c, oi_val *v);
/* floor(in * v) for an f32 v given by its bits (oi_float_bits), on the
 * host; a check that v is finite, > 0 and < 2^24. */
kiln_value *oi_f32_scaled(oi_ctx *c, kiln_value *bits, int64_t in);
kiln_value *oi_axes_last(oi_ctx *c, oi_val *x, oi_val *axes, int64_t *kst, kiln_value **kdy);
kiln_value *oi_merge_leading(oi_ctx *c, kiln_value *v, uint32_t n);
kiln_value *oi_split_leading(oi_ctx *c, kiln_value *v, kiln_value *like, uint32_t n);
/* Reshape of x to a shape with run-time entries (ONNX 0 and -1 rules). */
bool oi_reshape_dynamic(oi_ctx *c, oi_node *n, oi_val *x, int64_t rank, const int64_t *stat,
                        kiln_value *const *dyn, bool allowzero);

/* ---- reductions shared by several families (import_reduce.c) ---- */
/* LogSoftmax of v along axis (float). */
kiln_value *oi_log_softmax(oi_ctx *c, kiln_value *v, int32_t dtype, uint32_t axis);
typedef enum { OI_RED_SUM, OI_RED_MAX, OI_RED_MIN, OI_RED_PROD } oi_red_op;
/* Reduces the axes marked in `axes` (rank entries); keepdims keeps them as
 * size 1. Accumulates in the element type. */
kiln_value *oi_reduce(oi_ctx *c, kiln_value *v, int32_t dtype, const bool *axes,
                      bool keepdims, oi_red_op op);

/* ---- products shared by several families ---- */
/* MatMul of two IR values (numpy: 1-D promotion, batch broadcasting). */
kiln_value *oi_matmul_ir(oi_ctx *c, kiln_value *a, kiln_value *b);
/* [..., M, K] i8 x [K, N] i8 -> [..., M, N] i32 (K and N static, the
 * leading dims maybe of run-time size): one linalg.matmul on the
 * [rows, K] view, accumulating in i32. */
kiln_value *oi_matmul_i32(oi_ctx *c, kiln_value *a, kiln_value *b);
/* Conv of IR values X [N, C, ...] and W [M, C/group, k...] with node N's
 * window attributes, no bias, in W's element type. Padding is zero, or
 * `pad` for an integer X (the byte of a zero point); an integer X under a
 * float W converts in the body (exact for bytes). */
kiln_value *oi_conv_ir(oi_ctx *c, oi_node *n, kiln_value *x, kiln_value *w, int64_t pad);
/* r + B [M] along dim 1. */
kiln_value *oi_add_bias(oi_ctx *c, kiln_value *r, oi_val *b);

/* ---- sliding windows (import_conv.c) ---- */
typedef struct oi_window {
  uint32_t spatial;                 /* number of spatial dims */
  int64_t in[OI_MAX_RANK], k[OI_MAX_RANK], out[OI_MAX_RANK];
  int64_t stride[OI_MAX_RANK], dil[OI_MAX_RANK];
  int64_t lo[OI_MAX_RANK], hi[OI_MAX_RANK]; /* pads actually applied */
  int64_t pad_lo[OI_MAX_RANK], pad_hi[OI_MAX_RANK]; /* declared pads */
} oi_window;
/* Reads kernel_shape (when k is not given), strides, dilations, pads,
 * auto_pad and ceil_mode for a window over the trailing dims of x. */
bool oi_window_attrs(oi_ctx *c, oi_node *n, const kiln_type *x, const int64_t *k,
                     bool allow_ceil, oi_window *w);
/* Affine map input position o*s + k*d for spatial dim i with loop
 * positions of o and k. */
const kiln_affine_expr *oi_window_expr(oi_ctx *c, const oi_window *w, uint32_t i,
                                       uint32_t o_loop, uint32_t k_loop);

/* ---- sequences at run time (import_sequence.c) ----
 * Lists (OI_VAL_LIST): a sequence whose length only the run time knows,
 * built by the host with flow.list ops (a Loop that carries a sequence
 * runs as a host loop carrying its list). */
/* The element type a list holding elements of types a and b takes: the
 * dims that differ become '?', an unranked tensor where the ranks
 * differ; NULL (none known) takes the other. */
const kiln_type *oi_join_elem(oi_ctx *c, const kiln_type *a, const kiln_type *b);
/* !kiln.seq of element type t (NULL: none known yet, an unranked
 * placeholder) with elements of ONNX type dtype. */
const kiln_type *oi_list_type(oi_ctx *c, const kiln_type *t, int32_t dtype);
/* An OI_VAL_LIST over list value `list` of element type t (see
 * oi_list_type). */
oi_val *oi_list_new(oi_ctx *c, kiln_value *list, const kiln_type *t, int32_t dtype);
/* The element type of sequence value s (OI_VAL_SEQ: its elements' join;
 * OI_VAL_LIST: its own), NULL when none is known. */
const kiln_type *oi_seq_elem(oi_ctx *c, const oi_val *s);
/* Sequence value s as a list value of type oi_list_type(t): a list as
 * it is (its type must be that one), a static sequence created and
 * filled in order at the builder. NULL (failed) otherwise. */
kiln_value *oi_list_ir(oi_ctx *c, oi_val *s, const kiln_type *t);

#endif
