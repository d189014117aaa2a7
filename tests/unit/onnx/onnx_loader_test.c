/* Unit tests of the ONNX loader on models written byte by byte (pbwrite.c):
 * a valid model and its tensor bytes (in place, converted once, mapped
 * from external files), sniffing, and malformed models — each must give
 * the named error kind and a message naming the culprit, never a crash
 * (the sanitizer build runs these too). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln_onnx.h"
#include "onnx_internal.h" /* the arena, tested directly */
#include "pbwrite.h"

/* ---- a pool of writers, freed after each test ---- */
static pbw pool[512];
static size_t pool_used;
static pbw *P(void) {
  ck_assert_uint_lt(pool_used, 512);
  pbw *w = &pool[pool_used++];
  memset(w, 0, sizeof *w);
  return w;
}
static void pool_reset(void) {
  for (size_t i = 0; i < pool_used; i++) pbw_free(&pool[i]);
  pool_used = 0;
}

/* ---- ONNX pieces (field numbers are onnx.proto's) ---- */
enum { F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, STR = 8, BOOL = 9,
       U32 = 12 };

static pbw *tensor_type(int elem, int ndims, const int64_t *dims) {
  pbw *shape = P(), *tt = P(), *tp = P();
  for (int i = 0; i < ndims; i++) {
    pbw *d = P();
    pbw_int(d, 1, dims[i]); /* dim_value */
    pbw_msg(shape, 1, d);
  }
  pbw_int(tt, 1, elem);
  if (ndims >= 0) pbw_msg(tt, 2, shape);
  pbw_msg(tp, 1, tt); /* TypeProto.tensor_type */
  return tp;
}

static pbw *value_info(const char *name, int elem, int64_t dim) {
  pbw *vi = P();
  pbw_str(vi, 1, name);
  pbw_msg(vi, 2, tensor_type(elem, 1, &dim));
  return vi;
}

/* TensorProto header: dims, data_type, name. */
static pbw *tensor(const char *name, int dtype, int ndims,
                   const int64_t *dims) {
  pbw *t = P();
  for (int i = 0; i < ndims; i++) pbw_int(t, 1, dims[i]);
  pbw_int(t, 2, dtype);
  if (name) pbw_str(t, 8, name);
  return t;
}

static pbw *tensor_f32_raw(const char *name, int64_t n, size_t raw_len) {
  pbw *t = tensor(name, F32, 1, &n);
  float v[64];
  for (int i = 0; i < 64; i++) v[i] = (float)i + 0.5f;
  ck_assert_uint_le(raw_len, sizeof v);
  pbw_bytes(t, 9, v, raw_len);
  return t;
}

/* NodeProto with up to 3 inputs/outputs ("" = omitted optional). */
static pbw *node(const char *op, const char *in0, const char *in1,
                 const char *out0) {
  pbw *n = P();
  if (in0) pbw_str(n, 1, in0);
  if (in1) pbw_str(n, 1, in1);
  if (out0) pbw_str(n, 2, out0);
  if (op) pbw_str(n, 4, op);
  return n;
}

static pbw *graph(pbw *const *nodes, int nn, pbw *const *inits, int ni,
                  pbw *const *ins, int nin, pbw *const *outs, int nout) {
  pbw *g = P();
  for (int i = 0; i < nn; i++) pbw_msg(g, 1, nodes[i]);
  pbw_str(g, 2, "g");
  for (int i = 0; i < ni; i++) pbw_msg(g, 5, inits[i]);
  for (int i = 0; i < nin; i++) pbw_msg(g, 11, ins[i]);
  for (int i = 0; i < nout; i++) pbw_msg(g, 12, outs[i]);
  return g;
}

static pbw *opset(const char *domain, int64_t version) {
  pbw *o = P();
  if (domain) pbw_str(o, 1, domain);
  pbw_int(o, 2, version);
  return o;
}

/* ir < 0 omits ir_version; version < 0 omits opset_import; g may be NULL. */
static pbw *model(int64_t ir, int64_t version, const pbw *g) {
  pbw *m = P();
  if (ir >= 0) pbw_int(m, 1, ir);
  pbw_str(m, 2, "kiln-test");
  if (g) pbw_msg(m, 7, g);
  if (version >= 0) pbw_msg(m, 8, opset("", version));
  return m;
}

/* The reference model: y = Add(x, w), x/w/y f32[2], w an initializer. */
static pbw *add_graph_with(pbw *init, pbw *n) {
  pbw *nodes[] = {n ? n : node("Add", "x", "w", "y")};
  pbw *inits[] = {init ? init : tensor_f32_raw("w", 2, 8)};
  pbw *ins[] = {value_info("x", F32, 2)};
  pbw *outs[] = {value_info("y", F32, 2)};
  return graph(nodes, 1, inits, 1, ins, 1, outs, 1);
}
static pbw *add_model(void) { return model(8, 17, add_graph_with(NULL, NULL)); }

/* Loads BYTES and expects error kind CODE with NEEDLE in the message. */
static void expect_error(const pbw *m, kiln_onnx_code code,
                         const char *needle) {
  kiln_onnx_model *out = (kiln_onnx_model *)1;
  kiln_onnx_status st;
  bool ok = kiln_onnx_model_load(m->buf, m->len, &out, &st);
  ck_assert_msg(!ok, "loaded a model that should fail with %s",
                kiln_onnx_code_name(code));
  ck_assert_ptr_null(out);
  ck_assert_msg(st.code == code, "expected %s, got: %s",
                kiln_onnx_code_name(code), st.message);
  ck_assert_msg(strstr(st.message, needle), "message '%s' lacks '%s'",
                st.message, needle);
}

static kiln_onnx_model *expect_load(const pbw *m) {
  kiln_onnx_model *out;
  kiln_onnx_status st;
  ck_assert_msg(kiln_onnx_model_load(m->buf, m->len, &out, &st), "%s",
                st.message);
  return out;
}

/* ---------------- valid models ---------------- */

