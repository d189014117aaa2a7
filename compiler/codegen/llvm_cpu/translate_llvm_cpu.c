/* translate-llvm-cpu and compile-llvm-cpu: the llvm-cpu target's last two
 * passes.
 *
 * translate-llvm-cpu takes the inner module of an llvm-cpu
 * hal.executable.variant at the LLVM-translatable level
 * (compiler/codegen/llvm/to_llvm.h: no linalg, no scf, no math ops
 * without instructions) and the compile session. Unless the session
 * already holds a payload for the variant, it translates it to LLVM IR
 * (seed conventions, kernel ABI with the export metadata of its
 * hal.executable.export ops), in an LLVMContext of its own, and queues
 * the module in the session; with --compile-to=llvm-ir it prints the
 * module before optimization instead. A target the llvm_cpu back end does
 * not parse is an error. The IR is left unchanged.
 *
 * compile-llvm-cpu (a module pass, the codegen stage's last) compiles
 * every queued module with the llvm_cpu back end (verify, O3, object,
 * lld) on --jobs threads (kiln_llvm_cpu_compile_all), the variants that
 * share a name and a target into one shared object (te_group), and stores
 * the shared objects in the session in queue order, with each variant's
 * arch, the CPU features it requires and the LLVM version that made it;
 * the first failure in that order is the error. So the module does not
 * depend on the thread count. --timing adds a table of where each
 * variant's time went, slowest first. */
#define _POSIX_C_SOURCE 200809L
#include "llvm_cpu_passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/executable_abi.h"
#include "llvm_cpu.h"
#include "session.h"
#include "to_llvm.h"

/* "x86_64+avx2+fma" (runtime requirement syntax) -> "+avx2,+fma". */
static char *te_features(const char *req) {
  const char *p = strchr(req, '+');
  char *out = calloc(1, (p ? strlen(p) * 2 : 0) + 1);
  if (!out || !p) return out;
  size_t n = 0;
  while (p && *p) {
    const char *next = strchr(p + 1, '+');
    const size_t len = next ? (size_t)(next - p) : strlen(p);
    if (n) out[n++] = ',';
    memcpy(out + n, p, len);
    n += len;
    p = next;
  }
  out[n] = 0;
  return out;
}

static double te_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the queue, kept in the session between the two passes --------------- */

/* One llvm-cpu variant on its way through the back end. */
typedef struct te_unit {
  char *executable, *variant;
  char *spec;  /* the variant's target, e.g. "x86_64+avx2+fma" */
  char *query; /* member of a shared object: its query symbol */
  size_t leader; /* the first unit of its shared object */
  kiln_llvm_cpu_bytes_t shared; /* the leader's: the linked shared object */
  uint32_t exports;
  LLVMContextRef context;
  kiln_llvm_cpu_target_t target;
  double build_s; /* Kiln IR -> LLVM IR */
} te_unit;

typedef struct te_queue {
  te_unit *u;
  kiln_llvm_cpu_job_t *jobs; /* parallel to u */
  size_t n, cap;
} te_queue;

static void te_queue_free(void *p) {
  te_queue *q = p;
  if (!q) return;
  for (size_t i = 0; i < q->n; i++) {
    kiln_llvm_cpu_job_t *j = &q->jobs[i];
    kiln_llvm_cpu_bytes_free(&j->so);
    kiln_error_free(j->status);
    kiln_llvm_cpu_target_release(&q->u[i].target);
    kiln_llvm_cpu_bytes_free(&q->u[i].shared);
    free(q->u[i].spec);
    free(q->u[i].query);
    free(q->u[i].executable);
    free(q->u[i].variant);
    if (j->release && !j->module) continue; /* the back end disposed both */
    if (j->module) LLVMDisposeModule(j->module);
    LLVMContextDispose(q->u[i].context);
  }
  free(q->u);
  free(q->jobs);
  free(q);
}

/* The session's queue, created on first use. */
static te_queue *te_queue_of(kiln_session *s) {
  if (s->pending && s->pending_free != te_queue_free) return NULL; /* someone else's */
  if (!s->pending) {
    s->pending = calloc(1, sizeof(te_queue));
    if (s->pending) s->pending_free = te_queue_free;
  }
  return s->pending;
}

/* A new zeroed unit at the end of the queue, or NULL. */
static size_t te_push(te_queue *q) {
  if (q->n == q->cap) {
    const size_t cap = q->cap ? q->cap * 2 : 64;
    te_unit *u = realloc(q->u, cap * sizeof *u);
    if (u) q->u = u;
    kiln_llvm_cpu_job_t *j = realloc(q->jobs, cap * sizeof *j);
    if (j) q->jobs = j;
    if (!u || !j) return SIZE_MAX;
    q->cap = cap;
  }
  memset(&q->u[q->n], 0, sizeof q->u[q->n]);
  memset(&q->jobs[q->n], 0, sizeof q->jobs[q->n]);
  return q->n++;
}

