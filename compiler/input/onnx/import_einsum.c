/* Einsum: an equation over single-letter subscripts ("bij,bjk->bik",
 * "ij->ji", "i,i->", implicit outputs) as one linalg.generic.
 *
 * Takes: inputs of one numeric type; no ellipsis, no letter repeated
 * inside one operand (diagonals). Guarantees: each distinct letter is a
 * loop (output letters parallel, the others reductions); each operand's
 * map lists its letters; the body multiplies the operands and adds into a
 * zero-filled init, which covers matmul-like, transpose, batch and
 * reduction patterns; sizes of a letter must agree across operands. */
#include <string.h>

#include "import_internal.h"

#define OI_EINSUM_MAX_IN 8

typedef struct { uint32_t n; } ein_user;

static bool ein_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  ein_user *e = u;
  bool isf = kiln_type_is_float(a[0]->type);
  kiln_value *p = a[0];
  for (uint32_t i = 1; i < e->n; i++) p = oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, p, a[i]);
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[e->n], p);
  return true;
}

static bool letter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

bool oi_import_einsum(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"equation", NULL};
  if (!oi_arity(c, n, 1, OI_EINSUM_MAX_IN, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  const char *eq;
  if (!oi_attr_string(c, n, "equation", NULL, &eq)) return false;
  if (!eq) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'equation' is required");
  if (strstr(eq, "...")) return oi_unsupported(c, "equation '%s': ellipsis", eq);
  /* terms: inputs then (optional) output, spaces ignored */
  char terms[OI_EINSUM_MAX_IN + 1][OI_MAX_RANK + 1];
  uint32_t nterms = 0, len = 0;
  bool arrow = false;
  memset(terms, 0, sizeof terms);
  for (const char *p = eq;; p++) {
    char ch = *p;
    if (ch == ' ') continue;
    if (ch == ',' || ch == '-' || ch == 0) {
      if (nterms > OI_EINSUM_MAX_IN) return oi_invalid(c, "equation '%s' has too many terms", eq);
      terms[nterms][len] = 0;
      nterms++, len = 0;
      if (ch == 0) break;
      if (ch == '-') {
        if (p[1] != '>' || arrow) return oi_invalid(c, "equation '%s' is malformed", eq);
        arrow = true;
        p++;
      }
      continue;
    }
    if (!letter(ch)) return oi_invalid(c, "equation '%s': unexpected '%c'", eq, ch);
    if (len >= OI_MAX_RANK || nterms > OI_EINSUM_MAX_IN) return oi_unsupported(c, "equation '%s' is too large", eq);
    terms[nterms][len++] = ch;
  }
  uint32_t nin = arrow ? nterms - 1 : nterms;
  if (nin != n->nin) return oi_invalid(c, "equation '%s' has %u operands, the node %zu inputs", eq, nin, n->nin);
  /* letters -> loops, with sizes */
  char loops[2 * OI_MAX_RANK + 1] = {0};
  int64_t size[2 * OI_MAX_RANK];
  uint32_t nl = 0, count[128] = {0};
  for (uint32_t i = 0; i < nin; i++) {
    oi_val *v = oi_in(c, n, i);
    if (!v) return false;
    if (v->dtype != n->in[0]->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "operands differ in element type");
    if (!oi_check_type(c, v, OI_T_NUM, "operand")) return false;
    if (strlen(terms[i]) != v->type->rank)
      return oi_invalid(c, "term '%s' has %zu letters for operand %u of rank %u", terms[i], strlen(terms[i]), i,
                        v->type->rank);
    for (uint32_t k = 0; terms[i][k]; k++) {
      char ch = terms[i][k];
      if (strchr(terms[i] + k + 1, ch)) return oi_unsupported(c, "term '%s' repeats '%c' (diagonal)", terms[i], ch);
      count[(int)ch]++;
      char *at = strchr(loops, ch);
      int64_t s = v->type->shape[k];
      if (at) {
        if (size[at - loops] != s)
          return oi_invalid(c, "letter '%c' has sizes %lld and %lld", ch, (long long)size[at - loops], (long long)s);
        continue;
      }
      if (nl >= 2 * OI_MAX_RANK || nl >= KILN_MAX_LOOPS) return oi_unsupported(c, "too many letters");
      loops[nl] = ch;
      size[nl++] = s;
    }
  }
  char out[OI_MAX_RANK + 1] = {0};
  if (arrow) {
    memcpy(out, terms[nterms - 1], sizeof out);
  } else { /* implicit: letters seen once, alphabetically */
    uint32_t k = 0;
    for (int ch = 'A'; ch <= 'z'; ch++)
      if (count[ch] == 1 && k < OI_MAX_RANK) out[k++] = (char)ch;
  }
  /* output letters first (parallel), then the reduced ones */
  char order[2 * OI_MAX_RANK + 1] = {0};
  uint32_t no = (uint32_t)strlen(out), k = 0;
  int64_t oshape[OI_MAX_RANK], osize[2 * OI_MAX_RANK];
  for (uint32_t i = 0; i < no; i++) {
    char *at = strchr(loops, out[i]);
    if (!at) return oi_invalid(c, "output letter '%c' appears in no operand", out[i]);
    if (strchr(out + i + 1, out[i])) return oi_invalid(c, "output repeats '%c'", out[i]);
    order[k] = out[i];
    osize[k++] = oshape[i] = size[at - loops];
  }
  for (uint32_t i = 0; i < nl; i++)
    if (!strchr(out, loops[i])) order[k] = loops[i], osize[k++] = size[i];
  (void)osize;
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t i = no; i < nl; i++) red[i] = true;
  const kiln_affine_map *maps[OI_EINSUM_MAX_IN + 1];
  kiln_value *ins[OI_EINSUM_MAX_IN];
  for (uint32_t i = 0; i <= nin; i++) {
    const char *tm = i < nin ? terms[i] : out;
    int64_t dims[OI_MAX_RANK];
    uint32_t r = (uint32_t)strlen(tm);
    for (uint32_t d = 0; d < r; d++) dims[d] = strchr(order, tm[d]) - order;
    maps[i] = oi_map_dims(c, nl, r, dims);
    if (i < nin && !(ins[i] = oi_ir(c, n->in[i]))) return false;
  }
  const kiln_type *ot = oi_tensor_type(c, no, oshape, n->in[0]->dtype);
  kiln_value *init = oi_filled(c, ot, 0, 0);
  ein_user eu = {nin};
  kiln_op *g = oi_generic(c, nin, ins, 1, &init, maps, nl, red, ein_body, &eu);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), n->in[0]->dtype);
  return true;
}
