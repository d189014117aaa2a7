/* The importer's driver: graph -> func.func, node by node through the op
 * table (onnx_ops.def), plus the value table and error messages.
 *
 * Takes: a validated model (names are SSA, nodes topologically ordered).
 * Guarantees: every node is bound to a table row or refused with a message
 * naming node, op type, opset and the reason; graph inputs are ranked
 * tensors, a dim without dim_value dynamic ('?') unless --dim/--static-shape
 * bind it; outputs' declared element types and static shapes must agree
 * with what the importer computed where both are known (a disagreement is
 * an import bug or an invalid model, reported either way); the module
 * verifies. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "onnx_internal.h"

typedef struct oi_row {
  const char *domain; /* "" for ai.onnx */
  const char *name;
  int64_t min, max;   /* opsets of the domain */
  oi_import_fn fn;
  int kind;
  int form;           /* onnx_forms.def: how this version converts */
} oi_row;

static const oi_row oi_rows[] = {
#define OI_OP(NAME, MIN, MAX, FN, KIND, FORM) {"", NAME, MIN, MAX, FN, KIND, OI_FORM_##FORM},
#define OI_OP_IN(D, NAME, MIN, MAX, FN, KIND, FORM) {D, NAME, MIN, MAX, FN, KIND, OI_FORM_##FORM},
#include "onnx_ops.def"
#undef OI_OP
#undef OI_OP_IN
};

static bool is_default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

static const char *domain_name(const char *d) { return is_default_domain(d) ? "ai.onnx" : d; }

static bool same_domain(const char *row, const char *node) {
  return is_default_domain(node) ? !*row : strcmp(row, node) == 0;
}

/* The row of OP_TYPE in DOMAIN at OPSET; NULL when there is none, with
 * [*lo, *hi] the span of the op's rows at other opsets (empty: lo > hi). */
static const oi_row *find_row(const char *domain, const char *op_type, int64_t opset, int64_t *lo,
                              int64_t *hi) {
  *lo = INT64_MAX, *hi = INT64_MIN;
  for (size_t i = 0; i < sizeof oi_rows / sizeof oi_rows[0]; i++) {
    const oi_row *r = &oi_rows[i];
    if (strcmp(r->name, op_type) != 0 || !same_domain(r->domain, domain)) continue;
    if (opset >= r->min && opset <= r->max) return r;
    if (r->min < *lo) *lo = r->min;
    if (r->max > *hi) *hi = r->max;
  }
  return NULL;
}

bool kiln_onnx_import_supports(const char *op_type, int64_t opset) {
  int64_t lo, hi;
  return find_row("", op_type, opset, &lo, &hi) != NULL;
}

bool oi_fail(oi_ctx *c, kiln_onnx_code code, const char *fmt, ...) {
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (c->node) {
    char q[OX_QUOTE_MAX];
    const Onnx__NodeProto *np = c->node->proto;
    return ox_fail(c->st, code, "node %zu %s (%s, %s opset %lld): %s",
                   c->node->index, ox_quote(q, np->name ? np->name : ""),
                   np->op_type, domain_name(np->domain), (long long)c->opset, what);
  }
  return ox_fail(c->st, code, "%s", what);
}

/* ---- value table: FNV-1a over names, open addressing ---- */
static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static oi_val **slot_of(oi_ctx *c, const char *name) {
  size_t i = (size_t)name_hash(name) & (c->cap - 1);
  while (c->slots[i] && strcmp(c->slots[i]->name, name) != 0)
    i = (i + 1) & (c->cap - 1);
  return &c->slots[i];
}

/* A tombstone (a name a finished subgraph defined) reads as undefined. */
static bool tombstone(const oi_val *v) { return v->kind == OI_VAL_TENSOR && !v->type; }

static oi_val *lookup(oi_ctx *c, const char *name) {
  oi_val *v = c->cap ? *slot_of(c, name) : NULL;
  return v && !tombstone(v) ? v : NULL;
}

/* Ends a scope begun at undo position MARK: names defined since get
 * their previous meaning back (a removed name leaves a tombstone the
 * lookup skips: a NULL binding under its name). */
static void scope_end(oi_ctx *c, size_t mark) {
  while (c->nundo > mark) {
    struct oi_undo *u = &c->undo[--c->nundo];
    oi_val **s = slot_of(c, u->name);
    if (u->prev) *s = u->prev;
    else { /* keep the slot occupied so probing still finds later names */
      oi_val *t = kiln_alloc(c->ctx, sizeof *t); /* zeroed: a tensor without a type */
      t->name = u->name;
      *s = t;
    }
  }
}

static void define(oi_ctx *c, oi_val *v) {
  if (c->depth) { /* inside a subgraph: remember what the name meant */
    if (c->nundo == c->capundo) {
      size_t ncap = c->capundo ? 2 * c->capundo : 64;
      struct oi_undo *u = kiln_alloc(c->ctx, ncap * sizeof *u);
      if (c->nundo) memcpy(u, c->undo, c->nundo * sizeof *u);
      c->undo = u, c->capundo = ncap;
    }
    c->undo[c->nundo].name = v->name;
    c->undo[c->nundo++].prev = lookup(c, v->name);
  }
  if (2 * (c->count + 1) > c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 64;
    oi_val **old = c->slots;
    size_t ocap = c->cap;
    c->slots = kiln_alloc(c->ctx, ncap * sizeof *c->slots);
    c->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
      if (old[i]) *slot_of(c, old[i]->name) = old[i];
  }
  oi_val **s = slot_of(c, v->name);
  if (!*s) c->count++;
  *s = v;
}