/* ---- translate-llvm-cpu ---------------------------------------------------- */

/* Static-library output: the host program calls the entry points directly,
 * so each becomes a global (hidden) symbol with a name unique across
 * libraries (kiln_session_static_entry_symbol); the query function a
 * loader would call goes when the object is compiled (compile.c). */
static kiln_error *te_static_entries(LLVMModuleRef m, const char *lib,
                                     const kiln_to_llvm_export *exports, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, exports[i].name);
    if (!fn || LLVMIsDeclaration(fn))
      return kiln_error_new("static library: kernel @%s has no entry point", exports[i].name);
    char *sym = kiln_session_static_entry_symbol(lib, exports[i].name);
    if (!sym) return kiln_error_new("out of memory");
    LLVMSetValueName2(fn, sym, strlen(sym));
    free(sym);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
    LLVMSetVisibility(fn, LLVMHiddenVisibility);
  }
  return NULL;
}

kiln_error *kiln_llvm_cpu_translate_variant(kiln_op *inner, void *user) {
  (void)user;
  kiln_session_variant sv;
  kiln_error *err = kiln_session_variant_of(inner, "translate-llvm-cpu", &sv);
  if (err || sv.has_payload) return err; /* a substituted payload stays */
  kiln_session *s = sv.session;
  const char *ename = sv.executable_name, *vname = sv.variant_name, *target = sv.target;
  kiln_to_llvm_export *exports;
  uint32_t nexp;
  err = kiln_to_llvm_variant_exports(sv.variant, &exports, &nexp);
  if (err) return err;
  kiln_to_llvm_options opts;
  memset(&opts, 0, sizeof opts);
  opts.kernel_module = true;
  opts.exports = exports;
  opts.export_count = nexp;
  /* A static library binds the caller's own arrays (and memref descriptors
   * at any offset) directly, so bindings are only as aligned as their
   * elements: no 64-byte assumption. */
  if (s->options.static_name) opts.binding_alignment = 1;
  if (s->options.compile_to == KILN_STAGE_LLVM_IR) {
    LLVMContextRef lctx = LLVMContextCreate();
    LLVMModuleRef mod = NULL;
    err = kiln_to_llvm_translate(inner, &opts, lctx, ename, &mod);
    if (!err) err = kiln_to_llvm_print_variant(mod, ename, vname, target, s->options.output_path);
    if (mod) LLVMDisposeModule(mod);
    LLVMContextDispose(lctx);
    free(exports);
    return err;
  }
  te_queue *q = te_queue_of(s);
  const size_t k = q ? te_push(q) : SIZE_MAX;
  if (k == SIZE_MAX) {
    free(exports);
    return kiln_error_new("out of memory");
  }
  te_unit *u = &q->u[k];
  kiln_llvm_cpu_job_t *j = &q->jobs[k];
  u->exports = nexp;
  u->executable = strdup(ename);
  u->variant = strdup(vname);
  u->spec = strdup(target);
  const double t0 = te_now();
  u->context = LLVMContextCreate();
  if (!u->executable || !u->variant || !u->spec) err = kiln_error_new("out of memory");
  if (!err) err = kiln_to_llvm_translate(inner, &opts, u->context, ename, &j->module);
  if (!err && s->options.static_name) err = te_static_entries(j->module, s->options.static_name, exports, nexp);
  u->build_s = te_now() - t0;
  free(exports);
  if (err) return err;
  err = kiln_llvm_cpu_target_parse(target, &u->target);
  if (err) return err;
  j->release = true; /* j->target is set by te_compile_all: q->u may still move */
  j->object_only = s->options.static_name != NULL;
  return NULL;
}

/* ---- --timing ------------------------------------------------------------ */

static double te_total(const te_unit *u, const kiln_llvm_cpu_job_t *j) {
  return u->build_s + j->timing.prepare_s + j->timing.optimize_s + j->timing.codegen_s +
         j->timing.link_s;
}

typedef struct te_rank {
  double total;
  size_t index;
} te_rank;

