/* The memref dialect: syntax (as mlir-opt-19 prints it) and verifiers of
 * load, store, alloca/alloc, dim, cast, subview, reinterpret_cast,
 * collapse/expand_shape and copy. Mixed static/dynamic lists are kept as
 * MLIR keeps them: static_* dense arrays with KILN_DYNAMIC holes plus
 * index operands, counted by operandSegmentSizes. Also the strided-layout
 * query the lowering to LLVM relies on. */
#include "dialects.h"

#include <string.h>

static bool is_memref(const kiln_type *t) { return t->kind == KILN_TYPE_MEMREF; }

static const char *const seg_elide[] = {"operandSegmentSizes", "static_offsets",
                                        "static_sizes", "static_strides",
                                        "static_output_shape", "reassociation",
                                        NULL};

bool kiln_memref_strides(const kiln_type *t, int64_t *strides, int64_t *offset) {
  const kiln_attr *l = t->layout;
  if (l && l->kind == KILN_ATTR_STRIDED) {
    if (l->count != t->rank) return false;
    for (uint32_t i = 0; i < t->rank; i++) strides[i] = ((const int64_t *)l->data)[i];
    *offset = l->i;
    return true;
  }
  if (l && !(l->kind == KILN_ATTR_AFFINE_MAP && kiln_affine_map_is_identity(l->map)))
    return false;
  int64_t s = 1;
  for (uint32_t i = t->rank; i-- > 0;) {
    strides[i] = s;
    if (s != KILN_DYNAMIC)
      s = t->shape[i] == KILN_DYNAMIC ? KILN_DYNAMIC : s * t->shape[i];
  }
  *offset = 0;
  return true;
}

/* ---- load / store: "%m[%i, %j] : memref<...>" ---- */
bool memref_parse_load(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_element_read_op(p, st, kiln_p_memref_type);
}

static bool check_access(kiln_op *op, uint32_t mi) {
  const kiln_type *t = kiln_op_operand(op, mi)->type;
  if (!is_memref(t)) return ir_type_error(op, "expected a ranked memref operand", t);
  if (op->num_operands - mi - 1 != t->rank)
    return kiln_op_emit_error(op, "incorrect number of indices: %u for a rank-%u memref",
                              op->num_operands - mi - 1, t->rank);
  return ir_operands_are_index(op, mi + 1, op->num_operands);
}

bool memref_verify_load(kiln_op *op) {
  if (!check_access(op, 0)) return false;
  if (op->results[0].type != kiln_op_operand(op, 0)->type->elem)
    return kiln_op_emit_error(op, "result type must match the element type of the memref");
  return true;
}

bool memref_parse_store(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v, m;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *t;
  return kiln_p_operand(p, &v) && kiln_p_expect(p, KILN_TOK_COMMA) &&
         kiln_p_operand(p, &m) && kiln_p_square_operand_list(p, &ix) &&
         kiln_p_attrs_colon(p, st) && kiln_p_memref_type(p, &t) &&
         kiln_p_resolve_add(p, st, &v, t->elem) && kiln_p_resolve_add(p, st, &m, t) &&
         kiln_p_resolve_indices(p, st, &ix);
}

void memref_print_store(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 2);
  kiln_pr_square_operands(pr, op, 2, op->num_operands - 2);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 1)->type, NULL, NULL);
}

/* ---- prefetch: "%m[%i, %j], read|write, locality<0..3>, data|instr :
 * memref<...>" (attributes isWrite, localityHint, isDataCache, as MLIR
 * names them): a hint that the element's line is read soon; it reads
 * nothing, so an index past the end is no error. ---- */
bool memref_parse_prefetch(kiln_parser *p, kiln_op_state *st) {
  kiln_context *ctx = kiln_p_ctx(p);
  kiln_p_ssa_use m;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *t;
  const char *rw, *cache;
  int64_t hint;
  if (!kiln_p_operand(p, &m) || !kiln_p_square_operand_list(p, &ix) ||
      !kiln_p_expect(p, KILN_TOK_COMMA) || !kiln_p_keyword(p, &rw) ||
      !kiln_p_expect(p, KILN_TOK_COMMA) || !kiln_p_expect_keyword(p, "locality") ||
      !kiln_p_expect(p, KILN_TOK_LESS) || !kiln_p_int(p, &hint) ||
      !kiln_p_expect(p, KILN_TOK_GREATER) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_keyword(p, &cache))
    return false;
  if ((strcmp(rw, "read") && strcmp(rw, "write")) || (strcmp(cache, "data") && strcmp(cache, "instr")))
    return kiln_p_error(p, "expected 'read'/'write' and 'data'/'instr' in memref.prefetch");
  kiln_st_set_attr(st, "isWrite", kiln_attr_bool(ctx, !strcmp(rw, "write")));
  kiln_st_set_attr(st, "localityHint", kiln_attr_int(ctx, kiln_type_int(ctx, 32), hint));
  kiln_st_set_attr(st, "isDataCache", kiln_attr_bool(ctx, !strcmp(cache, "data")));
  return kiln_p_attrs_colon(p, st) && kiln_p_memref_type(p, &t) &&
         kiln_p_resolve_add(p, st, &m, t) && kiln_p_resolve_indices(p, st, &ix);
}