/* ---- graph inputs ---- */
/* The binding of dim_param NAME (--dim), or -1. */
static int64_t bound_dim(const oi_ctx *c, const char *name) {
  for (uint32_t i = 0; c->opts && name && i < c->opts->ndims; i++)
    if (strcmp(c->opts->dim_names[i], name) == 0) return c->opts->dim_values[i];
  return -1;
}

/* The --static-shape binding of graph input NAME, or -1. */
static int shape_binding(const oi_ctx *c, const char *name) {
  for (uint32_t i = 0; c->opts && i < c->opts->nshapes; i++)
    if (strcmp(c->opts->shape_inputs[i], name) == 0) return (int)i;
  return -1;
}

/* The sequence input NAME's --sequence-length, or -1. */
static int64_t seq_length(const oi_ctx *c, const char *name) {
  for (uint32_t i = 0; c->opts && i < c->opts->nseqs; i++)
    if (strcmp(c->opts->seq_inputs[i], name) == 0) return c->opts->seq_lengths[i];
  return -1;
}

/* A sequence type, or an optional of one: the sequence type; else NULL. */
static const Onnx__TypeProto__Sequence *seq_type_of(const Onnx__TypeProto *tp) {
  if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type->elem_type)
    tp = tp->optional_type->elem_type;
  return tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? tp->sequence_type : NULL;
}

/* The tensor type TP of the value NAME (a graph input or output, or
 * NAME[k], an element of a sequence input): dim_value dims static; a
 * dim_param or missing dim '?' unless --dim or --static-shape binds it;
 * an unknown rank only with a --static-shape. */
static bool value_type_of(oi_ctx *c, const char *name, const Onnx__TypeProto *tp, const char *what,
                          const kiln_type **out, int32_t *dtype) {
  char q[OX_QUOTE_MAX];
  if (seq_type_of(tp))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s %s: a sequence, whose length is known only at run time (dynamic "
                   "shapes; --sequence-length=NAME=N compiles it for N tensors)", what, ox_quote(q, name));
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    return oi_unsupported(c, "%s %s: only tensor, sequence and optional types are supported", what,
                          ox_quote(q, name));
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  if (!oi_elem_type(c, tt->elem_type) && !oi_dtype_is_string(tt->elem_type))
    return oi_unsupported(c, "%s %s: element type %s is not supported", what,
                          ox_quote(q, name), oi_dtype_name(tt->elem_type));
  int sb = shape_binding(c, name);
  if (!tt->shape && sb < 0)
    return oi_unsupported(c, "%s %s: unknown rank (give its shape with --static-shape)", what,
                          ox_quote(q, name));
  size_t rank = tt->shape ? tt->shape->n_dim : c->opts->shape_ranks[sb];
  if (rank > OI_MAX_RANK)
    return oi_unsupported(c, "%s %s: rank %zu exceeds %d", what, ox_quote(q, name),
                          rank, OI_MAX_RANK);
  int64_t shape[OI_MAX_RANK];
  if (sb >= 0 && c->opts->shape_ranks[sb] != rank)
    return oi_invalid(c, "--static-shape for %s %s has %u dims, the input has rank %zu", what,
                      ox_quote(q, name), c->opts->shape_ranks[sb], rank);
  for (size_t i = 0; i < rank; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape ? tt->shape->dim[i] : NULL;
    bool param = d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    if (!d || d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      /* a dim_param or an unknown dim: dynamic unless bound */
      int64_t b = sb >= 0 ? c->opts->shapes[sb][i] : param ? bound_dim(c, d->dim_param) : -1;
      shape[i] = b >= 0 ? b : KILN_DYNAMIC;
      continue;
    }
    if (d->dim_value < 0)
      return oi_fail(c, KILN_ONNX_ERR_DIMS, "%s %s: dimension %zu is %lld", what,
                     ox_quote(q, name), i, (long long)d->dim_value);
    if (sb >= 0 && c->opts->shapes[sb][i] != d->dim_value)
      return oi_invalid(c, "--static-shape for %s %s: dimension %zu is %lld in the model, not %lld", what,
                        ox_quote(q, name), i, (long long)d->dim_value,
                        (long long)c->opts->shapes[sb][i]);
    shape[i] = d->dim_value;
  }
  char full[OX_QUOTE_MAX + 32];
  snprintf(full, sizeof full, "%s %s", what, ox_quote(q, name));
  if (!oi_dims_ok(c, (uint32_t)rank, shape, full)) return false;
  *out = oi_tensor_type(c, (uint32_t)rank, shape, tt->elem_type);
  *dtype = tt->elem_type;
  return true;
}

/* NAME followed by "[k]" (K >= 0) or by TAIL (K < 0). */
static const char *suffixed(oi_ctx *c, const char *name, const char *tail, long long k) {
  char buf[64];
  if (k >= 0) snprintf(buf, sizeof buf, "[%lld]", k);
  else snprintf(buf, sizeof buf, "%s", tail);
  size_t n = strlen(name), m = strlen(buf);
  char *s = kiln_alloc(c->ctx, n + m + 1);
  memcpy(s, name, n);
  memcpy(s + n, buf, m + 1);
  return s;
}

