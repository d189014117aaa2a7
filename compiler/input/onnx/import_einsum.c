/* Einsum: an equation over single-letter subscripts ("bij,bjk->bik",
 * "ij->ji", "i,i->", "...ij,...jk->...ik", implicit outputs) as one
 * linalg.generic.
 *
 * Takes: inputs of one numeric type; at most one ellipsis per term.
 * Guarantees: each
 * distinct letter is a loop (output letters parallel, the others
 * reductions), and so is each dimension an ellipsis stands for (numpy
 * broadcasting across operands: right-aligned, size 1 stretches); each
 * operand's map lists its loops (a letter repeated inside one operand,
 * "ii", reads its diagonal: the same loop twice); the body multiplies the
 * operands and adds
 * into a zero-filled init, which covers matmul-like, transpose, batch and
 * reduction patterns; sizes of a letter must agree across operands. An
 * implicit output is the ellipsis dims then the letters seen once, in
 * alphabetical order (numpy's rule). */
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

/* Ellipsis dimension k (0 = leftmost of the broadcast ellipsis shape)
 * stands in the terms as the non-letter character 1 + k. */
static char ell_char(uint32_t k) { return (char)(1 + k); }
static bool is_ell(char ch) { return ch >= 1 && ch <= OI_MAX_RANK; }

/* Replaces the ellipsis of TERM (at position at, -1 for none) by the last
 * e of the E ellipsis dims. */
static void expand_term(char *term, int at, uint32_t e, uint32_t E) {
  if (at < 0) return;
  char rest[OI_MAX_RANK + 1];
  strcpy(rest, term + at);
  uint32_t k = (uint32_t)at;
  for (uint32_t j = 0; j < e; j++) term[k++] = ell_char(E - e + j);
  strcpy(term + k, rest);
}