static const char *const prefetch_elide[] = {"isWrite", "localityHint", "isDataCache", NULL};

void memref_print_prefetch(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *w = kiln_op_get_attr(op, "isWrite"), *h = kiln_op_get_attr(op, "localityHint");
  const kiln_attr *d = kiln_op_get_attr(op, "isDataCache");
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_square_operands(pr, op, 1, op->num_operands - 1);
  kiln_pr_printf(pr, ", %s, locality<%lld>, %s", w && w->i ? "write" : "read", (long long)(h ? h->i : 3),
                 d && !d->i ? "instr" : "data");
  kiln_pr_attrs_types(pr, op, prefetch_elide, kiln_op_operand(op, 0)->type, NULL, NULL);
}

bool memref_verify_prefetch(kiln_op *op) {
  if (!check_access(op, 0)) return false;
  const kiln_attr *h = kiln_op_get_attr(op, "localityHint");
  if (!h || h->kind != KILN_ATTR_INTEGER || h->i < 0 || h->i > 3)
    return kiln_op_emit_error(op, "localityHint must be an integer in [0, 3]");
  const kiln_attr *w = kiln_op_get_attr(op, "isWrite"), *d = kiln_op_get_attr(op, "isDataCache");
  if (!w || w->kind != KILN_ATTR_BOOL || !d || d->kind != KILN_ATTR_BOOL)
    return kiln_op_emit_error(op, "isWrite and isDataCache must be bool attributes");
  return true;
}

bool memref_verify_store(kiln_op *op) {
  if (!check_access(op, 1)) return false;
  if (kiln_op_operand(op, 0)->type != kiln_op_operand(op, 1)->type->elem)
    return kiln_op_emit_error(op, "value type must match the element type of the memref");
  return true;
}

/* ---- alloca / alloc: "(%d...)[%sym...] {attrs} : memref<...>" ---- */
bool memref_parse_alloc(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses dyn = {0}, sym = {0};
  const kiln_type *t;
  if (!kiln_p_paren_operand_list(p, &dyn) ||
      (kiln_p_is(p, KILN_TOK_LSQUARE) && !kiln_p_square_operand_list(p, &sym)) ||
      !kiln_p_attrs_colon(p, st) || !kiln_p_memref_type(p, &t) ||
      !kiln_p_resolve_indices(p, st, &dyn) || !kiln_p_resolve_indices(p, st, &sym))
    return false;
  int64_t seg[2] = {dyn.n, sym.n};
  kiln_st_set_segments(st, 2, seg);
  kiln_st_add_type(st, t);
  return true;
}

static int64_t segment(const kiln_op *op, uint32_t i) {
  const kiln_attr *s = kiln_op_get_attr(op, "operandSegmentSizes");
  if (!s || s->kind != KILN_ATTR_DENSE_ARRAY || i >= s->count) return -1;
  return ((const int64_t *)s->data)[i];
}

void memref_print_alloc(kiln_printer *pr, const kiln_op *op) {
  int64_t nd = segment(op, 0);
  if (nd < 0 || nd > op->num_operands) nd = op->num_operands;
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, 0, (uint32_t)nd);
  kiln_pr_puts(pr, ")");
  if ((uint32_t)nd < op->num_operands)
    kiln_pr_square_operands(pr, op, (uint32_t)nd, op->num_operands - (uint32_t)nd);
  kiln_pr_attrs_types(pr, op, seg_elide, op->results[0].type, NULL, NULL);
}

bool memref_verify_alloc(kiln_op *op) {
  const kiln_type *t = op->results[0].type;
  if (!is_memref(t)) return ir_type_error(op, "result must be a ranked memref", t);
  int64_t nd = segment(op, 0), ns = segment(op, 1);
  if (nd < 0 || ns < 0 || nd + ns != op->num_operands)
    return kiln_op_emit_error(op, "operandSegmentSizes must hold 2 counts summing to the operand count");
  if ((uint32_t)nd != ir_count_dynamic_dims(t))
    return kiln_op_emit_error(op, "dimension operand count does not equal memref dynamic dimension count");
  const kiln_attr *a = kiln_op_get_attr(op, "alignment");
  if (a && (a->kind != KILN_ATTR_INTEGER || a->i <= 0 || (a->i & (a->i - 1))))
    return kiln_op_emit_error(op, "'alignment' must be a positive power of two");
  return ir_operands_are_index(op, 0, op->num_operands);
}