/* ONNX's uint8..uint64 at the function boundary: the signature keeps the
 * sign (tensor<3xui8>, so the runtime checks u8 inputs and writes u8
 * results), the body computes on signless integers with the sign in each
 * value's ONNX dtype; tensor.bitcast converts between the two, which
 * later stages treat as a view of the same bytes. NULL when T needs no
 * conversion. */
static const kiln_type *boundary_type(oi_ctx *c, const kiln_type *t, int32_t dtype) {
  if (!oi_dtype_is_unsigned(dtype) || dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) return NULL;
  const kiln_type *e = kiln_type_int_sign(c->ctx, t->elem->width, KILN_UNSIGNED);
  return kiln_type_tensor(c->ctx, t->rank, t->shape, e, NULL);
}

static kiln_value *bitcast(oi_ctx *c, kiln_value *v, const kiln_type *to) {
  /* a round trip (an unsigned input returned as is) is the input itself */
  if (v->def && v->def->kind == KILN_OP_TENSOR_BITCAST && kiln_op_operand(v->def, 0)->type == to)
    return kiln_op_operand(v->def, 0);
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_BITCAST, 1, &v, 1, &to, NULL), 0);
}

static bool is_initializer(const Onnx__GraphProto *g, const char *name) {
  for (size_t i = 0; i < g->n_initializer; i++)
    if (strcmp(g->initializer[i]->name, name) == 0) return true;
  return false;
}

static bool define_initializer(oi_ctx *c, const Onnx__TensorProto *t) {
  char q[OX_QUOTE_MAX];
  if (!oi_elem_type(c, t->data_type))
    return oi_unsupported(c, "initializer %s: element type %s is not supported",
                          ox_quote(q, t->name), oi_dtype_name(t->data_type));
  if (t->n_dims > OI_MAX_RANK)
    return oi_unsupported(c, "initializer %s: rank %zu exceeds %d", ox_quote(q, t->name),
                          t->n_dims, OI_MAX_RANK);
  char full[OX_QUOTE_MAX + 32];
  snprintf(full, sizeof full, "initializer %s", ox_quote(q, t->name));
  if (!oi_dims_ok(c, (uint32_t)t->n_dims, t->dims, full)) return false;
  oi_val *v = oi_val_new(c, t->name,
                         oi_tensor_type(c, (uint32_t)t->n_dims, t->dims, t->data_type),
                         t->data_type);
  v->tensor = t;
  define(c, v);
  return true;
}

/* Symbol name from the graph name: [A-Za-z0-9_.$], not starting with a
 * digit; main_graph when empty. */
static const char *func_name(oi_ctx *c, const char *g) {
  if (!g || !*g) return "main_graph";
  size_t n = strlen(g);
  if (n > 200) n = 200;
  char *s = kiln_alloc(c->ctx, n + 2);
  size_t k = 0;
  if (g[0] >= '0' && g[0] <= '9') s[k++] = '_';
  for (size_t i = 0; i < n; i++) {
    char ch = g[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$';
    s[k++] = ok ? ch : '_';
  }
  return s;
}

static const kiln_attr *name_dict(oi_ctx *c, const char *name) {
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "kiln.name"),
                       kiln_attr_string(c->ctx, name, strlen(name))};
  return kiln_attr_dict(c->ctx, 1, &e);
}

/* The node as the ops imported from it name it (kiln_loc.nodes):
 * "NAME (OP_TYPE)", an unnamed node "OP_TYPE#INDEX (OP_TYPE)". */
static const char *node_label(kiln_context *ctx, const Onnx__NodeProto *np, size_t index) {
  const char *op = np->op_type ? np->op_type : "?";
  char buf[512];
  int n = np->name && np->name[0] ? snprintf(buf, sizeof buf, "%s (%s)", np->name, op)
                                   : snprintf(buf, sizeof buf, "%s#%zu (%s)", op, index, op);
  for (char *p = buf; *p; p++)
    if (*p == '\n') *p = ' '; /* one node, one line */
  const size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
  return kiln_intern(ctx, buf, len);
}

/* The import functions that take sequences and optionals; every other
 * one is given tensors only. */
static bool takes_structured(oi_import_fn fn) {
  return fn == oi_import_sequence || fn == oi_import_optional || fn == oi_import_identity || fn == oi_import_if ||
         fn == oi_import_loop || fn == oi_import_sequence_map;
}

/* The import functions written for run-time dims (KILN_DYNAMIC in a
 * shape): elementwise, matmul, convolution and pooling over a run-time
 * batch, normalizations, softmax, the view ops, and the sequence ops
 * and SequenceMap (structure only; import_sequence.c refuses run-time
 * dims where it sizes pieces, a SequenceMap body's nodes are checked
 * each). Every other one does
 * static shape arithmetic, which the unknown-dim marker would overflow,
 * so an input with a run-time dim is refused as 'dynamic' before it runs
 * (older versions' conversions that size things check in import_upgrade.c). */