bool oi_import_einsum(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"equation", NULL};
  if (!oi_arity(c, n, 1, OI_EINSUM_MAX_IN, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  const char *eq;
  if (!oi_attr_string(c, n, "equation", NULL, &eq)) return false;
  if (!eq) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'equation' is required");
  /* terms: inputs then (optional) output, spaces ignored; room for the
   * ellipsis to expand to OI_MAX_RANK dims */
  char terms[OI_EINSUM_MAX_IN + 1][2 * OI_MAX_RANK + 1];
  int ell[OI_EINSUM_MAX_IN + 1];
  uint32_t nterms = 0, len = 0;
  bool arrow = false;
  memset(terms, 0, sizeof terms);
  for (uint32_t i = 0; i <= OI_EINSUM_MAX_IN; i++) ell[i] = -1;
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
    if (nterms > OI_EINSUM_MAX_IN) return oi_invalid(c, "equation '%s' has too many terms", eq);
    if (ch == '.') {
      if (p[1] != '.' || p[2] != '.' || ell[nterms] >= 0)
        return oi_invalid(c, "equation '%s': '.' outside one '...' per term", eq);
      ell[nterms] = (int)len;
      p += 2;
      continue;
    }
    if (!letter(ch)) return oi_invalid(c, "equation '%s': unexpected '%c'", eq, ch);
    if (len >= OI_MAX_RANK) return oi_unsupported(c, "equation '%s' is too large", eq);
    terms[nterms][len++] = ch;
  }
  uint32_t nin = arrow ? nterms - 1 : nterms;
  if (nin != n->nin) return oi_invalid(c, "equation '%s' has %u operands, the node %zu inputs", eq, nin, n->nin);
  /* the ellipsis shape: the broadcast of what each operand's covers */
  uint32_t E = 0, e[OI_EINSUM_MAX_IN];
  bool any_ell = false;
  for (uint32_t i = 0; i < nin; i++) {
    oi_val *v = oi_in(c, n, i);
    if (!v) return false;
    uint32_t nl = (uint32_t)strlen(terms[i]);
    if (ell[i] < 0 ? nl != v->type->rank : nl > v->type->rank)
      return oi_invalid(c, "equation '%s': term %u has %u letters for an operand of rank %u", eq, i, nl,
                        v->type->rank);
    e[i] = ell[i] < 0 ? 0 : v->type->rank - nl;
    any_ell |= ell[i] >= 0;
    if (e[i] > E) E = e[i];
  }
  if (arrow && ell[nin] >= 0 && !any_ell)
    return oi_invalid(c, "equation '%s': ellipsis in the output only", eq);
  if (arrow && ell[nin] < 0 && E > 0)
    return oi_unsupported(c, "equation '%s': ellipsis dims summed away (no '...' in the output)", eq);
  for (uint32_t i = 0; i < nin; i++) expand_term(terms[i], ell[i], e[i], E);
  if (arrow) expand_term(terms[nin], ell[nin], E, E);
  /* letters -> loops, with sizes */
  char loops[3 * OI_MAX_RANK + 1] = {0};
  int64_t size[3 * OI_MAX_RANK];
  uint32_t nl = 0, count[128] = {0};
  for (uint32_t i = 0; i < nin; i++) {
    oi_val *v = n->in[i];
    if (v->dtype != n->in[0]->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "operands differ in element type");
    if (!oi_check_type(c, v, OI_T_NUM, "operand")) return false;
    for (uint32_t k = 0; terms[i][k]; k++) {
      char ch = terms[i][k];
      count[(int)ch]++;
      char *at = strchr(loops, ch);
      int64_t s = v->type->shape[k];
      if (at) {
        int64_t *have = &size[at - loops];
        if (is_ell(ch) && (s == 1 || *have == 1)) {
          if (*have == 1) *have = s; /* broadcast */
        } else if (*have != s) {
          if (is_ell(ch))
            return oi_invalid(c, "equation '%s': ellipsis dims do not broadcast (%lld and %lld)", eq,
                              (long long)*have, (long long)s);
          return oi_invalid(c, "letter '%c' has sizes %lld and %lld", ch, (long long)*have, (long long)s);
        }
        continue;
      }
      if (nl >= 3 * OI_MAX_RANK || nl >= KILN_MAX_LOOPS) return oi_unsupported(c, "too many letters");
      loops[nl] = ch;
      size[nl++] = s;
    }
  }
  char out[2 * OI_MAX_RANK + 1] = {0};
  if (arrow) {
    memcpy(out, terms[nterms - 1], sizeof out);
  } else { /* implicit: the ellipsis dims, then letters seen once, alphabetically */
    uint32_t k = 0;
    for (uint32_t j = 0; j < E; j++) out[k++] = ell_char(j);
    for (int ch = 'A'; ch <= 'z'; ch++)
      if (letter((char)ch) && count[ch] == 1 && k < 2 * OI_MAX_RANK) out[k++] = (char)ch;
  }
  /* output letters first (parallel), then the reduced ones */
  char order[3 * OI_MAX_RANK + 1] = {0};
  uint32_t no = (uint32_t)strlen(out), k = 0;
  if (no > OI_MAX_RANK) return oi_unsupported(c, "equation '%s': result rank %u exceeds %d", eq, no, OI_MAX_RANK);
  int64_t oshape[OI_MAX_RANK];
  for (uint32_t i = 0; i < no; i++) {
    char *at = strchr(loops, out[i]);
    if (!at) return oi_invalid(c, "output letter '%c' appears in no operand", out[i]);
    if (strchr(out + i + 1, out[i])) return oi_invalid(c, "output repeats '%c'", out[i]);
    order[k++] = out[i];
    oshape[i] = size[at - loops];
  }
  for (uint32_t i = 0; i < nl; i++)
    if (!strchr(out, loops[i])) order[k++] = loops[i];
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t i = no; i < nl; i++) red[i] = true;
  const kiln_affine_map *maps[OI_EINSUM_MAX_IN + 1];
  kiln_value *ins[OI_EINSUM_MAX_IN];
  for (uint32_t i = 0; i <= nin; i++) {
    const char *tm = i < nin ? terms[i] : out;
    int64_t dims[OI_MAX_RANK];
    uint32_t r = (uint32_t)strlen(tm);
    for (uint32_t d = 0; d < r; d++) {
      uint32_t l = (uint32_t)(strchr(order, tm[d]) - order);
      /* a size-1 ellipsis dim broadcast against a larger one reads index 0 */
      bool stretched = i < nin && is_ell(tm[d]) && n->in[i]->type->shape[d] == 1 &&
                       size[strchr(loops, tm[d]) - loops] != 1;
      dims[d] = stretched ? -1 : (int64_t)l;
    }
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