/* ---- dim: "%m, %i : memref<...>" ---- */
bool memref_verify_dim(kiln_op *op) {
  const kiln_type *t = kiln_op_operand(op, 0)->type;
  if (t->kind != KILN_TYPE_MEMREF && t->kind != KILN_TYPE_UNRANKED_MEMREF)
    return ir_type_error(op, "operand #0 must be a memref", t);
  if (op->results[0].type->kind != KILN_TYPE_INDEX)
    return kiln_op_emit_error(op, "result must be of index type");
  const kiln_attr *c = kiln_value_constant(kiln_op_operand(op, 1));
  if (c && c->kind == KILN_ATTR_INTEGER && t->kind == KILN_TYPE_MEMREF &&
      (c->i < 0 || c->i >= (int64_t)t->rank))
    return kiln_op_emit_error(op, "index is out of range");
  return ir_operands_are_index(op, 1, 2);
}

/* ---- cast: "%m : T to U" (kiln_p_cast_op) ---- */
/* Two static values disagree (a '?' on either side is compatible). */
static bool clash(int64_t a, int64_t b) {
  return a != KILN_DYNAMIC && b != KILN_DYNAMIC && a != b;
}

bool memref_verify_cast(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  bool ra = is_memref(a), rb = is_memref(b);
  if ((!ra && a->kind != KILN_TYPE_UNRANKED_MEMREF) ||
      (!rb && b->kind != KILN_TYPE_UNRANKED_MEMREF))
    return kiln_op_emit_error(op, "operand and result must be memrefs");
  if (a->elem != b->elem) return kiln_op_emit_error(op, "element types differ");
  if (!ra && !rb) return kiln_op_emit_error(op, "unranked to unranked casts are invalid");
  if (!ra || !rb) return true;
  if (a->rank != b->rank) return kiln_op_emit_error(op, "ranks differ");
  int64_t sa[KILN_MAX_LOOPS], sb[KILN_MAX_LOOPS], oa, ob;
  if (a->rank > KILN_MAX_LOOPS) return kiln_op_emit_error(op, "rank is too large");
  if (!kiln_memref_strides(a, sa, &oa) || !kiln_memref_strides(b, sb, &ob))
    return kiln_op_emit_error(op, "only strided layouts are supported");
  if (clash(oa, ob)) return kiln_op_emit_error(op, "static offsets differ");
  for (uint32_t i = 0; i < a->rank; i++)
    if (clash(a->shape[i], b->shape[i]) || clash(sa[i], sb[i]))
      return kiln_op_emit_error(op, "incompatible size or stride in dimension %u", i);
  return true;
}

/* ---- subview: "%m[offs] [sizes] [strides] : T to U" ---- */
bool memref_parse_subview(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_slice_op(p, st, kiln_p_memref_type);
}

void memref_print_subview(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_slice_op(pr, op, seg_elide);
}

/* The three static lists exist, have `n[k]` entries and their holes match
 * the dynamic operands after the source. */
static bool check_lists(kiln_op *op, const uint32_t n[3]) {
  static const char *const names[] = {"static_offsets", "static_sizes", "static_strides"};
  uint32_t holes = 0;
  for (int k = 0; k < 3; k++) {
    const kiln_attr *a = kiln_op_get_attr(op, names[k]);
    if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != n[k])
      return kiln_op_emit_error(op, "expected '%s' to hold %u entries", names[k], n[k]);
    holes += ir_count_dynamic(a);
  }
  if (holes != op->num_operands - 1)
    return kiln_op_emit_error(op, "expected %u dynamic operands for the '?' entries, got %u",
                              holes, op->num_operands - 1);
  return ir_operands_are_index(op, 1, op->num_operands);
}