static bool takes_run_time_dims(oi_import_fn fn) {
  static const oi_import_fn fns[] = {
      oi_import_unary,     oi_import_binary,      oi_import_variadic,    oi_import_where,
      oi_import_clip,      oi_import_cast,        oi_import_identity,    oi_import_dropout,
      oi_import_matmul,    oi_import_gemm,        oi_import_fused_matmul, oi_import_fused_gemm,
      oi_import_conv,      oi_import_fused_conv,  oi_import_pool,        oi_import_batchnorm,
      oi_import_layernorm, oi_import_layernorm_ort, oi_import_softmax,   oi_import_ms_gelu,
      oi_import_reshape,   oi_import_transpose,   oi_import_concat,      oi_import_slice,
      oi_import_squeeze,   oi_import_unsqueeze,   oi_import_flatten,     oi_import_shape_of,
      oi_import_size,      oi_import_gather,      oi_import_split,       oi_import_reduce,
      oi_import_expand,    oi_import_constant_of_shape, oi_import_constant, oi_import_nonzero,
      oi_import_compress,  oi_import_sequence,    oi_import_sequence_map, oi_import_nms,
      oi_import_quantize,  oi_import_dequantize,  oi_import_loop, /* each body node is gated itself */
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (fns[i] == fn) return true;
  return false;
}

static const char *kind_name(oi_val_kind k) {
  return k == OI_VAL_SEQ ? "a sequence" : k == OI_VAL_OPT ? "an optional" : "a tensor";
}

static bool import_node(oi_ctx *c, const Onnx__NodeProto *np, size_t index) {
  oi_node n = {.proto = np, .index = index, .op_type = np->op_type,
               .nin = np->n_input, .nout = np->n_output};
  oi_node *outer = c->node; /* a subgraph's node: its If/Loop/Scan stays outside */
  c->node = &n;
  if (++c->imported > OI_MAX_IMPORTED_NODES)
    return oi_unsupported(c, "more than %u node imports (unrolled loops and both If branches count)",
                          OI_MAX_IMPORTED_NODES);
  c->opset = kiln_onnx_model_opset(c->model, is_default_domain(np->domain) ? "" : np->domain);
  int64_t lo, hi;
  const oi_row *row = find_row(np->domain, np->op_type, c->opset, &lo, &hi);
  if (!row && lo <= hi)
    return oi_unsupported(c, "operator supported only for %s opsets %lld..%lld", domain_name(np->domain),
                          (long long)lo, (long long)hi);
  if (!row) return oi_unsupported(c, "operator not supported");
  n.kind = row->kind;
  n.in = kiln_alloc(c->ctx, (n.nin + 1) * sizeof *n.in);
  n.out = kiln_alloc(c->ctx, (n.nout + 1) * sizeof *n.out);
  for (size_t i = 0; i < n.nin; i++) {
    if (!np->input[i][0]) continue;
    n.in[i] = lookup(c, np->input[i]);
    if (!n.in[i]) {
      char q[OX_QUOTE_MAX];
      return oi_fail(c, KILN_ONNX_ERR_NAME, "input %zu %s is not defined", i,
                     ox_quote(q, np->input[i]));
    }
    if (n.in[i]->kind != OI_VAL_TENSOR && !takes_structured(row->fn))
      return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu is %s; %s takes tensors", i, kind_name(n.in[i]->kind),
                     np->op_type);
    /* strings live on the host: only the text ops take them */
    if (n.in[i]->kind == OI_VAL_TENSOR && oi_dtype_is_string(n.in[i]->dtype) && row->fn != oi_import_cast &&
        row->fn != oi_import_string_normalizer)
      return oi_unsupported(c, "input %zu: %s on string tensors is not supported", i, np->op_type);
  }
  char why[160];
  snprintf(why, sizeof why, "%s takes static shapes only", np->op_type);
  if (!takes_run_time_dims(row->fn) && !oi_refuse_dyn_inputs(c, &n, why)) return false;
  for (size_t i = 0; i < np->n_attribute; i++)
    if (np->attribute[i]->ref_attr_name && *np->attribute[i]->ref_attr_name)
      return oi_unsupported(c, "attribute '%s' refers to a function attribute",
                            np->attribute[i]->name);
  c->b.loc.line = (uint32_t)index + 1;
  c->b.loc.col = 0;
  c->b.loc.nodes = node_label(c->ctx, np, index);
  oi_upgrade up;
  bool handled = false;
  if (!oi_upgrade_node(c, &n, row->form, &up) ||
      (!up.done && (!oi_sym_node(c, &n, &handled) || (!handled && !row->fn(c, &n)))) ||
      !oi_upgrade_outputs(c, &n, &up) || !oi_resolve_dims(c))
    return false;
  for (size_t i = 0; i < n.nout; i++) {
    if (!np->output[i][0]) continue;
    if (!n.out[i])
      return c->st->code != KILN_ONNX_OK
                 ? false /* a builder failed and said why */
                 : oi_unsupported(c, "output %zu ('%s') is not produced by this importer", i, np->output[i]);
    n.out[i]->name = np->output[i];
    define(c, n.out[i]);
  }
  c->node = outer;
  return true;
}