START_TEST(valid_model_and_raw_bytes_in_place) {
  kiln_onnx_model *m = expect_load(add_model());
  const Onnx__ModelProto *mp = kiln_onnx_model_proto(m);
  ck_assert_int_eq(mp->ir_version, 8);
  ck_assert_int_eq(kiln_onnx_model_opset(m, ""), 17);
  ck_assert_int_eq(kiln_onnx_model_opset(m, "ai.onnx"), 17);
  ck_assert_int_eq(kiln_onnx_model_opset(m, "ai.onnx.ml"), -1);
  const Onnx__TensorProto *w = mp->graph->initializer[0];
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  ck_assert(kiln_onnx_model_tensor_bytes(m, w, &b, &st));
  ck_assert_uint_eq(b.size, 8);
  ck_assert(!b.copied && !b.mapped);
  ck_assert_ptr_eq(b.data, w->raw_data.data); /* no copy after decoding */
  float f[2];
  memcpy(f, b.data, 8);
  ck_assert(f[0] == 0.5f && f[1] == 1.5f);
  kiln_onnx_model_free(m);
  pool_reset();
}
END_TEST

START_TEST(typed_fields_in_place_or_converted_once) {
  int64_t three = 3;
  /* f32 in float_data: used in place. */
  pbw *tf = tensor("w", F32, 1, &three);
  float fv[3] = {1, 2, 3};
  pbw_bytes(tf, 4, fv, sizeof fv); /* packed float_data */
  /* i8 in int32_data: converted once. */
  pbw *ti = tensor("w", I8, 1, &three);
  pbw packed = {0};
  pbw_varint(&packed, (uint64_t)(int64_t)-1);
  pbw_varint(&packed, 5);
  pbw_varint(&packed, 127);
  pbw_msg(ti, 5, &packed);
  pbw_free(&packed);
  /* ui32 in uint64_data, unpacked: converted. */
  pbw *tu = tensor("w", U32, 1, &three);
  for (int i = 0; i < 3; i++) pbw_int(tu, 11, 4000000000u + (uint64_t)i);
  /* bool in int32_data. */
  pbw *tb = tensor("w", BOOL, 1, &three);
  pbw_int(tb, 5, 1);
  pbw_int(tb, 5, 0);
  pbw_int(tb, 5, 7);

  pbw *cases[] = {tf, ti, tu, tb};
  for (int c = 0; c < 4; c++) {
    pbw *nodes[] = {node("Identity", "w", NULL, "y")};
    pbw *inits[] = {cases[c]};
    pbw *outs[] = {value_info("y", c == 0 ? F32 : c == 1 ? I8 : c == 2 ? U32 : BOOL, 3)};
    kiln_onnx_model *m =
        expect_load(model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1)));
    const Onnx__TensorProto *w = kiln_onnx_model_proto(m)->graph->initializer[0];
    kiln_onnx_bytes b, b2;
    kiln_onnx_status st;
    ck_assert_msg(kiln_onnx_model_tensor_bytes(m, w, &b, &st), "%s", st.message);
    ck_assert(kiln_onnx_model_tensor_bytes(m, w, &b2, &st));
    ck_assert_ptr_eq(b.data, b2.data); /* the conversion is cached */
    const uint8_t *p = b.data;
    switch (c) {
    case 0:
      ck_assert(!b.copied);
      ck_assert_ptr_eq(b.data, w->float_data);
      ck_assert_uint_eq(b.size, 12);
      break;
    case 1:
      ck_assert(b.copied);
      ck_assert_uint_eq(b.size, 3);
      ck_assert_int_eq((int8_t)p[0], -1);
      ck_assert_int_eq(p[1], 5);
      ck_assert_int_eq(p[2], 127);
      break;
    case 2: {
      ck_assert(b.copied);
      ck_assert_uint_eq(b.size, 12);
      uint32_t u[3];
      memcpy(u, p, 12);
      ck_assert_uint_eq(u[0], 4000000000u);
      ck_assert_uint_eq(u[2], 4000000002u);
      break;
    }
    case 3:
      ck_assert_uint_eq(b.size, 3);
      ck_assert(p[0] == 1 && p[1] == 0 && p[2] == 1);
      break;
    }
    kiln_onnx_model_free(m);
  }
  pool_reset();
}
END_TEST

START_TEST(subgraph_sees_outer_scope) {
  /* If(cond) { then: Identity(x) } else { Identity(x) } */
  pbw *then_nodes[] = {node("Identity", "x", NULL, "t")};
  pbw *then_outs[] = {value_info("t", F32, 2)};
  pbw *tg = graph(then_nodes, 1, NULL, 0, NULL, 0, then_outs, 1);
  pbw *attr = P();
  pbw_str(attr, 1, "then_branch");
  pbw_msg(attr, 6, tg);
  pbw_int(attr, 20, 5); /* GRAPH */
  pbw *attr2 = P();
  pbw_str(attr2, 1, "else_branch");
  pbw_msg(attr2, 6, tg);
  pbw_int(attr2, 20, 5);
  pbw *ifn = node("If", "c", NULL, "y");
  pbw_msg(ifn, 5, attr);
  pbw_msg(ifn, 5, attr2);
  pbw *nodes[] = {ifn};
  pbw *ins[] = {value_info("c", BOOL, 1), value_info("x", F32, 2)};
  pbw *outs[] = {value_info("y", F32, 2)};
  kiln_onnx_model_free(
      expect_load(model(8, 16, graph(nodes, 1, NULL, 0, ins, 2, outs, 1))));

  /* The same with a dangling name inside the branch. */
  pbw *bad_nodes[] = {node("Identity", "nope", NULL, "t")};
  pbw *bg = graph(bad_nodes, 1, NULL, 0, NULL, 0, then_outs, 1);
  pbw *battr = P();
  pbw_str(battr, 1, "then_branch");
  pbw_msg(battr, 6, bg);
  pbw_int(battr, 20, 5);
  pbw *bif = node("If", "c", NULL, "y");
  pbw_msg(bif, 5, battr);
  pbw *bnodes[] = {bif};
  expect_error(model(8, 16, graph(bnodes, 1, NULL, 0, ins, 2, outs, 1)),
               KILN_ONNX_ERR_NAME,
               "node 0 (op 'If') attribute 'then_branch': node 0 (op "
               "'Identity'): input 0 'nope' is not");
  pool_reset();
}
END_TEST