bool memref_verify_subview(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  if (!is_memref(a) || !is_memref(b)) return kiln_op_emit_error(op, "expects ranked memrefs");
  if (a->elem != b->elem) return kiln_op_emit_error(op, "element types differ");
  uint32_t n[3] = {a->rank, a->rank, a->rank};
  if (!check_lists(op, n)) return false;
  if (b->rank > a->rank) return kiln_op_emit_error(op, "result rank exceeds source rank");
  int64_t s[KILN_MAX_LOOPS], o;
  if (a->rank > KILN_MAX_LOOPS || !kiln_memref_strides(a, s, &o) || !kiln_memref_strides(b, s, &o))
    return kiln_op_emit_error(op, "only strided layouts up to rank %d are supported", KILN_MAX_LOOPS);
  if (b->rank == a->rank) {
    /* The result layout must be the view's: strides scaled by the steps,
     * offset moved by the offsets (where both sides are static). */
    int64_t sa[KILN_MAX_LOOPS], sb[KILN_MAX_LOOPS], oa, ob;
    kiln_memref_strides(a, sa, &oa);
    kiln_memref_strides(b, sb, &ob);
    const int64_t *so = kiln_op_get_attr(op, "static_offsets")->data;
    const int64_t *ss = kiln_op_get_attr(op, "static_sizes")->data;
    const int64_t *st = kiln_op_get_attr(op, "static_strides")->data;
    int64_t off = oa;
    for (uint32_t i = 0; i < a->rank; i++) {
      if (ss[i] != KILN_DYNAMIC && b->shape[i] != KILN_DYNAMIC && ss[i] != b->shape[i])
        return kiln_op_emit_error(op, "size %u of the result type does not match the view", i);
      if (sa[i] != KILN_DYNAMIC && st[i] != KILN_DYNAMIC && sb[i] != KILN_DYNAMIC &&
          sa[i] * st[i] != sb[i])
        return kiln_op_emit_error(op, "stride %u of the result type should be %lld", i,
                                  (long long)(sa[i] * st[i]));
      if (off == KILN_DYNAMIC || so[i] == KILN_DYNAMIC || sa[i] == KILN_DYNAMIC) off = KILN_DYNAMIC;
      else off += so[i] * sa[i];
    }
    if (off != KILN_DYNAMIC && ob != KILN_DYNAMIC && off != ob)
      return kiln_op_emit_error(op, "offset of the result type should be %lld", (long long)off);
  } else {
    /* Rank reduction drops unit sizes only. */
    const int64_t *sz = kiln_op_get_attr(op, "static_sizes")->data;
    uint32_t units = 0;
    for (uint32_t i = 0; i < a->rank; i++) units += sz[i] == 1;
    if (a->rank - b->rank > units)
      return kiln_op_emit_error(op, "rank reduction may drop only dimensions of static size 1");
  }
  return true;
}

/* ---- reinterpret_cast: "%m to offset: [o], sizes: [..], strides: [..]" */
bool memref_parse_reinterpret_cast(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use m;
  kiln_p_ssa_uses dyn = {0};
  int64_t seg[4] = {1};
  const kiln_type *a, *b;
  if (!kiln_p_operand(p, &m) || !kiln_p_expect_keyword(p, "to") ||
      !kiln_p_slice(p, st, true, &dyn, seg + 1) || !kiln_p_attrs_colon(p, st) ||
      !kiln_p_type(p, &a) || !kiln_p_expect_keyword(p, "to") || !kiln_p_memref_type(p, &b) ||
      !kiln_p_resolve_add(p, st, &m, a) || !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_set_segments(st, 4, seg);
  kiln_st_add_type(st, b);
  return true;
}

void memref_print_reinterpret_cast(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, " to ");
  kiln_pr_slice(pr, op, 1, true);
  kiln_pr_attrs_types(pr, op, seg_elide, kiln_op_operand(op, 0)->type, " to ",
                      op->results[0].type);
}

bool memref_verify_reinterpret_cast(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  if ((!is_memref(a) && a->kind != KILN_TYPE_UNRANKED_MEMREF) || !is_memref(b))
    return kiln_op_emit_error(op, "expects a memref source and a ranked memref result");
  if (a->elem != b->elem) return kiln_op_emit_error(op, "element types differ");
  uint32_t n[3] = {1, b->rank, b->rank};
  if (!check_lists(op, n)) return false;
  int64_t s[KILN_MAX_LOOPS], o;
  if (b->rank > KILN_MAX_LOOPS || !kiln_memref_strides(b, s, &o))
    return kiln_op_emit_error(op, "result must have a strided layout");
  const int64_t *so = kiln_op_get_attr(op, "static_offsets")->data;
  const int64_t *ss = kiln_op_get_attr(op, "static_sizes")->data;
  const int64_t *st = kiln_op_get_attr(op, "static_strides")->data;
  if (so[0] != o) return kiln_op_emit_error(op, "offset does not match the result layout");
  for (uint32_t i = 0; i < b->rank; i++)
    if (ss[i] != b->shape[i] || st[i] != s[i])
      return kiln_op_emit_error(op, "size or stride %u does not match the result type", i);
  return true;
}