static int te_slower(const void *a, const void *b) {
  const te_rank *x = a, *y = b;
  if (x->total != y->total) return x->total < y->total ? 1 : -1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static void te_row(FILE *o, double build, const kiln_llvm_cpu_timing_t *t, const char *name) {
  fprintf(o, "  %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %9llu %9llu %8zu  %s%s\n",
          build + t->prepare_s + t->optimize_s + t->codegen_s + t->link_s, build, t->prepare_s,
          t->optimize_s, t->codegen_s, t->link_s, (unsigned long long)t->instructions_in,
          (unsigned long long)t->instructions_out, t->object_bytes, name,
          t->unrolling_dropped ? " (O3 flattened a loop nest: redone without unrolling)" : "");
}

/* Per variant, slowest first (the ten slowest, then the sum over all):
 * seconds in each step, LLVM instructions into and out of O3, object
 * bytes. Steps of different variants overlap when --jobs > 1, so the sum
 * exceeds the pass's wall time. */
static void te_report(FILE *o, const te_queue *q, unsigned jobs, double wall) {
  te_rank *order = malloc(q->n * sizeof *order);
  if (!order) return;
  kiln_llvm_cpu_timing_t sum;
  memset(&sum, 0, sizeof sum);
  double build = 0;
  for (size_t i = 0; i < q->n; i++) {
    const kiln_llvm_cpu_timing_t *t = &q->jobs[i].timing;
    order[i] = (te_rank){te_total(&q->u[i], &q->jobs[i]), i};
    build += q->u[i].build_s;
    sum.prepare_s += t->prepare_s;
    sum.optimize_s += t->optimize_s;
    sum.codegen_s += t->codegen_s;
    sum.link_s += t->link_s;
    sum.instructions_in += t->instructions_in;
    sum.instructions_out += t->instructions_out;
    sum.object_bytes += t->object_bytes;
    sum.unrolling_dropped |= t->unrolling_dropped;
  }
  qsort(order, q->n, sizeof *order, te_slower);
  fputs("===-------------------------------------------------------------------------===\n", o);
  fprintf(o, "      ... compile-llvm-cpu: %zu llvm-cpu variants, %u threads, %.4f s wall ...\n",
          q->n, jobs < q->n ? jobs : (unsigned)q->n, wall);
  fputs("===-------------------------------------------------------------------------===\n", o);
  fputs("  (seconds)                                                 (LLVM instructions)\n"
        "     total ir-build  prepare       O3  codegen      lld   into-O3  out-of-O3   object  "
        "executable\n", o);
  for (size_t k = 0; k < q->n && k < 10; k++) {
    char name[300];
    const te_unit *u = &q->u[order[k].index];
    snprintf(name, sizeof name, "@%s::@%s (%u export%s)", u->executable, u->variant,
             u->exports, u->exports == 1 ? "" : "s");
    te_row(o, u->build_s, &q->jobs[order[k].index].timing, name);
  }
  te_row(o, build, &sum, "(all variants)");
  free(order);
}

/* ---- compile-llvm-cpu ----------------------------------------------------- */

/* One shared object per variant name and target: the units that share
 * both (every executable's "x86_64" variant, say) compile to objects on
 * the --jobs threads as before, each with its own query symbol
 * (kiln_executable_query.EXECUTABLE; the runtime looks that up first),
 * and are linked together in one lld run. The runtime then maps and
 * protects one image instead of one per executable (a page or more and
 * an mprotect each: most of kiln_module_prepare's time), and the module
 * holds the shared object once (the builder stores byte-identical
 * payloads once). A unit alone keeps the plain kiln_executable_query. */
static kiln_error *te_group(te_queue *q) {
  for (size_t i = 0; i < q->n; i++) {
    te_unit *u = &q->u[i];
    u->leader = i;
    if (strlen(u->executable) > KILN_EXECUTABLE_SHARED_NAME_MAX) continue; /* alone */
    for (size_t k = 0; k < i; k++)
      if (q->u[k].leader == k && strlen(q->u[k].executable) <= KILN_EXECUTABLE_SHARED_NAME_MAX &&
          !strcmp(q->u[k].variant, u->variant) && !strcmp(q->u[k].spec, u->spec)) {
        u->leader = q->u[k].leader;
        break;
      }
  }
  for (size_t i = 0; i < q->n; i++) {
    te_unit *u = &q->u[i];
    bool shared = u->leader != i;
    for (size_t k = i + 1; k < q->n && !shared; k++) shared = q->u[k].leader == i;
    if (!shared) continue;
    const size_t len = strlen(KILN_EXECUTABLE_QUERY_SYMBOL) + 1 + strlen(u->executable) + 1;
    u->query = malloc(len);
    if (!u->query) return kiln_error_new("out of memory");
    snprintf(u->query, len, "%s.%s", KILN_EXECUTABLE_QUERY_SYMBOL, u->executable);
    q->jobs[i].object_only = true;
    q->jobs[i].query_symbol = u->query;
  }
  return NULL;
}

/* Links the objects of the units whose leader is `leader` (all compiled)
 * into q->u[leader].shared. */
static kiln_error *te_link_shared(te_queue *q, size_t leader, bool timed) {
  size_t n = 0;
  kiln_llvm_cpu_bytes_t *objects = malloc(q->n * sizeof *objects);
  if (!objects) return kiln_error_new("out of memory");
  for (size_t k = leader; k < q->n; k++)
    if (q->u[k].query && q->u[k].leader == leader) objects[n++] = q->jobs[k].so;
  const double t0 = timed ? te_now() : 0;
  kiln_error *err = kiln_llvm_cpu_link_objects(&q->u[leader].target, NULL, objects, n,
                                               &q->u[leader].shared);
  if (timed) q->jobs[leader].timing.link_s += te_now() - t0;
  free(objects);
  return err;
}

static kiln_error *te_compile_all(kiln_op *module, void *user) {
  (void)user;
  kiln_session *s = kiln_session_of(kiln_op_context(module));
  te_queue *q = s ? te_queue_of(s) : NULL;
  if (!q || !q->n) return NULL;
  const double t0 = te_now();
  const unsigned jobs = s->options.jobs ? s->options.jobs : kiln_llvm_cpu_default_threads();
  /* Each job reads its unit's target. Pointed to only now: te_push
   * reallocates the units as the queue grows past its capacity (64, 128,
   * ...), so a pointer taken while queueing would dangle. */
  for (size_t i = 0; i < q->n; i++) q->jobs[i].target = &q->u[i].target;
  kiln_error *err = s->options.static_name ? NULL : te_group(q);
  if (!err) kiln_llvm_cpu_compile_all(q->jobs, q->n, jobs, s->options.timing);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  /* The first failure in queue order, whatever shares an object with it. */
  for (size_t i = 0; i < q->n && !err; i++) {
    const kiln_llvm_cpu_job_t *j = &q->jobs[i];
    const te_unit *u = &q->u[i];
    if (j->status)
      err = kiln_error_new("executable @%s variant @%s: %s", u->executable, u->variant,
                           kiln_error_message(j->status));
  }
  for (size_t i = 0; i < q->n && !err; i++) {
    const kiln_llvm_cpu_job_t *j = &q->jobs[i];
    te_unit *u = &q->u[i];
    if (u->query && u->leader == i) err = te_link_shared(q, i, s->options.timing);
    if (err) {
      kiln_error *link = err;
      err = kiln_error_new("executable @%s variant @%s: %s", u->executable, u->variant,
                           kiln_error_message(link));
      kiln_error_free(link);
      break;
    }
    const kiln_llvm_cpu_bytes_t *so = u->query ? &q->u[u->leader].shared : &j->so;
    char *features = te_features(u->target.requirements ? u->target.requirements : "");
    const kiln_payload_format_t format =
        j->object_only && !u->query ? KILN_PAYLOAD_OBJECT : KILN_PAYLOAD_ELF;
    err = features ? kiln_session_set_payload(s, u->executable, u->variant, format,
                                              u->target.arch_name, features, so->data,
                                              so->size)
                   : kiln_error_new("out of memory");
    free(features);
    if (!err) kiln_session_note_llvm(s, u->executable, u->variant, major, minor, patch);
  }
  if (!err && s->options.timing) te_report(s->options.dump ? s->options.dump : stderr, q, jobs,
                                           te_now() - t0);
  te_queue_free(q);
  s->pending = NULL;
  s->pending_free = NULL;
  return err;
}

void kiln_llvm_cpu_register_passes(void) {
  static const kiln_pass_info link = {
      "link-executables",
      "small llvm-cpu executables merge in groups into the first of each (one shared object "
      "per group); dispatches name it and the export's new ordinal",
      kiln_llvm_cpu_link_executables, NULL, KILN_PASS_MODULE};
  kiln_pass_register(&link);
  static const kiln_pass_info translate = {
      "translate-llvm-cpu",
      "llvm-cpu variant -> LLVM IR, queued for compile-llvm-cpu (or printed with "
      "--compile-to=llvm-ir)",
      kiln_llvm_cpu_translate_variant, NULL, KILN_PASS_KERNELS};
  kiln_pass_register(&translate);
  static const kiln_pass_info compile = {
      "compile-llvm-cpu",
      "every queued LLVM module -> O3 -> object -> lld shared object on --jobs threads (one per "
      "variant name and target), stored in the compile session in module order",
      te_compile_all, NULL, KILN_PASS_MODULE};
  kiln_pass_register(&compile);
}
