/* The loader leaves large raw_data in the mapped model file (borrow.c).
 *
 * Writes a hand-encoded model to a temporary file and decodes it with
 * kiln_onnx_model_decode_file; checks that raw_data of 1 KiB or more
 * (initializers, a Constant's tensor attribute) points into a mapping of
 * that file (/proc/self/maps) with the right bytes, that small raw_data is
 * a heap copy, that the last of two raw_data fields wins as protobuf says
 * (big then small, small then big), that a marker field forged in the
 * input is dropped and gives no raw_data, that a tensor protobuf-c merges
 * from two occurrences keeps its raw_data, and that every tensor decodes
 * to the same bytes as a decode from memory (no borrowing). Then the
 * loaded-and-validated path (load_file + tensor bytes) on a valid model.
 * Prints one line per check; exit status 1 on any failure.
 * usage: onnx_borrow_test TMPDIR [SEED_DIR]; with SEED_DIR, both models
 * are also written there as seeds for kiln_fuzz_onnx_borrow. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln_onnx.h"

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void varint(buf *b, uint64_t v) {
  do {
    uint8_t c = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) c |= 0x80;
    put(b, &c, 1);
  } while (v);
}

static void field_varint(buf *b, uint32_t num, uint64_t v) {
  varint(b, (uint64_t)num << 3);
  varint(b, v);
}

static void field_bytes(buf *b, uint32_t num, const void *p, size_t n) {
  varint(b, ((uint64_t)num << 3) | 2);
  varint(b, n);
  put(b, p, n);
}

static void field_str(buf *b, uint32_t num, const char *s) {
  field_bytes(b, num, s, strlen(s));
}

/* Embeds SUB as field NUM and frees it. */
static void field_msg(buf *b, uint32_t num, buf *sub) {
  field_bytes(b, num, sub->p, sub->n);
  free(sub->p);
  memset(sub, 0, sizeof *sub);
}

static uint8_t *pattern(size_t n, unsigned seed) {
  uint8_t *p = malloc(n);
  if (!p) abort();
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 31 + seed);
  return p;
}

/* TensorProto f32 NAME of COUNT elements; raw_data fields as given. */
static buf tensor(const char *name, int64_t count, int nraw,
                  const uint8_t *const *raw, const size_t *rawlen) {
  buf t = {0};
  field_varint(&t, 1, (uint64_t)count); /* dims */
  field_varint(&t, 2, 1);                /* data_type FLOAT */
  field_str(&t, 8, name);
  for (int i = 0; i < nraw; i++) field_bytes(&t, 9, raw[i], rawlen[i]);
  return t;
}

static int failures;
#define CHECK(cond, ...)                  \
  do {                                    \
    if (cond) {                           \
      printf("ok: ");                     \
    } else {                              \
      printf("FAIL: ");                   \
      failures++;                         \
    }                                     \
    printf(__VA_ARGS__);                  \
    printf("\n");                         \
  } while (0)

/* Whether P lies in a mapping of PATH (by inode, from /proc/self/maps). */
static bool in_file_mapping(const void *p, const char *path) {
  char real[4096];
  if (!realpath(path, real)) return false;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return false;
  char line[8192];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
    char *name = strchr(line, '/');
    if (!name) continue;
    name[strcspn(name, "\n")] = 0;
    found = strcmp(name, real) == 0 && (uintptr_t)p >= lo && (uintptr_t)p < hi;
  }
  fclose(f);
  return found;
}

static const Onnx__TensorProto *init_named(const kiln_onnx_model *m,
                                           const char *name) {
  const Onnx__GraphProto *g = kiln_onnx_model_proto(m)->graph;
  for (size_t i = 0; i < g->n_initializer; i++)
    if (strcmp(g->initializer[i]->name, name) == 0) return g->initializer[i];
  return NULL;
}