/* ---- collapse_shape / expand_shape (tensor's syntax on memrefs) ---- */
bool memref_parse_reshape(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_reshape_op(p, st, st->info->kind == KILN_OP_MEMREF_EXPAND_SHAPE,
                           kiln_p_memref_type);
}

void memref_print_reshape(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_reshape_op(pr, op, op->kind == KILN_OP_MEMREF_EXPAND_SHAPE, seg_elide);
}

/* Reassociation groups are contiguous, cover the larger rank in order, and
 * the static sizes of each group multiply to the matching dim. Views are
 * only valid over contiguous groups, which the identity layout the lowering
 * accepts guarantees (checked there). */
bool memref_verify_reshape(kiln_op *op) {
  bool expand = op->kind == KILN_OP_MEMREF_EXPAND_SHAPE;
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  if (!is_memref(src) || !is_memref(res)) return kiln_op_emit_error(op, "expects ranked memrefs");
  if (src->elem != res->elem) return kiln_op_emit_error(op, "expects matching element types");
  const kiln_type *big = expand ? res : src, *small = expand ? src : res;
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  if (!re || re->kind != KILN_ATTR_ARRAY)
    return kiln_op_emit_error(op, "requires a 'reassociation' attribute");
  if (re->count != small->rank && !(re->count == 0 && small->rank == 0))
    return kiln_op_emit_error(op, "expected %u reassociation groups, got %u", small->rank, re->count);
  uint32_t next = 0;
  for (uint32_t g = 0; g < re->count; g++) {
    const kiln_attr *grp = re->elems[g];
    if (grp->kind != KILN_ATTR_ARRAY || grp->count == 0)
      return kiln_op_emit_error(op, "expected reassociation groups to be non-empty lists");
    int64_t prod = 1;
    bool dyn = false;
    for (uint32_t j = 0; j < grp->count; j++) {
      const kiln_attr *e = grp->elems[j];
      if (e->kind != KILN_ATTR_INTEGER || e->i != (int64_t)next || next >= big->rank)
        return kiln_op_emit_error(op, "expected reassociation dims to be contiguous and in range");
      if (big->shape[next] == KILN_DYNAMIC) dyn = true;
      else prod *= big->shape[next];
      next++;
    }
    if (!dyn && small->shape[g] != KILN_DYNAMIC && small->shape[g] != prod)
      return kiln_op_emit_error(op, "group %u: sizes multiply to %lld, expected %lld", g,
                                (long long)prod, (long long)small->shape[g]);
  }
  if (next != big->rank && re->count)
    return kiln_op_emit_error(op, "reassociation does not cover all %u dims", big->rank);
  if (expand) {
    const kiln_attr *os = kiln_op_get_attr(op, "static_output_shape");
    if (!os || os->kind != KILN_ATTR_DENSE_ARRAY || os->count != res->rank)
      return kiln_op_emit_error(op, "expected 'static_output_shape' with %u entries", res->rank);
    if (ir_count_dynamic(os) != op->num_operands - 1)
      return kiln_op_emit_error(op, "output_shape has %u '?' entries but %u values",
                                ir_count_dynamic(os), op->num_operands - 1);
    return ir_operands_are_index(op, 1, op->num_operands);
  }
  return true;
}

/* ---- copy: "%a, %b : T to U" ---- */
bool memref_parse_copy(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use a, b;
  const kiln_type *ta, *tb;
  return kiln_p_operand(p, &a) && kiln_p_expect(p, KILN_TOK_COMMA) &&
         kiln_p_operand(p, &b) && kiln_p_attrs_colon(p, st) && kiln_p_type(p, &ta) &&
         kiln_p_expect_keyword(p, "to") && kiln_p_type(p, &tb) &&
         kiln_p_resolve_add(p, st, &a, ta) && kiln_p_resolve_add(p, st, &b, tb);
}

void memref_print_copy(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 2);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 0)->type, " to ",
                      kiln_op_operand(op, 1)->type);
}

bool memref_verify_copy(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = kiln_op_operand(op, 1)->type;
  if (!is_memref(a) || !is_memref(b)) return kiln_op_emit_error(op, "expects ranked memrefs");
  if (a->elem != b->elem || a->rank != b->rank)
    return kiln_op_emit_error(op, "source and target must have the same element type and rank");
  for (uint32_t i = 0; i < a->rank; i++)
    if (clash(a->shape[i], b->shape[i]))
      return kiln_op_emit_error(op, "source and target sizes differ in dimension %u", i);
  return true;
}