bool oi_import_subgraph(oi_ctx *c, const Onnx__GraphProto *g, oi_val *const *actuals, size_t nact,
                        oi_val **outs) {
  oi_node *outer = c->node;
  kiln_loc loc = c->b.loc;
  int64_t opset = c->opset;
  size_t mark = c->nundo;
  bool ok = true;
  c->depth++;
  for (size_t i = 0; ok && i < g->n_initializer; i++) ok = define_initializer(c, g->initializer[i]);
  for (size_t i = 0; ok && i < g->n_input && i < nact; i++) {
    if (!actuals[i]) continue;
    oi_val *v = oi_val_copy(c, actuals[i]);
    v->name = g->input[i]->name;
    define(c, v);
  }
  for (size_t k = 0; ok && k < g->n_node; k++) ok = import_node(c, g->node[k], k);
  for (size_t i = 0; ok && i < g->n_output; i++) {
    outs[i] = lookup(c, g->output[i]->name);
    if (!outs[i]) {
      char q[OX_QUOTE_MAX];
      c->node = outer;
      ok = oi_fail(c, KILN_ONNX_ERR_NAME, "subgraph %s: output %s is not defined", g->name ? g->name : "",
                   ox_quote(q, g->output[i]->name));
    }
  }
  if (ok) c->node = outer; /* on an error it names the subgraph's node */
  scope_end(c, mark);
  c->depth--;
  c->b.loc = loc;
  c->opset = opset;
  return ok;
}

static void shape_str(char *buf, size_t n, const kiln_type *t) {
  size_t k = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < t->rank && k + 24 < n; i++)
    k += t->shape[i] == KILN_DYNAMIC ? (size_t)snprintf(buf + k, n - k, "%s?", i ? "x" : "")
                                     : (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "x" : "",
                                                        (long long)t->shape[i]);
  if (t->rank == 0) snprintf(buf, n, "scalar");
}

/* A declared output type must agree with the imported one where it is
 * known: element type, rank and static dims. */
static bool check_output(oi_ctx *c, const Onnx__ValueInfoProto *vi, const oi_val *v) {
  char q[OX_QUOTE_MAX];
  const Onnx__TypeProto *tp = vi->type;
  if (!tp) return true;
  if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    return oi_unsupported(c, "graph output %s: only tensor types are supported",
                          ox_quote(q, vi->name));
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  if (tt->elem_type && tt->elem_type != v->dtype)
    return oi_fail(c, KILN_ONNX_ERR_TYPE,
                   "graph output %s: declared element type %s, computed %s",
                   ox_quote(q, vi->name), oi_dtype_name(tt->elem_type), oi_dtype_name(v->dtype));
  if (!tt->shape) return true;
  bool bad = tt->shape->n_dim != v->type->rank;
  for (size_t i = 0; !bad && i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
        v->type->shape[i] != KILN_DYNAMIC && d->dim_value != v->type->shape[i])
      bad = true;
  }
  if (bad) {
    char s[128];
    shape_str(s, sizeof s, v->type);
    return oi_fail(c, KILN_ONNX_ERR_TYPE,
                   "graph output %s: computed shape %s (rank %u) disagrees with the declared one",
                   ox_quote(q, vi->name), s, v->type->rank);
  }
  return true;
}

/* A graph output as the tensors the function returns for it (see the
 * results above); checked against the declared type where known. */
static bool flatten_output(oi_ctx *c, const Onnx__ValueInfoProto *vi, oi_val *v, oi_val **flat, const char **names,
                           size_t *n) {
  char q[OX_QUOTE_MAX];
  const Onnx__TypeProto *tp = vi->type;
  if (v->kind == OI_VAL_TENSOR) {
    if (!check_output(c, vi, v)) return false;
    flat[0] = v, names[0] = vi->name, *n = 1;
    return true;
  }
  if (v->kind == OI_VAL_SEQ) {
    if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
      return oi_fail(c, KILN_ONNX_ERR_TYPE, "graph output %s: a sequence, declared otherwise", ox_quote(q, vi->name));
    if (v->len + 1 > OI_MAX_FLAT) return oi_unsupported(c, "graph output %s: a sequence of %u tensors", ox_quote(q, vi->name), v->len);
    for (uint32_t k = 0; k < v->len; k++) flat[k] = v->elems[k], names[k] = suffixed(c, vi->name, NULL, k);
    *n = v->len;
    return true;
  }
  if (v->kind == OI_VAL_LIST) { /* a sequence whose length the run time decides: one list result */
    if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
      return oi_fail(c, KILN_ONNX_ERR_TYPE, "graph output %s: a sequence, declared otherwise", ox_quote(q, vi->name));
    flat[0] = v, names[0] = vi->name, *n = 1;
    return true;
  }
  if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "graph output %s: an optional, declared otherwise", ox_quote(q, vi->name));
  const kiln_type *bt = oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  oi_val *flag = oi_val_new(c, NULL, bt, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  if (v->has) flag->v = v->has;
  else flag->cst = oi_splat_int(c, bt, v->some != NULL);
  flat[0] = flag, names[0] = suffixed(c, vi->name, ".has_value", -1);
  *n = 1;
  oi_val *some = v->some;
  if (!some) { /* none: the declared tensor type gives the zeros to return */
    const Onnx__TypeProto *et = tp && tp->optional_type ? tp->optional_type->elem_type : NULL;
    if (v->seq_elem || (et && et->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)) return true; /* no elements */
    const kiln_type *t;
    int32_t dt;
    if (!et || !value_type_of(c, vi->name, et, "graph output", &t, &dt)) return false;
    some = oi_val_new(c, NULL, t, dt);
    some->cst = oi_dense_zero(c, t);
  }
  if (some->kind == OI_VAL_SEQ) {
    if (some->len + 2 > OI_MAX_FLAT) return oi_unsupported(c, "graph output %s: a sequence of %u tensors", ox_quote(q, vi->name), some->len);
    for (uint32_t k = 0; k < some->len; k++) flat[1 + k] = some->elems[k], names[1 + k] = suffixed(c, vi->name, NULL, k);
    *n = 1 + some->len;
    return true;
  }
  flat[1] = some, names[1] = vi->name, *n = 2;
  return true;
}