/* Writes a model referring to external weights into a fresh folder. */
static char *write_external(const char *location, const char *offset,
                            const char *length, int64_t n) {
  char tmpl[] = "/tmp/kiln-onnx-test-XXXXXX";
  char *dir = mkdtemp(tmpl);
  ck_assert_ptr_nonnull(dir);
  char path[256];
  snprintf(path, sizeof path, "%s/weights.bin", dir);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 5000; i++) fputc(i & 0xff, f);
  fclose(f);
  pbw *t = tensor("w", U8, 1, &n);
  pbw *e = P();
  pbw_str(e, 1, "location");
  pbw_str(e, 2, location);
  pbw_msg(t, 13, e);
  if (offset) {
    e = P();
    pbw_str(e, 1, "offset");
    pbw_str(e, 2, offset);
    pbw_msg(t, 13, e);
  }
  if (length) {
    e = P();
    pbw_str(e, 1, "length");
    pbw_str(e, 2, length);
    pbw_msg(t, 13, e);
  }
  pbw_int(t, 14, 1); /* data_location = EXTERNAL */
  pbw *nodes[] = {node("Identity", "w", NULL, "y")};
  pbw *inits[] = {t};
  pbw *outs[] = {value_info("y", U8, n)};
  pbw *m = model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1));
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  f = fopen(path, "wb");
  fwrite(m->buf, 1, m->len, f);
  fclose(f);
  return strdup(dir);
}

