/* Context: the arena every IR object lives in, string interning, the
 * interning hash set and pointer map, byte buffers, error values and the
 * diagnostic engine ("file:line:col: error: msg", source line, caret),
 * and the source-node lists of locations (kiln_loc.nodes).
 * Guarantees: allocation failure aborts with a message (the compiler has no
 * sensible way to continue); everything is released by one destroy call. */
#include "ir_internal.h"

#include <stdlib.h>

struct ir_arena_chunk {
  ir_arena_chunk *next;
  size_t size;
  _Alignas(16) char data[];
};

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fputs("kiln: out of memory\n", stderr);
    abort();
  }
  return p;
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("kiln: out of memory\n", stderr);
    abort();
  }
  return q;
}

/* ---- buffers ---- */
void ir_buf_put(ir_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}
void ir_buf_puts(ir_buf *b, const char *s) { ir_buf_put(b, s, strlen(s)); }
void ir_buf_putc(ir_buf *b, char c) { ir_buf_put(b, &c, 1); }
void ir_buf_vprintf(ir_buf *b, const char *fmt, va_list ap) {
  char tmp[512];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if (n >= 0 && (size_t)n < sizeof tmp) {
    ir_buf_put(b, tmp, (size_t)n);
  } else if (n >= 0) { /* too long for tmp: format again into a buffer that fits */
    char *big = xmalloc((size_t)n + 1);
    vsnprintf(big, (size_t)n + 1, fmt, again);
    ir_buf_put(b, big, (size_t)n);
    free(big);
  }
  va_end(again);
}
void ir_buf_printf(ir_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_buf_vprintf(b, fmt, ap);
  va_end(ap);
}
void ir_buf_free(ir_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
char *ir_buf_take(ir_buf *b) {
  if (!b->data) ir_buf_put(b, "", 0);
  char *d = b->data;
  b->data = NULL;
  b->len = b->cap = 0;
  return d;
}

/* ---- hashing, sets, maps ---- */
uint64_t ir_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

void *ir_set_find(ir_set *s, uint64_t hash, bool (*eq)(const void *, const void *),
                  const void *key) {
  if (!s->cap) return NULL;
  size_t mask = s->cap - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (!s->slots[i]) return NULL;
    if (s->hashes[i] == hash && eq(s->slots[i], key)) return s->slots[i];
  }
}

void ir_set_insert(ir_set *s, uint64_t hash, void *entry) {
  if ((s->count + 1) * 2 > s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 64;
    void **ns = calloc(ncap, sizeof *ns);
    uint64_t *nh = calloc(ncap, sizeof *nh);
    if (!ns || !nh) {
      fputs("kiln: out of memory\n", stderr);
      abort();
    }
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->slots[i]) continue;
      size_t j = s->hashes[i] & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = s->slots[i];
      nh[j] = s->hashes[i];
    }
    free(s->slots);
    free(s->hashes);
    s->slots = ns;
    s->hashes = nh;
    s->cap = ncap;
  }
  size_t mask = s->cap - 1;
  size_t i = hash & mask;
  while (s->slots[i]) i = (i + 1) & mask;
  s->slots[i] = entry;
  s->hashes[i] = hash;
  s->count++;
}

void ir_set_free(ir_set *s) {
  free(s->slots);
  free(s->hashes);
  memset(s, 0, sizeof *s);
}

static size_t ptr_hash(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (size_t)h;
}

static size_t ptr_slot(const kiln_ptr_map *m, const void *key) {
  const size_t mask = m->cap - 1;
  size_t i = ptr_hash(key) & mask;
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
  return i;
}