/* Whether NAME is "INPUT[k]", element k of sequence input VI, k below
 * its --sequence-length. */
static bool names_element(oi_ctx *c, const Onnx__ValueInfoProto *vi, const char *name) {
  size_t n = strlen(vi->name);
  if (!seq_type_of(vi->type) || strncmp(name, vi->name, n) != 0 || name[n] != '[') return false;
  char *end;
  long long k = strtoll(name + n + 1, &end, 10);
  return end != name + n + 1 && name[n + 1] != '-' && end[0] == ']' && !end[1] && k < seq_length(c, vi->name);
}

bool kiln_onnx_import(kiln_context *ctx, kiln_onnx_model *model,
                      kiln_op **module_out, kiln_onnx_status *status) {
  return kiln_onnx_import_with(ctx, model, NULL, module_out, status);
}

/* A graph input's dynamic dims at the function's entry: tensor.dim each;
 * with TIE, a dim_param seen before gets a check against its first dim,
 * which every later use shares. Records {kiln.dims} names on the
 * argument. */
static bool input_dims(oi_ctx *c, const Onnx__TypeProto *tp, oi_val *a, const kiln_attr **attrs, bool tie) {
  const Onnx__TensorShapeProto *sp = tp->tensor_type->shape; /* NULL: rank from --static-shape */
  const kiln_attr *names[OI_MAX_RANK];
  bool any = false;
  for (uint32_t d = 0; d < a->type->rank; d++) {
    const Onnx__TensorShapeProto__Dimension *dp = sp ? sp->dim[d] : NULL;
    const char *nm = dp && dp->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? dp->dim_param : "";
    names[d] = kiln_attr_string(c->ctx, nm, strlen(nm));
    if (!oi_dyn(a->type, d)) continue;
    any |= *nm != 0;
    kiln_value *x = oi_dim(c, a, d);
    if (!*nm || !tie) continue;
    uint32_t k = 0;
    while (k < c->nsyms && strcmp(c->sym_names[k], nm) != 0) k++;
    if (k < c->nsyms) {
      kiln_value *ops[2] = {x, c->sym_dims[k]};
      kiln_build(&c->b, KILN_OP_FLOW_CHECK_DIM_EQ, 2, ops, 0, NULL, NULL);
      continue;
    }
    if (c->nsyms == c->cap_syms) {
      uint32_t cap = c->cap_syms ? 2 * c->cap_syms : 8;
      const char **nn = kiln_alloc(c->ctx, cap * sizeof *nn);
      kiln_value **nd = kiln_alloc(c->ctx, cap * sizeof *nd);
      for (uint32_t i = 0; i < c->nsyms; i++) nn[i] = c->sym_names[i], nd[i] = c->sym_dims[i];
      c->sym_names = nn, c->sym_dims = nd, c->cap_syms = cap;
    }
    c->sym_names[c->nsyms] = nm;
    c->sym_dims[c->nsyms++] = x;
  }
  if (any) *attrs = kiln_dict_set(c->ctx, *attrs, "kiln.dims",
                                  kiln_attr_array(c->ctx, a->type->rank, names));
  return true;
}