static void remove_external(char *dir) {
  char path[256];
  snprintf(path, sizeof path, "%s/weights.bin", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  unlink(path);
  rmdir(dir);
  free(dir);
}

START_TEST(external_data_is_mapped) {
  char *dir = write_external("weights.bin", "4099", "100", 100);
  char path[256];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  kiln_onnx_model *m;
  kiln_onnx_status st;
  ck_assert_msg(kiln_onnx_model_load_file(path, &m, &st), "%s", st.message);
  const Onnx__TensorProto *w = kiln_onnx_model_proto(m)->graph->initializer[0];
  kiln_onnx_bytes b;
  ck_assert_msg(kiln_onnx_model_tensor_bytes(m, w, &b, &st), "%s", st.message);
  ck_assert(b.mapped && !b.copied);
  ck_assert_uint_eq(b.size, 100);
  const uint8_t *p = b.data;
  for (int i = 0; i < 100; i++) ck_assert_uint_eq(p[i], (4099 + i) & 0xff);
  kiln_onnx_model_free(m);

  /* Bytes past the end of the file. */
  char *dir2 = write_external("weights.bin", "4990", NULL, 100);
  snprintf(path, sizeof path, "%s/model.onnx", dir2);
  ck_assert(kiln_onnx_model_load_file(path, &m, &st));
  w = kiln_onnx_model_proto(m)->graph->initializer[0];
  ck_assert(!kiln_onnx_model_tensor_bytes(m, w, &b, &st));
  ck_assert_int_eq(st.code, KILN_ONNX_ERR_EXTERNAL);
  ck_assert_msg(strstr(st.message, "has 10 bytes, the tensor needs 100"),
                "%s", st.message);
  kiln_onnx_model_free(m);

  /* A missing file, named. */
  char *dir3 = write_external("missing.bin", NULL, NULL, 4);
  snprintf(path, sizeof path, "%s/model.onnx", dir3);
  ck_assert(kiln_onnx_model_load_file(path, &m, &st));
  w = kiln_onnx_model_proto(m)->graph->initializer[0];
  ck_assert(!kiln_onnx_model_tensor_bytes(m, w, &b, &st));
  ck_assert_msg(strstr(st.message, "'missing.bin'"), "%s", st.message);
  kiln_onnx_model_free(m);

  /* The same model from memory has no folder to read from. */
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  FILE *f = fopen(path, "rb");
  uint8_t buf[4096];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  ck_assert(kiln_onnx_model_load(buf, n, &m, &st));
  w = kiln_onnx_model_proto(m)->graph->initializer[0];
  ck_assert(!kiln_onnx_model_tensor_bytes(m, w, &b, &st));
  ck_assert_int_eq(st.code, KILN_ONNX_ERR_EXTERNAL);
  ck_assert_msg(strstr(st.message, "loaded from memory"), "%s", st.message);
  kiln_onnx_model_free(m);

  /* A symlink inside the folder that points outside it. */
  char *dir4 = write_external("link.bin", NULL, NULL, 4);
  char link[256], target[256];
  snprintf(link, sizeof link, "%s/link.bin", dir4);
  snprintf(target, sizeof target, "%s/weights.bin", dir2);
  ck_assert_int_eq(symlink(target, link), 0);
  snprintf(path, sizeof path, "%s/model.onnx", dir4);
  ck_assert(kiln_onnx_model_load_file(path, &m, &st));
  w = kiln_onnx_model_proto(m)->graph->initializer[0];
  ck_assert(!kiln_onnx_model_tensor_bytes(m, w, &b, &st));
  ck_assert_int_eq(st.code, KILN_ONNX_ERR_EXTERNAL);
  ck_assert_msg(strstr(st.message, "resolves outside the model's folder"),
                "%s", st.message);
  kiln_onnx_model_free(m);
  unlink(link);

  remove_external(dir);
  remove_external(dir2);
  remove_external(dir4);
  remove_external(dir3);
  pool_reset();
}
END_TEST

START_TEST(sniffing) {
  pbw *m = add_model();
  ck_assert(kiln_onnx_looks_like_model(m->buf, m->len));
  const char *mlir = "func.func @main(%arg0: tensor<2xf32>) {\n";
  ck_assert(!kiln_onnx_looks_like_model(mlir, strlen(mlir)));
  const char *comment = "// RUN: kiln-opt %s\n#map = affine_map<(d0) -> (d0)>";
  ck_assert(!kiln_onnx_looks_like_model(comment, strlen(comment)));
  ck_assert(!kiln_onnx_looks_like_model("", 0));
  ck_assert(!kiln_onnx_looks_like_model(m->buf, 3)); /* graph cut off */
  /* The driver sniffs a 4 KiB prefix: a graph running past it still counts. */
  /* ir_version (2 bytes) + producer_name (11) + graph tag and length (2) */
  ck_assert_uint_gt(m->len, 40);
  ck_assert(kiln_onnx_looks_like_model(m->buf, 17));
  pbw *t = tensor_f32_raw("w", 2, 8);
  ck_assert(!kiln_onnx_looks_like_model(t->buf, t->len));
  pbw *zero_ir = model(0, 17, add_graph_with(NULL, NULL));
  ck_assert(!kiln_onnx_looks_like_model(zero_ir->buf, zero_ir->len));
  pool_reset();
}
END_TEST

START_TEST(value_files) {
  pbw *t = tensor_f32_raw("x", 4, 16);
  kiln_onnx_value *v;
  kiln_onnx_status st;
  ck_assert(kiln_onnx_value_load(t->buf, t->len, KILN_ONNX_VALUE_TENSOR, &v,
                                 &st));
  kiln_onnx_bytes b;
  ck_assert(kiln_onnx_value_tensor_bytes(v, kiln_onnx_value_tensor(v), &b, &st));
  ck_assert_uint_eq(b.size, 16);
  kiln_onnx_value_free(v);
  /* A sequence of that tensor. */
  pbw *s = P();
  pbw_str(s, 1, "seq");
  pbw_int(s, 2, 1); /* elem_type TENSOR */
  pbw_msg(s, 3, t);
  pbw_msg(s, 3, t);
  ck_assert(kiln_onnx_value_load(s->buf, s->len, KILN_ONNX_VALUE_SEQUENCE, &v,
                                 &st));
  const Onnx__SequenceProto *sp = (const void *)kiln_onnx_value_message(v);
  ck_assert_uint_eq(sp->n_tensor_values, 2);
  ck_assert_ptr_null(kiln_onnx_value_tensor(v));
  kiln_onnx_value_free(v);
  /* A bad tensor inside a sequence is named with its position. */
  pbw *s2 = P();
  pbw_msg(s2, 3, t);
  pbw_msg(s2, 3, tensor_f32_raw("x", 4, 12));
  ck_assert(!kiln_onnx_value_load(s2->buf, s2->len, KILN_ONNX_VALUE_SEQUENCE,
                                  &v, &st));
  ck_assert_int_eq(st.code, KILN_ONNX_ERR_DATA);
  ck_assert_msg(strstr(st.message, "element 1"), "%s", st.message);
  pool_reset();
}
END_TEST

/* ---------------- malformed wire format ---------------- */

START_TEST(every_truncation_is_named) {
  pbw *m = add_model();
  unsigned truncated = 0;
  for (size_t n = 0; n < m->len; n++) {
    uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees overreads */
    memcpy(copy, m->buf, n);
    kiln_onnx_model *out;
    kiln_onnx_status st;
    bool ok = kiln_onnx_model_load(copy, n, &out, &st);
    free(copy);
    if (ok) { /* a prefix that ends between fields may still be valid */
      kiln_onnx_model_free(out);
      continue;
    }
    ck_assert_int_ne(st.code, KILN_ONNX_OK);
    ck_assert_msg(strncmp(st.message, "onnx: ", 6) == 0, "%s", st.message);
    truncated += st.code == KILN_ONNX_ERR_TRUNCATED;
  }
  ck_assert_uint_gt(truncated, m->len / 2);
  pool_reset();
}
END_TEST

START_TEST(truncated_graph) {
  pbw *m = add_model();
  pbw cut = {0};
  pbw_raw(&cut, m->buf, m->len - 20);
  expect_error(&cut, KILN_ONNX_ERR_TRUNCATED, "field 7 (graph) claims");
  pbw_free(&cut);
  pool_reset();
}
END_TEST

/* kiln_onnx_error: a failed status as the compiler's error type, the
 * place first; none for a status that is ok. */
START_TEST(status_as_kiln_error) {
  pbw *m = add_model();
  pbw cut = {0};
  pbw_raw(&cut, m->buf, m->len - 20);
  kiln_onnx_model *out;
  kiln_onnx_status st;
  ck_assert(!kiln_onnx_model_load(cut.buf, cut.len, &out, &st));
  kiln_error *e = kiln_onnx_error("m.onnx", &st);
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_eq(strstr(kiln_error_message(e), "m.onnx: onnx: truncated: "), kiln_error_message(e));
  ck_assert_ptr_nonnull(strstr(kiln_error_message(e), "field 7 (graph) claims"));
  kiln_error_free(e);
  e = kiln_onnx_error(NULL, &st);
  ck_assert_str_eq(kiln_error_message(e), st.message);
  kiln_error_free(e);
  ck_assert(kiln_onnx_model_load(m->buf, m->len, &out, &st));
  ck_assert_ptr_null(kiln_onnx_error("m.onnx", &st));
  kiln_onnx_model_free(out);
  pbw_free(&cut);
  pool_reset();
}
END_TEST

START_TEST(wrong_wire_types) {
  pbw *m = P();
  pbw_str(m, 1, "8"); /* ir_version as a string */
  expect_error(m, KILN_ONNX_ERR_WIRE,
               "field 1 (ir_version) has wire type length-delimited, "
               "expected varint");
  pbw *m2 = P();
  pbw_int(m2, 1, 8);
  pbw_int(m2, 7, 3); /* graph as a varint */
  expect_error(m2, KILN_ONNX_ERR_WIRE, "field 7 (graph) has wire type varint");
  pbw *m3 = P();
  pbw_int(m3, 1, 8);
  pbw_fixed32(m3, 8, 17); /* opset_import as fixed32 */
  expect_error(m3, KILN_ONNX_ERR_WIRE, "(opset_import) has wire type fixed32");
  pbw *m4 = P();
  pbw_tag(m4, 9, 3); /* a group */
  expect_error(m4, KILN_ONNX_ERR_WIRE, "start-group");
  pbw *m5 = P();
  pbw_tag(m5, 9, 7);
  expect_error(m5, KILN_ONNX_ERR_WIRE, "invalid(7)");
  pbw *m6 = P();
  pbw_varint(m6, 0); /* field number 0 */
  pbw_varint(m6, 0);
  expect_error(m6, KILN_ONNX_ERR_WIRE, "field number 0");
  pool_reset();
}
END_TEST

START_TEST(huge_lengths_and_varints) {
  pbw *m = P();
  pbw_int(m, 1, 8);
  pbw_tag(m, 7, 2);
  pbw_varint(m, 0x7fffffff); /* graph claims 2 GiB - 1 */
  pbw_raw(m, "\x0a\x00", 2);
  expect_error(m, KILN_ONNX_ERR_TRUNCATED,
               "field 7 (graph) claims 2147483647 bytes, only 2 remain");
  pbw *m2 = P();
  pbw_tag(m2, 7, 2);
  pbw_varint(m2, 0xffffffffull); /* beyond protobuf's 2 GiB */
  expect_error(m2, KILN_ONNX_ERR_WIRE, "is not a length below 2 GiB");
  pbw *m3 = P();
  pbw_tag(m3, 1, 0);
  pbw_raw(m3, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  expect_error(m3, KILN_ONNX_ERR_WIRE, "longer than 10 bytes");
  pbw *m4 = P();
  pbw_raw(m4, "\x88\x80\x80\x80\x80\x01", 6); /* a 6-byte tag */
  expect_error(m4, KILN_ONNX_ERR_WIRE, "tag is not a varint of at most 5");
  /* A packed field ending inside a varint. */
  int64_t two = 2;
  pbw *t = tensor("w", I64, 1, &two);
  pbw_bytes(t, 7, "\x01\x81", 2);
  expect_error(model(8, 17, add_graph_with(t, NULL)), KILN_ONNX_ERR_TRUNCATED,
               "packed field 7 (int64_data) ends inside a varint");
  /* Packed floats whose size is not a multiple of 4. */
  pbw *t2 = tensor("w", F32, 1, &two);
  pbw_bytes(t2, 4, "\0\0\0\0\0\0\0", 7);
  expect_error(model(8, 17, add_graph_with(t2, NULL)), KILN_ONNX_ERR_WIRE,
               "has 7 bytes, not a multiple of 4");
  pool_reset();
}
END_TEST

START_TEST(deep_nesting) {
  /* graph -> node -> attribute -> graph ... far past the limit; built
   * inside out. */
  pbw *g = P();
  pbw_str(g, 2, "leaf");
  for (int i = 0; i < 60; i++) {
    pbw *a = P(), *n = P(), *outer = P();
    pbw_str(a, 1, "body");
    pbw_int(a, 20, 5);
    pbw_msg(a, 6, g);
    pbw_str(n, 4, "If");
    pbw_msg(n, 5, a);
    pbw_msg(outer, 1, n);
    g = outer;
  }
  expect_error(model(8, 17, g), KILN_ONNX_ERR_DEPTH,
               "nests messages deeper than 100 levels");
  pool_reset();
}
END_TEST

START_TEST(repeated_submessage_merges_hit_the_budget) {
  /* protobuf-c merges a non-repeated message field that appears again,
   * concatenating its repeated fields: k copies of a graph cost O(k^2).
   * The arena budget (linear in the input) stops it with a named error. */
  pbw *nodes[50];
  char out[50][8];
  for (int i = 0; i < 50; i++) {
    snprintf(out[i], sizeof out[i], "y%d", i);
    nodes[i] = node("Relu", "x", NULL, out[i]);
  }
  pbw *ins[] = {value_info("x", F32, 1)};
  pbw *outs[] = {value_info("y0", F32, 1)};
  pbw *g = graph(nodes, 50, NULL, 0, ins, 1, outs, 1);
  pbw *m = model(8, 17, g);
  for (int i = 0; i < 400; i++) pbw_msg(m, 7, g);
  expect_error(m, KILN_ONNX_ERR_MEMORY,
               "decoding onnx.ModelProto needs more than its budget");
  pool_reset();
}
END_TEST

START_TEST(nul_in_name) {
  pbw *n = P();
  pbw_str(n, 1, "x");
  pbw_str(n, 1, "w");
  pbw_str(n, 2, "y");
  pbw_bytes(n, 3, "bad\0name", 8);
  pbw_str(n, 4, "Add");
  expect_error(model(8, 17, add_graph_with(NULL, n)), KILN_ONNX_ERR_STRING,
               "string field 3 (name) contains a NUL byte");
  pool_reset();
}
END_TEST

/* ---------------- malformed models ---------------- */

START_TEST(model_level) {
  expect_error(model(8, 17, NULL), KILN_ONNX_ERR_NO_GRAPH,
               "the model has no graph");
  expect_error(model(-1, 17, add_graph_with(NULL, NULL)),
               KILN_ONNX_ERR_IR_VERSION, "no ir_version");
  expect_error(model(99, 17, add_graph_with(NULL, NULL)),
               KILN_ONNX_ERR_IR_VERSION, "ir_version 99");
  pbw empty = {0};
  expect_error(&empty, KILN_ONNX_ERR_IR_VERSION, "no ir_version");
  pool_reset();
}
END_TEST

START_TEST(opsets) {
  expect_error(model(8, 0, add_graph_with(NULL, NULL)), KILN_ONNX_ERR_OPSET,
               "ai.onnx opset 0 is outside the supported 1..17; node 0 "
               "(op 'Add') is the first node bound to it");
  expect_error(model(8, 18, add_graph_with(NULL, NULL)), KILN_ONNX_ERR_OPSET,
               "opset 18 is outside");
  expect_error(model(8, -1, add_graph_with(NULL, NULL)), KILN_ONNX_ERR_OPSET,
               "no opset_import");
  pbw *twice = model(8, 17, add_graph_with(NULL, NULL));
  pbw_msg(twice, 8, opset("ai.onnx", 15));
  expect_error(twice, KILN_ONNX_ERR_OPSET,
               "opset_import names domain 'ai.onnx' twice");
  pbw *n = node("Gelu", "x", "w", "y");
  pbw_str(n, 3, "g0");
  pbw_str(n, 7, "com.example");
  expect_error(model(8, 17, add_graph_with(NULL, n)), KILN_ONNX_ERR_OPSET,
               "node 0 'g0' (op 'Gelu'): domain 'com.example' is not in "
               "opset_import");
  pool_reset();
}
END_TEST

START_TEST(many_domains) {
  /* 20000 imported domains and a node per domain: domain lookups are
   * hashed (a pairwise scan would take ~10^8 comparisons here). */
  pbw *g = P(), *m = model(8, 17, NULL);
  pbw *n = P();
  char dom[32];
  for (int i = 0; i < 20000; i++) {
    snprintf(dom, sizeof dom, "com.example.d%d", i);
    pbw o = {0};
    pbw_str(&o, 1, dom);
    pbw_int(&o, 2, 1);
    pbw_msg(m, 8, &o);
    pbw_free(&o);
    pbw_str(n, 1, "x");
    pbw_str(n, 4, "Op");
    pbw_str(n, 7, dom);
    pbw_msg(g, 1, n);
    pbw_free(n);
  }
  pbw_msg(g, 11, value_info("x", F32, 1));
  pbw_msg(g, 12, value_info("x", F32, 1));
  pbw_msg(m, 7, g);
  kiln_onnx_model *km = expect_load(m);
  ck_assert_int_eq(kiln_onnx_model_opset(km, "com.example.d19999"), 1);
  kiln_onnx_model_free(km);
  pbw_msg(m, 8, opset("com.example.d7", 2));
  expect_error(m, KILN_ONNX_ERR_OPSET,
               "opset_import names domain 'com.example.d7' twice");
  pool_reset();
}
END_TEST

START_TEST(tensor_dtype_and_dims) {
  int64_t two = 2;
  pbw *t = tensor("w", 99, 1, &two);
  pbw_bytes(t, 9, "12345678", 8);
  expect_error(model(8, 17, add_graph_with(t, NULL)), KILN_ONNX_ERR_DTYPE,
               "initializer 0 'w': unknown data type 99");
  int64_t neg[2] = {2, -3};
  pbw *t2 = tensor("w", F32, 2, neg);
  expect_error(model(8, 17, add_graph_with(t2, NULL)), KILN_ONNX_ERR_DIMS,
               "initializer 0 'w': dimension 1 is -3");
  int64_t big[2] = {1ll << 40, 1ll << 40};
  pbw *t3 = tensor("w", F32, 2, big);
  expect_error(model(8, 17, add_graph_with(t3, NULL)), KILN_ONNX_ERR_DIMS,
               "overflows 63 bits");
  int64_t bytes_big[2] = {1ll << 31, 1ll << 31}; /* 2^62 elements, 2^64 bytes */
  pbw *t4 = tensor("w", F32, 2, bytes_big);
  expect_error(model(8, 17, add_graph_with(t4, NULL)), KILN_ONNX_ERR_DIMS,
               "overflows 63 bits");
  pbw *t5 = tensor("w", F32, 1, &two);
  pbw *seg = P();
  pbw_int(seg, 1, 0);
  pbw_msg(t5, 3, seg);
  expect_error(model(8, 17, add_graph_with(t5, NULL)),
               KILN_ONNX_ERR_UNSUPPORTED, "segmented tensors");
  pool_reset();
}
END_TEST

START_TEST(tensor_payloads) {
  expect_error(model(8, 17, add_graph_with(tensor_f32_raw("w", 2, 7), NULL)),
               KILN_ONNX_ERR_DATA,
               "initializer 0 'w': raw_data has 7 bytes, 2 elements of f32 "
               "need 8");
  int64_t two = 2;
  pbw *t = tensor("w", F32, 1, &two);
  pbw_bytes(t, 4, "\0\0\0\0", 4); /* one float for two elements */
  expect_error(model(8, 17, add_graph_with(t, NULL)), KILN_ONNX_ERR_DATA,
               "float_data holds 1 values, 2 elements of f32 need 2");
  pbw *t2 = tensor("w", F32, 1, &two);
  pbw_int(t2, 7, 1);
  pbw_int(t2, 7, 2);
  expect_error(model(8, 17, add_graph_with(t2, NULL)), KILN_ONNX_ERR_DATA,
               "int64_data given for a f32 tensor (it uses float_data)");
  pbw *t3 = tensor_f32_raw("w", 2, 8);
  pbw_bytes(t3, 4, "\0\0\0\0\0\0\0\0", 8);
  expect_error(model(8, 17, add_graph_with(t3, NULL)), KILN_ONNX_ERR_DATA,
               "payload given in 2 places");
  expect_error(model(8, 17, add_graph_with(tensor("w", F32, 1, &two), NULL)),
               KILN_ONNX_ERR_DATA, "no data for 2 elements");
  pbw *t4 = tensor("w", STR, 1, &two);
  pbw_bytes(t4, 9, "ab", 2);
  expect_error(model(8, 17, add_graph_with(t4, NULL)), KILN_ONNX_ERR_DATA,
               "raw_data on a string tensor");
  pbw *t5 = tensor("w", F32, 1, &two);
  expect_error(model(8, 17, add_graph_with(t5, NULL)), KILN_ONNX_ERR_DATA,
               "no data");
  pbw *t6 = tensor(NULL, F32, 1, &two);
  pbw_bytes(t6, 9, "12345678", 8);
  expect_error(model(8, 17, add_graph_with(t6, NULL)), KILN_ONNX_ERR_NAME,
               "initializer 0 has no name");
  pool_reset();
}
END_TEST

START_TEST(names_and_nodes) {
  expect_error(model(8, 17, add_graph_with(NULL, node("Add", "x", "nope", "y"))),
               KILN_ONNX_ERR_NAME,
               "node 0 (op 'Add'): input 1 'nope' is not a graph input, an "
               "initializer or an earlier node's output");
  expect_error(model(8, 17, add_graph_with(NULL, node("Add", "x", "w", "x"))),
               KILN_ONNX_ERR_NAME, "output 0 'x' is already defined");
  expect_error(model(8, 17, add_graph_with(NULL, node("Add", "x", "w", "z"))),
               KILN_ONNX_ERR_NAME, "graph output 0 'y': not defined");
  expect_error(model(8, 17, add_graph_with(NULL, node(NULL, "x", "w", "y"))),
               KILN_ONNX_ERR_NODE, "node 0 (op ''): no op_type");
  /* Topological order: a node using a later node's output. */
  pbw *nodes[] = {node("Relu", "t", NULL, "y"), node("Relu", "x", NULL, "t")};
  pbw *ins[] = {value_info("x", F32, 2)};
  pbw *outs[] = {value_info("y", F32, 2)};
  expect_error(model(8, 17, graph(nodes, 2, NULL, 0, ins, 1, outs, 1)),
               KILN_ONNX_ERR_NAME, "node 0 (op 'Relu'): input 0 't'");
  /* Omitted optional inputs ("") are fine. */
  kiln_onnx_model_free(expect_load(
      model(8, 17, add_graph_with(NULL, node("Clip", "x", "", "y")))));
  pool_reset();
}
END_TEST

START_TEST(attributes) {
  pbw *a = P();
  pbw_str(a, 1, "alpha");
  pbw_int(a, 3, 1); /* i, but no type */
  pbw *n = node("Add", "x", "w", "y");
  pbw_msg(n, 5, a);
  expect_error(model(8, 17, add_graph_with(NULL, n)), KILN_ONNX_ERR_ATTRIBUTE,
               "node 0 (op 'Add') attribute 'alpha': no type");
  /* A Constant whose tensor has a bad raw_data size. */
  pbw *ca = P();
  pbw_str(ca, 1, "value");
  pbw_msg(ca, 5, tensor_f32_raw("", 2, 4));
  pbw_int(ca, 20, 4); /* TENSOR */
  pbw *cn = node("Constant", NULL, NULL, "w2");
  pbw_msg(cn, 5, ca);
  pbw *nodes[] = {cn, node("Add", "x", "w2", "y")};
  pbw *ins[] = {value_info("x", F32, 2)};
  pbw *outs[] = {value_info("y", F32, 2)};
  expect_error(model(8, 17, graph(nodes, 2, NULL, 0, ins, 1, outs, 1)),
               KILN_ONNX_ERR_DATA,
               "node 0 (op 'Constant') attribute 'value': raw_data has 4 "
               "bytes");
  pool_reset();
}
END_TEST

START_TEST(graph_io_types) {
  pbw *vi = P();
  pbw_str(vi, 1, "x");
  int64_t neg = -1;
  pbw_msg(vi, 2, tensor_type(F32, 1, &neg));
  pbw *nodes[] = {node("Add", "x", "w", "y")};
  pbw *inits[] = {tensor_f32_raw("w", 2, 8)};
  pbw *ins[] = {vi};
  pbw *outs[] = {value_info("y", F32, 2)};
  expect_error(model(8, 17, graph(nodes, 1, inits, 1, ins, 1, outs, 1)),
               KILN_ONNX_ERR_DIMS, "graph input 0 'x': dimension 0 is -1");
  pbw *ins2[] = {value_info("x", 77, 2)};
  expect_error(model(8, 17, graph(nodes, 1, inits, 1, ins2, 1, outs, 1)),
               KILN_ONNX_ERR_DTYPE,
               "graph input 0 'x': unknown element data type 77");
  pbw *ins3[] = {value_info("x", F32, 2), value_info("x", F32, 2)};
  expect_error(model(8, 17, graph(nodes, 1, inits, 1, ins3, 2, outs, 1)),
               KILN_ONNX_ERR_NAME, "graph input 1 'x': name used twice");
  pool_reset();
}
END_TEST

/* An external reference in a tensor (checked at load, before any file). */
static pbw *external_tensor(const char *key, const char *value) {
  int64_t four = 4;
  pbw *t = tensor("w", U8, 1, &four);
  pbw *e = P();
  pbw_str(e, 1, "location");
  pbw_str(e, 2, strcmp(key, "location") == 0 ? value : "w.bin");
  pbw_msg(t, 13, e);
  if (strcmp(key, "location") != 0) {
    e = P();
    pbw_str(e, 1, key);
    pbw_str(e, 2, value);
    pbw_msg(t, 13, e);
  }
  pbw_int(t, 14, 1);
  return t;
}

START_TEST(external_references) {
  static const struct {
    const char *key, *value, *needle;
  } cases[] = {
    {"location", "../secret.bin", "leaves the model's folder"},
    {"location", "data/../../x", "leaves the model's folder"},
    {"location", "..\\x", "leaves the model's folder"},
    {"location", "/etc/passwd", "is absolute"},
    {"location", "", "without a location"},
    {"offset", "12abc", "external offset '12abc' is not one decimal number"},
    {"offset", "-4", "is not one decimal number"},
    {"length", "99999999999999999999", "is not one decimal number"},
    {"length", "5", "external length 5, 4 elements of ui8 need 4"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pbw *nodes[] = {node("Identity", "w", NULL, "y")};
    pbw *inits[] = {external_tensor(cases[i].key, cases[i].value)};
    pbw *outs[] = {value_info("y", U8, 4)};
    expect_error(model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1)),
                 KILN_ONNX_ERR_EXTERNAL, cases[i].needle);
  }
  /* external_data without data_location EXTERNAL. */
  int64_t four = 4;
  pbw *t = tensor("w", U8, 1, &four);
  pbw *e = P();
  pbw_str(e, 1, "location");
  pbw_str(e, 2, "w.bin");
  pbw_msg(t, 13, e);
  pbw *nodes[] = {node("Identity", "w", NULL, "y")};
  pbw *inits[] = {t};
  pbw *outs[] = {value_info("y", U8, 4)};
  expect_error(model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1)),
               KILN_ONNX_ERR_EXTERNAL, "without data_location EXTERNAL");
  pool_reset();
}
END_TEST