static void write_file(const char *path, const buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/borrow_test_%ld.onnx", dir, (long)getpid());

  /* ---- a decoded-only model with every odd case ---- */
  const size_t BIG = 4096, SMALL = 100;
  uint8_t *big_a = pattern(BIG, 1), *small_b = pattern(SMALL, 2);
  uint8_t *junk = pattern(2048, 3), *eight = pattern(8, 4);
  uint8_t *big_d = pattern(BIG, 5), *big_k = pattern(BIG, 6);
  buf g = {0};
  {
    const uint8_t *r[] = {big_a};
    size_t l[] = {BIG};
    buf t = tensor("a", BIG / 4, 1, r, l);
    field_msg(&g, 5, &t);
  }
  {
    const uint8_t *r[] = {small_b};
    size_t l[] = {SMALL};
    buf t = tensor("b", SMALL / 4, 1, r, l);
    field_msg(&g, 5, &t);
  }
  { /* big then small: the small one wins */
    const uint8_t *r[] = {junk, eight};
    size_t l[] = {2048, 8};
    buf t = tensor("c", 2, 2, r, l);
    field_msg(&g, 5, &t);
  }
  { /* small then big: the big one wins */
    const uint8_t *r[] = {eight, big_d};
    size_t l[] = {8, BIG};
    buf t = tensor("d", BIG / 4, 2, r, l);
    field_msg(&g, 5, &t);
  }
  { /* a forged marker and no raw_data */
    buf t = tensor("e", 1, 0, NULL, NULL);
    field_varint(&t, 536870911u, 0);
    field_msg(&g, 5, &t);
  }
  { /* Constant node whose value attribute holds a big tensor */
    const uint8_t *r[] = {big_k};
    size_t l[] = {BIG};
    buf t = tensor("k", BIG / 4, 1, r, l);
    buf attr = {0}, node = {0};
    field_str(&attr, 1, "value");
    field_msg(&attr, 5, &t);
    field_varint(&attr, 20, 4); /* TENSOR */
    field_str(&node, 2, "kout");
    field_str(&node, 4, "Constant");
    field_msg(&node, 5, &attr);
    field_msg(&g, 1, &node);
  }
  { /* a singular tensor field given twice: protobuf merges the two */
    const uint8_t *r[] = {big_k};
    size_t l[] = {BIG};
    buf t1 = tensor("k2", BIG / 4, 1, r, l), t2 = {0};
    field_str(&t2, 8, "k2");
    buf attr = {0}, node = {0};
    field_str(&attr, 1, "value");
    field_msg(&attr, 5, &t1);
    field_msg(&attr, 5, &t2);
    field_varint(&attr, 20, 4);
    field_str(&node, 2, "kout2");
    field_str(&node, 4, "Constant");
    field_msg(&node, 5, &attr);
    field_msg(&g, 1, &node);
  }
  field_str(&g, 2, "g");
  buf m = {0}, ops = {0};
  field_varint(&m, 1, 8);
  field_msg(&m, 7, &g);
  field_varint(&ops, 2, 13);
  field_msg(&m, 8, &ops);
  write_file(path, &m);
  char seed[4096];
  if (argc > 2) {
    snprintf(seed, sizeof seed, "%s/borrow_cases.onnx", argv[2]);
    write_file(seed, &m);
  }

  kiln_onnx_status st;
  kiln_onnx_model *fm = NULL, *mm = NULL;
  if (!kiln_onnx_model_decode_file(path, &fm, &st) ||
      !kiln_onnx_model_decode(m.p, m.n, NULL, &mm, &st)) {
    printf("FAIL: decode: %s\n", st.message);
    return 1;
  }
  const Onnx__TensorProto *a = init_named(fm, "a"), *b = init_named(fm, "b"),
                          *c = init_named(fm, "c"), *d = init_named(fm, "d"),
                          *e = init_named(fm, "e");
  CHECK(a && a->has_raw_data && a->raw_data.len == BIG &&
            memcmp(a->raw_data.data, big_a, BIG) == 0,
        "a: 4096 bytes of raw_data decoded");
  CHECK(a && in_file_mapping(a->raw_data.data, path),
        "a: raw_data points into the mapped model file");
  CHECK(b && b->raw_data.len == SMALL &&
            memcmp(b->raw_data.data, small_b, SMALL) == 0 &&
            !in_file_mapping(b->raw_data.data, path),
        "b: 100 bytes of raw_data copied by protobuf-c");
  CHECK(c && c->raw_data.len == 8 && memcmp(c->raw_data.data, eight, 8) == 0,
        "c: big then small raw_data: the last (small) one wins");
  CHECK(d && d->raw_data.len == BIG &&
            memcmp(d->raw_data.data, big_d, BIG) == 0 &&
            in_file_mapping(d->raw_data.data, path),
        "d: small then big raw_data: the last (big, borrowed) one wins");
  CHECK(e && !e->has_raw_data && e->raw_data.len == 0 &&
            e->base.n_unknown_fields == 0,
        "e: a forged marker field is dropped and gives no raw_data");
  const Onnx__GraphProto *fg = kiln_onnx_model_proto(fm)->graph;
  const Onnx__TensorProto *k =
      fg->n_node == 2 && fg->node[0]->n_attribute == 1
          ? fg->node[0]->attribute[0]->t : NULL;
  CHECK(k && k->raw_data.len == BIG &&
            memcmp(k->raw_data.data, big_k, BIG) == 0 &&
            in_file_mapping(k->raw_data.data, path),
        "k: a Constant's tensor attribute borrows its raw_data too");
  /* The same bytes decoded from memory agree tensor by tensor. */
  const Onnx__GraphProto *mg = kiln_onnx_model_proto(mm)->graph;
  bool same = mg->n_initializer == fg->n_initializer;
  for (size_t i = 0; same && i < mg->n_initializer; i++) {
    const Onnx__TensorProto *x = fg->initializer[i], *y = mg->initializer[i];
    same = x->has_raw_data == y->has_raw_data &&
           x->raw_data.len == y->raw_data.len &&
           (!x->raw_data.len ||
            memcmp(x->raw_data.data, y->raw_data.data, x->raw_data.len) == 0) &&
           !in_file_mapping(y->raw_data.data, path);
  }
  CHECK(same, "decoding from memory gives the same tensors (all copied)");
  const Onnx__TensorProto *k2 = fg->node[1]->attribute[0]->t,
                          *k2m = mg->n_node == 2 ? mg->node[1]->attribute[0]->t : NULL;
  CHECK(k2 && k2m && k2->has_raw_data && k2m->has_raw_data &&
            k2->raw_data.len == BIG && k2m->raw_data.len == BIG &&
            memcmp(k2->raw_data.data, big_k, BIG) == 0 &&
            memcmp(k2m->raw_data.data, big_k, BIG) == 0,
        "k2: a tensor attribute given twice is merged with its raw_data, "
        "as from memory");
  kiln_onnx_model_free(fm);
  kiln_onnx_model_free(mm);
  free(m.p);

  /* ---- a valid model through load_file and tensor bytes ---- */
  buf g2 = {0}, m2 = {0}, ops2 = {0}, out = {0}, node = {0};
  {
    const uint8_t *r[] = {big_a};
    size_t l[] = {BIG};
    buf t = tensor("w", BIG / 4, 1, r, l);
    field_msg(&g2, 5, &t);
  }
  field_str(&node, 1, "w");
  field_str(&node, 2, "y");
  field_str(&node, 4, "Identity");
  field_msg(&g2, 1, &node);
  field_str(&g2, 2, "g");
  field_str(&out, 1, "y");
  field_msg(&g2, 12, &out);
  field_varint(&m2, 1, 8);
  field_msg(&m2, 7, &g2);
  field_varint(&ops2, 2, 13);
  field_msg(&m2, 8, &ops2);
  write_file(path, &m2);
  if (argc > 2) {
    snprintf(seed, sizeof seed, "%s/borrow_valid.onnx", argv[2]);
    write_file(seed, &m2);
  }
  kiln_onnx_model *lm = NULL;
  if (!kiln_onnx_model_load_file(path, &lm, &st)) {
    printf("FAIL: load_file: %s\n", st.message);
    return 1;
  }
  kiln_onnx_bytes bytes;
  const Onnx__TensorProto *w = init_named(lm, "w");
  CHECK(w && kiln_onnx_model_tensor_bytes(lm, w, &bytes, &st) &&
            bytes.size == BIG && !bytes.copied &&
            memcmp(bytes.data, big_a, BIG) == 0 &&
            in_file_mapping(bytes.data, path),
        "load_file + tensor bytes: the view is the mapped file");
  unlink(path); /* the mapping stays valid */
  CHECK(w && memcmp(w->raw_data.data, big_a, BIG) == 0,
        "the view survives unlinking the file");
  kiln_onnx_model_free(lm);
  free(m2.p);
  free(big_a);
  free(small_b);
  free(junk);
  free(eight);
  free(big_d);
  free(big_k);
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