bool kiln_onnx_import_with(kiln_context *ctx, kiln_onnx_model *model,
                           const kiln_onnx_import_options *options, kiln_op **module_out,
                           kiln_onnx_status *status) {
  if (status) {
    status->code = KILN_ONNX_OK;
    status->message[0] = 0;
  }
  if (module_out) *module_out = NULL;
  kiln_onnx_status local;
  oi_ctx c = {.ctx = ctx, .model = model, .st = status ? status : &local, .opts = options};
  if (!ctx || !model || !module_out)
    return ox_fail(c.st, KILN_ONNX_ERR_UNSUPPORTED, "import: missing context, model or output");
  const Onnx__ModelProto *mp = kiln_onnx_model_proto(model);
  const Onnx__GraphProto *g = mp->graph;
  /* the loader checked the default domain's opset where a node uses it */
  c.opset = kiln_onnx_model_opset(model, "");
  if (mp->n_functions)
    return oi_unsupported(&c, "model-local functions are not supported (%zu defined)",
                          mp->n_functions);

  kiln_loc loc = {kiln_intern_cstr(ctx, "onnx"), 0, 0, NULL};
  kiln_op *module = kiln_module_create(ctx, loc);
  c.module = module;

  /* Initializers first: a graph input with an initializer of the same
   * name is a constant (its default is used; static import). */
  for (size_t i = 0; i < g->n_initializer; i++)
    if (!define_initializer(&c, g->initializer[i])) return false;

  /* every --sequence-length names a sequence input (checked first: a
   * sequence input without one is refused below) */
  for (uint32_t i = 0; options && i < options->nseqs; i++) {
    bool found = false;
    for (size_t k = 0; k < g->n_input && !found; k++)
      found = strcmp(g->input[k]->name, options->seq_inputs[i]) == 0 && seq_type_of(g->input[k]->type) &&
              !is_initializer(g, g->input[k]->name);
    if (!found)
      return oi_invalid(&c, "--sequence-length: the graph has no sequence input named '%s'", options->seq_inputs[i]);
  }

  /* arguments: one per tensor input; two per optional tensor input (the
   * tensor, then its presence as tensor<i1>); N per sequence input of
   * --sequence-length N, NAME[0]..NAME[N-1], then the presence flag when
   * the sequence is optional */
  size_t nargs = 0, cap = 1;
  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    int64_t len = seq_type_of(vi->type) ? seq_length(&c, vi->name) : 0;
    if (len > OI_MAX_FLAT) {
      char q[OX_QUOTE_MAX];
      return oi_unsupported(&c, "graph input %s: a sequence of %lld tensors (at most %d)", ox_quote(q, vi->name),
                            (long long)len, OI_MAX_FLAT);
    }
    cap += 2 + (len > 0 ? (size_t)len : 0);
  }
  const kiln_type **in_types = kiln_alloc(ctx, cap * sizeof *in_types);
  const kiln_attr **arg_attrs = kiln_alloc(ctx, cap * sizeof *arg_attrs);
  oi_val **args = kiln_alloc(ctx, cap * sizeof *args);
  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    if (is_initializer(g, vi->name)) continue;
    const Onnx__TypeProto__Sequence *st = seq_type_of(vi->type);
    bool opt = vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
    int64_t len = st ? seq_length(&c, vi->name) : 1;
    if (st && st->elem_type && st->elem_type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
      /* before the length: --sequence-length gives the outer one only, and
       * NAME[k] would be refused as a sequence no flag can name */
      char q[OX_QUOTE_MAX];
      return oi_unsupported(&c, "graph input %s: a sequence whose elements are %s (sequence inputs take "
                            "tensor elements only)", ox_quote(q, vi->name),
                            seq_type_of(st->elem_type) ? "sequences" : "not tensors");
    }
    if (len < 0) { /* no --sequence-length: refused as dynamic */
      const kiln_type *t;
      int32_t dt;
      return value_type_of(&c, vi->name, vi->type, "graph input", &t, &dt);
    }
    for (int64_t k = 0; k < len; k++) {
      const char *name = st ? suffixed(&c, vi->name, NULL, k) : vi->name;
      const kiln_type *t = NULL;
      int32_t dt = 0;
      if (!value_type_of(&c, name, st ? st->elem_type : opt ? vi->type->optional_type->elem_type : vi->type,
                         "graph input", &t, &dt))
        return false;
      args[nargs] = oi_val_new(&c, name, t, dt);
      const kiln_type *bt = boundary_type(&c, t, dt);
      in_types[nargs] = bt ? bt : t;
      arg_attrs[nargs] = name_dict(&c, name);
      nargs++;
    }
    if (opt) {
      const kiln_type *ft = oi_tensor_type(&c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
      args[nargs] = oi_val_new(&c, suffixed(&c, vi->name, ".has_value", -1), ft, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
      in_types[nargs] = ft;
      arg_attrs[nargs] = name_dict(&c, args[nargs]->name);
      nargs++;
    }
  }

  kiln_op *fn = kiln_op_create(ctx, KILN_OP_FUNC_FUNC, loc, 0, NULL, 0, NULL, NULL, 1);
  kiln_block *body = kiln_op_entry_block(ctx, fn, 0);
  c.b = kiln_builder_at_end(ctx, body);
  c.b.loc = loc;
  for (size_t i = 0; i < nargs; i++) {
    args[i]->v = kiln_block_add_arg(ctx, body, in_types[i], loc);
    if (in_types[i] != args[i]->type) args[i]->v = bitcast(&c, args[i]->v, args[i]->type);
  }
  /* each graph input's value: a tensor, or a sequence of its element
   * arguments; an optional of either with the flag that follows them */
  for (size_t i = 0, k = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    if (is_initializer(g, vi->name)) continue;
    const Onnx__TypeProto *tp = vi->type;
    const Onnx__TypeProto__Sequence *st = seq_type_of(tp);
    bool opt = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
    oi_val *v;
    if (st) {
      uint32_t len = (uint32_t)seq_length(&c, vi->name);
      const Onnx__TypeProto *et = st->elem_type;
      v = oi_val_new(&c, vi->name, NULL,
                     et && et->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? et->tensor_type->elem_type : 0);
      v->kind = OI_VAL_SEQ;
      v->len = len;
      v->elems = kiln_alloc(ctx, (len + 1) * sizeof *v->elems);
      /* the elements' dims are their own: ONNX Runtime takes tensors of
       * different sizes under one dim_param in a sequence */
      for (uint32_t j = 0; j < len; j++, k++) {
        if (!input_dims(&c, et, args[k], &arg_attrs[k], false)) return false;
        v->elems[j] = args[k];
      }
    } else {
      if (!input_dims(&c, opt ? tp->optional_type->elem_type : tp, args[k], &arg_attrs[k], true)) return false;
      v = args[k++];
    }
    if (opt) {
      oi_val *o = oi_val_new(&c, vi->name, NULL, v->dtype);
      o->kind = OI_VAL_OPT;
      o->some = v;
      o->has = args[k++]->v;
      o->seq_elem = st != NULL;
      v = o;
    }
    define(&c, v);
  }
  /* every --dim / --static-shape / --sequence-length names something */
  for (uint32_t i = 0; options && i < options->ndims; i++) {
    bool found = false;
    for (size_t k = 0; k < g->n_input && !found; k++) {
      const Onnx__TypeProto *tp = g->input[k]->type;
      const Onnx__TypeProto__Sequence *st = seq_type_of(tp);
      if (st) tp = st->elem_type;
      else if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) tp = tp->optional_type->elem_type;
      const Onnx__TensorShapeProto *sp = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
                                             ? tp->tensor_type->shape : NULL;
      for (size_t d = 0; sp && d < sp->n_dim && !found; d++)
        found = sp->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                strcmp(sp->dim[d]->dim_param, options->dim_names[i]) == 0;
    }
    if (!found) return oi_invalid(&c, "--dim=%s: no graph input has a dimension named '%s'",
                                  options->dim_names[i], options->dim_names[i]);
  }
  for (uint32_t i = 0; options && i < options->nshapes; i++) {
    bool found = false;
    for (size_t k = 0; k < g->n_input && !found; k++)
      found = !is_initializer(g, g->input[k]->name) &&
              (strcmp(g->input[k]->name, options->shape_inputs[i]) == 0 ||
               names_element(&c, g->input[k], options->shape_inputs[i]));
    if (!found) return oi_invalid(&c, "--static-shape: the graph has no input named '%s'", options->shape_inputs[i]);
  }

  for (size_t i = 0; i < g->n_node; i++)
    if (!import_node(&c, g->node[i], i)) return false;
  if (c.npending) return oi_fail(&c, KILN_ONNX_ERR_DYNAMIC, "a dynamic size was left unresolved");
  c.b.loc.line = 0;
  c.b.loc.nodes = NULL;

  /* results: a tensor output is one; a sequence one per element, named
   * NAME[k] (a list, whose length the run time decides, is one
   * !kiln.seq result, NAME); an optional its presence (NAME.has_value,
   * tensor<i1>) then its value (zeros when absent) */
  size_t nres = 0, rcap = 0;
  for (size_t i = 0; i < g->n_output; i++) {
    oi_val *v = lookup(&c, g->output[i]->name);
    rcap += v ? 2 + (v->kind == OI_VAL_SEQ ? v->len : v->kind == OI_VAL_OPT && v->some ? v->some->len : 0) : 1;
  }
  const kiln_type **out_types = kiln_alloc(ctx, (rcap + 1) * sizeof *out_types);
  const kiln_attr **res_attrs = kiln_alloc(ctx, (rcap + 1) * sizeof *res_attrs);
  kiln_value **rets = kiln_alloc(ctx, (rcap + 1) * sizeof *rets);
  for (size_t i = 0; i < g->n_output; i++) {
    const Onnx__ValueInfoProto *vi = g->output[i];
    oi_val *v = lookup(&c, vi->name);
    if (!v) {
      char q[OX_QUOTE_MAX];
      return oi_fail(&c, KILN_ONNX_ERR_NAME, "graph output %s is not defined",
                     ox_quote(q, vi->name));
    }
    oi_val *flat[OI_MAX_FLAT];
    const char *names[OI_MAX_FLAT];
    size_t nflat = 0;
    if (!flatten_output(&c, vi, v, flat, names, &nflat)) return false;
    for (size_t k = 0; k < nflat; k++) {
      rets[nres] = oi_ir(&c, flat[k]);
      if (!rets[nres]) return false;
      const kiln_type *bt = flat[k]->kind == OI_VAL_LIST ? NULL : boundary_type(&c, flat[k]->type, flat[k]->dtype);
      if (bt) rets[nres] = bitcast(&c, rets[nres], bt);
      out_types[nres] = rets[nres]->type;
      res_attrs[nres++] = name_dict(&c, names[k]);
    }
  }
  kiln_build(&c.b, KILN_OP_FUNC_RETURN, (uint32_t)nres, rets, 0, NULL, NULL);

  const kiln_type *fty = kiln_type_function(ctx, (uint32_t)nargs, in_types, (uint32_t)nres, out_types);
  const char *name = func_name(&c, g->name);
  kiln_op_set_attr(fn, "sym_name", kiln_attr_string(ctx, name, strlen(name)));
  kiln_op_set_attr(fn, "function_type", kiln_attr_type(ctx, fty));
  if (nargs) kiln_op_set_attr(fn, "arg_attrs", kiln_attr_array(ctx, (uint32_t)nargs, arg_attrs));
  if (nres) kiln_op_set_attr(fn, "res_attrs", kiln_attr_array(ctx, (uint32_t)nres, res_attrs));
  kiln_block_append_op(kiln_module_body(module), fn);
  *module_out = module;
  return true;
}