START_TEST(string_tensor_has_no_byte_view) {
  int64_t one = 1;
  pbw *t = tensor("w", STR, 1, &one);
  pbw_bytes(t, 6, "hello", 5);
  pbw *nodes[] = {node("Identity", "w", NULL, "y")};
  pbw *inits[] = {t};
  pbw *outs[] = {value_info("y", STR, 1)};
  kiln_onnx_model *m =
      expect_load(model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1)));
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  ck_assert(!kiln_onnx_model_tensor_bytes(
      m, kiln_onnx_model_proto(m)->graph->initializer[0], &b, &st));
  ck_assert_int_eq(st.code, KILN_ONNX_ERR_UNSUPPORTED);
  kiln_onnx_model_free(m);
  pool_reset();
}
END_TEST

START_TEST(arena_budget_is_enforced) {
  ox_arena a;
  ox_arena_init(&a, 1024);
  ck_assert_ptr_nonnull(ox_arena_alloc(&a, 500));
  ck_assert(!a.exceeded);
  ck_assert_ptr_null(ox_arena_alloc(&a, 600)); /* 512 + 608 > 1024 */
  ck_assert(a.exceeded);
  ck_assert_ptr_nonnull(ox_arena_alloc(&a, 100));
  ck_assert_ptr_null(ox_arena_alloc(&a, SIZE_MAX - 4)); /* no wraparound */
  ox_arena_release(&a);
  ox_arena_init(&a, SIZE_MAX);
  void *big = ox_arena_alloc(&a, 1 << 20); /* its own chunk */
  void *small = ox_arena_alloc(&a, 16);
  ck_assert_ptr_nonnull(big);
  ck_assert_ptr_nonnull(small);
  ck_assert_uint_eq((uintptr_t)small % 16, 0);
  ox_arena_release(&a);
}
END_TEST