void *kiln_ptr_map_get(const kiln_ptr_map *m, const void *key) {
  if (!m->cap) return NULL;
  const size_t i = ptr_slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

bool kiln_ptr_map_has(const kiln_ptr_map *m, const void *key) {
  return m->cap && m->keys[ptr_slot(m, key)] != NULL;
}

bool kiln_ptr_map_put(kiln_ptr_map *m, const void *key, void *val) {
  if ((m->count + 1) * 2 > m->cap) {
    kiln_ptr_map n = {NULL, NULL, m->cap ? m->cap * 2 : 64, 0};
    n.keys = calloc(n.cap, sizeof *n.keys);
    n.vals = calloc(n.cap, sizeof *n.vals);
    if (!n.keys || !n.vals) {
      kiln_ptr_map_free(&n);
      return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      const size_t j = ptr_slot(&n, m->keys[i]);
      n.keys[j] = m->keys[i];
      n.vals[j] = m->vals[i];
      n.count++;
    }
    kiln_ptr_map_free(m);
    *m = n;
  }
  const size_t i = ptr_slot(m, key);
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  return true;
}

void kiln_ptr_map_free(kiln_ptr_map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

void ir_map_put(kiln_ptr_map *m, const void *key, void *val) {
  if (!kiln_ptr_map_put(m, key, val)) {
    fputs("kiln: out of memory\n", stderr);
    abort();
  }
}

/* ---- context and arena ---- */
kiln_context *kiln_context_create(void) {
  kiln_context *ctx = xmalloc(sizeof *ctx);
  memset(ctx, 0, sizeof *ctx);
  ctx->t_index = kiln_type_index(ctx);
  ctx->t_f16 = kiln_type_f16(ctx);
  ctx->t_bf16 = kiln_type_bf16(ctx);
  ctx->t_f32 = kiln_type_f32(ctx);
  ctx->t_f64 = kiln_type_f64(ctx);
  ctx->t_none = kiln_type_none(ctx);
  ctx->t_i1 = kiln_type_int(ctx, 1);
  ctx->a_unit = kiln_attr_unit(ctx);
  ctx->a_true = kiln_attr_bool(ctx, true);
  ctx->a_false = kiln_attr_bool(ctx, false);
  ctx->a_empty_dict = kiln_attr_dict(ctx, 0, NULL);
  return ctx;
}

void kiln_context_destroy(kiln_context *ctx) {
  if (!ctx) return;
  ir_arena_chunk *c = ctx->chunks;
  while (c) {
    ir_arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  ir_set_free(&ctx->strings);
  ir_set_free(&ctx->types);
  ir_set_free(&ctx->attrs);
  ir_set_free(&ctx->exprs);
  ir_set_free(&ctx->maps);
  free(ctx->sources);
  free(ctx);
}

void *kiln_alloc(kiln_context *ctx, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size > 16384) { /* big blocks get their own chunk, behind the head */
    ir_arena_chunk *c = xmalloc(sizeof *c + size);
    c->size = size;
    if (ctx->chunks) {
      c->next = ctx->chunks->next;
      ctx->chunks->next = c;
    } else {
      c->next = NULL;
      ctx->chunks = c;
      ctx->cur = ctx->end = c->data + size;
    }
    memset(c->data, 0, size);
    return c->data;
  }
  if ((size_t)(ctx->end - ctx->cur) < size) {
    size_t csize = 65536;
    ir_arena_chunk *c = xmalloc(sizeof *c + csize);
    c->size = csize;
    c->next = ctx->chunks;
    ctx->chunks = c;
    ctx->cur = c->data;
    ctx->end = c->data + csize;
  }
  void *p = ctx->cur;
  ctx->cur += size;
  memset(p, 0, size);
  return p;
}

void *ir_grow(kiln_context *ctx, void *old, size_t elem, uint32_t *cap,
              uint32_t need) {
  if (need <= *cap) return old;
  uint32_t ncap = *cap ? *cap * 2 : 4;
  while (ncap < need) ncap *= 2;
  void *p = kiln_alloc(ctx, elem * ncap);
  if (old) memcpy(p, old, elem * *cap);
  *cap = ncap;
  return p;
}

typedef struct ir_str {
  size_t len;
  char s[];
} ir_str;

typedef struct {
  const char *s;
  size_t len;
} str_key;

static bool str_eq(const void *entry, const void *key) {
  const ir_str *e = entry;
  const str_key *k = key;
  return e->len == k->len && memcmp(e->s, k->s, k->len) == 0;
}

const char *kiln_intern(kiln_context *ctx, const char *s, size_t len) {
  uint64_t h = ir_hash_bytes(IR_HASH_SEED, s, len);
  str_key k = {s, len};
  ir_str *e = ir_set_find(&ctx->strings, h, str_eq, &k);
  if (e) return e->s;
  e = kiln_alloc(ctx, sizeof *e + len + 1);
  e->len = len;
  memcpy(e->s, s, len);
  e->s[len] = 0;
  ir_set_insert(&ctx->strings, h, e);
  return e->s;
}

const char *kiln_intern_cstr(kiln_context *ctx, const char *s) {
  return kiln_intern(ctx, s, strlen(s));
}

/* NODES with the lines of MORE not yet in it appended; interned. */
static const char *ir_nodes_union(kiln_context *ctx, const char *nodes, const char *more) {
  if (!more || nodes == more) return nodes;
  if (!nodes) return more;
  ir_buf b = {0};
  ir_buf_printf(&b, "%s", nodes);
  for (const char *p = more; *p;) {
    const size_t n = strcspn(p, "\n");
    bool seen = false;
    for (const char *q = nodes; *q && !seen;) {
      const size_t m = strcspn(q, "\n");
      seen = m == n && memcmp(p, q, n) == 0;
      q += m + (q[m] == '\n');
    }
    if (!seen) ir_buf_printf(&b, "\n%.*s", (int)n, p);
    p += n + (p[n] == '\n');
  }
  const char *r = b.data ? kiln_intern(ctx, b.data, b.len) : nodes;
  free(b.data);
  return r;
}

kiln_loc kiln_loc_fuse(kiln_context *ctx, kiln_loc a, kiln_loc b) {
  a.nodes = ir_nodes_union(ctx, a.nodes, b.nodes);
  return a;
}

const char *kiln_loc_nodes_add(kiln_context *ctx, const char *nodes, const kiln_op *op) {
  if (op->loc.nodes) return ir_nodes_union(ctx, nodes, op->loc.nodes);
  if (!op->loc.file) return nodes;
  char line[512];
  const int n = snprintf(line, sizeof line, "%s:%u:%u (%s)", op->loc.file, op->loc.line,
                         op->loc.col, op->name ? op->name : "?");
  const size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  return ir_nodes_union(ctx, nodes, kiln_intern(ctx, line, len));
}

void kiln_context_set_user(kiln_context *ctx, void *user) { ctx->user = user; }
void *kiln_context_user(const kiln_context *ctx) { return ctx->user; }

void kiln_context_allow_unregistered(kiln_context *ctx, bool allow) {
  ctx->allow_unregistered = allow;
}
bool kiln_context_allows_unregistered(const kiln_context *ctx) {
  return ctx->allow_unregistered;
}

/* ---- diagnostics ---- */
void kiln_context_set_diag_handler(kiln_context *ctx, kiln_diag_handler fn,
                                   void *user) {
  ctx->diag = fn;
  ctx->diag_user = user;
}

void kiln_context_add_source(kiln_context *ctx, const char *name,
                             const char *text, size_t len) {
  if (ctx->num_sources == ctx->cap_sources) {
    ctx->cap_sources = ctx->cap_sources ? ctx->cap_sources * 2 : 4;
    ctx->sources = xrealloc(ctx->sources, ctx->cap_sources * sizeof *ctx->sources);
  }
  ir_source *s = &ctx->sources[ctx->num_sources++];
  s->name = kiln_intern_cstr(ctx, name);
  s->text = text;
  s->len = len;
}

/* Appends the source line of loc and a caret under its column. */
static void append_source_line(kiln_context *ctx, ir_buf *b, kiln_loc loc) {
  for (size_t i = ctx->num_sources; i-- > 0;) {
    ir_source *s = &ctx->sources[i];
    if (s->name != loc.file) continue;
    const char *p = s->text, *end = s->text + s->len;
    for (uint32_t line = 1; line < loc.line && p < end; p++)
      if (*p == '\n') line++;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    if (p > end) return;
    /* Non-printable bytes are shown as '?' so garbage input stays readable. */
    size_t n = (size_t)(e - p);
    if (n > 400) n = 400;
    for (size_t j = 0; j < n; j++) {
      unsigned char c = (unsigned char)p[j];
      ir_buf_putc(b, (c == '\t' || (c >= 32 && c < 127)) ? (char)c : '?');
    }
    ir_buf_putc(b, '\n');
    for (uint32_t c = 1; c < loc.col && c <= n; c++)
      ir_buf_putc(b, p[c - 1] == '\t' ? '\t' : ' ');
    ir_buf_puts(b, "^\n");
    return;
  }
}

void kiln_emit_verror(kiln_context *ctx, kiln_loc loc, const char *kind,
                      const char *fmt, va_list ap) {
  ir_buf b = {0};
  if (loc.file)
    ir_buf_printf(&b, "%s:%u:%u: ", loc.file, loc.line, loc.col);
  else
    ir_buf_puts(&b, "<unknown>: ");
  const size_t where = b.len;
  ir_buf_printf(&b, "%s: ", kind);
  char tmp[1024];
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  ir_buf_puts(&b, tmp);
  if (strcmp(kind, "error") == 0) {
    /* kept for kiln_context_error_text: the location and the message */
    const size_t n = strlen(tmp);
    char *text = kiln_alloc(ctx, where + n + 1);
    memcpy(text, b.data, where);
    memcpy(text + where, tmp, n + 1);
    ctx->error_texts = ir_grow(ctx, ctx->error_texts, sizeof *ctx->error_texts,
                               &ctx->cap_error_texts, ctx->errors + 1);
    ctx->error_texts[ctx->errors++] = text;
  }
  ir_buf_putc(&b, '\n');
  if (loc.file) append_source_line(ctx, &b, loc);
  if (ctx->diag)
    ctx->diag(ctx->diag_user, b.data);
  else
    fputs(b.data, stderr);
  ir_buf_free(&b);
}

void kiln_emit_error(kiln_context *ctx, kiln_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_emit_verror(ctx, loc, "error", fmt, ap);
  va_end(ap);
}

void kiln_emit_note(kiln_context *ctx, kiln_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_emit_verror(ctx, loc, "note", fmt, ap);
  va_end(ap);
}

unsigned kiln_context_error_count(const kiln_context *ctx) { return ctx->errors; }

const char *kiln_context_error_text(const kiln_context *ctx, unsigned i) {
  return i < ctx->errors ? ctx->error_texts[i] : NULL;
}
