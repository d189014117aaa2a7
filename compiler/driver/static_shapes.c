/* --dim, --static-shape and --sequence-length: compiling a function static.
 *
 * Takes: the session's shape bindings and the input. For ONNX input they
 * become the importer's options (dim_param names, graph input names and
 * sequence lengths, kiln_onnx_import_with). For MLIR input, --static-shape=FUNC:INDEX=DIMS
 * gives argument INDEX of function FUNC the static shape DIMS: the
 * argument's type becomes static and a tensor.cast back to the declared
 * type feeds its uses, so the input stage's canonicalize and
 * infer-shapes make the body static. Guarantees: every binding applies
 * to something (else an error naming it); a shape that contradicts the
 * declared rank or a static dim is an error; --dim and --sequence-length
 * on MLIR input are errors (MLIR has no dim names and no sequences). */
#include <stdlib.h>
#include <string.h>

#include "static_shapes.h"

#include <stdio.h>

#ifdef KILN_HAVE_ONNX
bool kiln_driver_onnx_options(const kiln_session *s, kiln_onnx_import_options *o) {
  memset(o, 0, sizeof *o);
  uint32_t n = s->shape_count;
  if (!n) return false;
  const char **dn = calloc(n, sizeof *dn), **sn = calloc(n, sizeof *sn);
  const char **qn = calloc(n, sizeof *qn);
  int64_t *dv = calloc(n, sizeof *dv), *qv = calloc(n, sizeof *qv);
  uint32_t *sr = calloc(n, sizeof *sr);
  const int64_t **sd = calloc(n, sizeof *sd);
  for (uint32_t i = 0; i < n; i++) {
    const kiln_session_shape *sh = &s->shapes[i];
    if (sh->is_seq) {
      qn[o->nseqs] = sh->name;
      qv[o->nseqs++] = sh->dims[0];
    } else if (sh->is_dim) {
      dn[o->ndims] = sh->name;
      dv[o->ndims++] = sh->dims[0];
    } else {
      sn[o->nshapes] = sh->name;
      sr[o->nshapes] = sh->rank;
      sd[o->nshapes++] = sh->dims;
    }
  }
  o->dim_names = dn, o->dim_values = dv;
  o->shape_inputs = sn, o->shape_ranks = sr, o->shapes = sd;
  o->seq_inputs = qn, o->seq_lengths = qv;
  return true;
}

void kiln_driver_onnx_options_free(kiln_onnx_import_options *o) {
  free((void *)o->dim_names);
  free((void *)o->dim_values);
  free((void *)o->shape_inputs);
  free((void *)o->shape_ranks);
  free((void *)o->shapes);
  free((void *)o->seq_inputs);
  free((void *)o->seq_lengths);
}
#endif

static kiln_error *specialize(kiln_op *module, const kiln_session_shape *sh) {
  const char *colon = strrchr(sh->name, ':');
  char *end = NULL;
  long idx = colon ? strtol(colon + 1, &end, 10) : -1;
  if (!colon || colon == sh->name || !end || *end || idx < 0)
    return kiln_error_new("--static-shape=%s: MLIR input names an argument as FUNC:INDEX", sh->name);
  kiln_context *ctx = kiln_op_context(module);
  char fname[256];
  snprintf(fname, sizeof fname, "%.*s", (int)(colon - sh->name), sh->name);
  kiln_op *fn = kiln_symbol_lookup(module, fname);
  kiln_block *body = fn && fn->kind == KILN_OP_FUNC_FUNC && fn->num_regions ? fn->regions[0].first : NULL;
  if (!body) return kiln_error_new("--static-shape=%s: no function @%s with a body", sh->name, fname);
  if ((uint32_t)idx >= body->num_args)
    return kiln_error_new("--static-shape=%s: @%s has %u arguments", sh->name, fname, body->num_args);
  kiln_value *arg = body->args[idx];
  const kiln_type *t = arg->type;
  if (t->kind != KILN_TYPE_TENSOR || t->rank != sh->rank)
    return kiln_error_new("--static-shape=%s: argument %ld of @%s is not a rank-%u tensor", sh->name, idx, fname,
                          sh->rank);
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->shape[d] != KILN_DYNAMIC && t->shape[d] != sh->dims[d])
      return kiln_error_new("--static-shape=%s: dimension %u of argument %ld of @%s is %lld", sh->name, d, idx,
                            fname, (long long)t->shape[d]);
  const kiln_type *st = kiln_type_with_shape(ctx, t, sh->rank, sh->dims);
  if (st == t) return NULL;
  kiln_value_set_type(arg, st);
  kiln_builder b = body->first ? kiln_builder_before(body->first) : kiln_builder_at_end(ctx, body);
  b.loc = fn->loc;
  kiln_op *cast = kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &arg, 1, &t, NULL);
  kiln_value *cv = kiln_op_result(cast, 0);
  for (kiln_use *u = arg->uses, *next; u; u = next) {
    next = u->next;
    if (u->owner != cast) kiln_op_set_operand(u->owner, u->index, cv);
  }
  const kiln_type *ft = kiln_op_get_attr(fn, "function_type")->type;
  const kiln_type **ins = kiln_alloc(ctx, (ft->num_inputs + 1) * sizeof *ins);
  for (uint32_t i = 0; i < ft->num_inputs; i++) ins[i] = i == (uint32_t)idx ? st : ft->types[i];
  kiln_op_set_attr(fn, "function_type",
                   kiln_attr_type(ctx, kiln_type_function(ctx, ft->num_inputs, ins, ft->num_results,
                                                          ft->types + ft->num_inputs)));
  return NULL;
}

kiln_error *kiln_driver_static_shapes(const kiln_session *s, kiln_op *module) {
  for (uint32_t i = 0; i < s->shape_count; i++) {
    if (s->shapes[i].is_dim)
      return kiln_error_new("--dim=%s: MLIR input has no named dims (use --static-shape=FUNC:INDEX=...)",
                            s->shapes[i].name);
    if (s->shapes[i].is_seq)
      return kiln_error_new("--sequence-length=%s: MLIR input has no sequences (ONNX input only)",
                            s->shapes[i].name);
    kiln_error *e = specialize(module, &s->shapes[i]);
    if (e) return e;
  }
  return NULL;
}