START_TEST(large_initializer_one_copy) {
  /* 16 MiB of raw_data: decodes within the budget and is handed out where
   * protobuf-c put it. */
  int64_t n = 4 << 20;
  pbw *t = tensor("w", F32, 1, &n);
  size_t bytes = (size_t)n * 4;
  uint8_t *raw = malloc(bytes);
  for (size_t i = 0; i < bytes; i++) raw[i] = (uint8_t)(i * 7);
  pbw_bytes(t, 9, raw, bytes);
  pbw *nodes[] = {node("Identity", "w", NULL, "y")};
  pbw *inits[] = {t};
  pbw *outs[] = {value_info("y", F32, n)};
  pbw *m = model(8, 13, graph(nodes, 1, inits, 1, NULL, 0, outs, 1));
  kiln_onnx_model *km = expect_load(m);
  const Onnx__TensorProto *w = kiln_onnx_model_proto(km)->graph->initializer[0];
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  ck_assert(kiln_onnx_model_tensor_bytes(km, w, &b, &st));
  ck_assert_ptr_eq(b.data, w->raw_data.data);
  ck_assert_uint_eq(b.size, bytes);
  ck_assert(memcmp(b.data, raw, bytes) == 0);
  kiln_onnx_model_free(km);
  free(raw);
  pool_reset();
}
END_TEST

START_TEST(code_names) {
  ck_assert_str_eq(kiln_onnx_code_name(KILN_ONNX_OK), "ok");
  ck_assert_str_eq(kiln_onnx_code_name(KILN_ONNX_ERR_TRUNCATED), "truncated");
  ck_assert_str_eq(kiln_onnx_code_name(KILN_ONNX_ERR_EXTERNAL), "external");
  ck_assert_str_eq(kiln_onnx_code_name((kiln_onnx_code)999), "?");
  ck_assert_str_eq(kiln_onnx_dtype_name(1), "f32");
  ck_assert_str_eq(kiln_onnx_dtype_name(16), "bf16");
  ck_assert_ptr_null(kiln_onnx_dtype_name(0));
  ck_assert_ptr_null(kiln_onnx_dtype_name(17));
  ck_assert_uint_eq(kiln_onnx_dtype_size(15), 16);
  ck_assert_uint_eq(kiln_onnx_dtype_size(8), 0);
}
END_TEST

static Suite *onnx_suite(void) {
  Suite *s = suite_create("onnx_loader");
  TCase *ok = tcase_create("valid");
  tcase_add_test(ok, valid_model_and_raw_bytes_in_place);
  tcase_add_test(ok, typed_fields_in_place_or_converted_once);
  tcase_add_test(ok, subgraph_sees_outer_scope);
  tcase_add_test(ok, external_data_is_mapped);
  tcase_add_test(ok, sniffing);
  tcase_add_test(ok, value_files);
  tcase_add_test(ok, string_tensor_has_no_byte_view);
  tcase_add_test(ok, code_names);
  tcase_add_test(ok, arena_budget_is_enforced);
  tcase_add_test(ok, large_initializer_one_copy);
  suite_add_tcase(s, ok);
  TCase *wire = tcase_create("wire");
  tcase_add_test(wire, every_truncation_is_named);
  tcase_add_test(wire, truncated_graph);
  tcase_add_test(wire, status_as_kiln_error);
  tcase_add_test(wire, wrong_wire_types);
  tcase_add_test(wire, huge_lengths_and_varints);
  tcase_add_test(wire, deep_nesting);
  tcase_add_test(wire, nul_in_name);
  tcase_add_test(wire, repeated_submessage_merges_hit_the_budget);
  suite_add_tcase(s, wire);
  TCase *bad = tcase_create("malformed");
  tcase_add_test(bad, model_level);
  tcase_add_test(bad, opsets);
  tcase_add_test(bad, many_domains);
  tcase_add_test(bad, tensor_dtype_and_dims);
  tcase_add_test(bad, tensor_payloads);
  tcase_add_test(bad, names_and_nodes);
  tcase_add_test(bad, attributes);
  tcase_add_test(bad, graph_io_types);
  tcase_add_test(bad, external_references);
  suite_add_tcase(s, bad);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(onnx_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
