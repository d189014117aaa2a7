/* The local devices: `local-sync` runs a dispatch's workgroups on the
 * calling thread; `local-task` splits them over the task pool
 * (src/task). Buffers are host memory from the instance allocator, so
 * kernels get plain pointers. Executables are ELF shared objects: the
 * device picks the best variant for this CPU (architecture, then the most
 * features it can use; KILN_CPU_FEATURES narrows them), maps all of a
 * module's kernels into one group of the ELF loader (src/elf: one mapping,
 * one mprotect per image and one more; executables whose variants share a
 * segment share its image), and cross-checks each library's
 * export table against the module before any kernel runs. Asked for
 * (worker_count >= 2) where more than one core is online, `local-sync`
 * keeps one helper thread that faults fresh per-call memory in beside the
 * caller (host_parallel) and runs no workgroup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_loader.h"
#include "cpu_features.h"
#include "runtime_internal.h"
#ifdef KILN_WITH_LOCAL_TASK
#include "task_pool.h"
#endif

typedef struct local_device {
  kiln_device_t base;
  uint32_t concurrency;
  kiln_cpu_info_t host;
#ifdef KILN_WITH_LOCAL_TASK
  /* local-task: the threads that run workgroups. local-sync: its helper,
   * a pool of one worker that only host_parallel uses. NULL: the caller
   * alone. */
  kiln_task_pool_t *pool;
  bool pool_runs_workgroups;
#endif
} local_device_t;

typedef struct cpu_executable {
  kiln_elf_image_t image; /* in the module's group */
  const krt_executable_t *exe;
  const krt_variant_t *variant; /* the one mapped */
  kiln_entry_fn entries[];
} cpu_executable_t;

#define A (device->allocator)

static void local_destroy(kiln_device_t *device) {
  local_device_t *d = (local_device_t *)device;
#ifdef KILN_WITH_LOCAL_TASK
  kiln_task_pool_destroy(d->pool);
#endif
  krt_free(A, d);
}

static kiln_status_t local_buffer_alloc(kiln_device_t *device,
                                        kiln_buffer_t *buffer, bool zero) {
  if (buffer->length > SIZE_MAX - 64)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "buffer of %llu bytes is too large",
                      (unsigned long long)buffer->length);
  buffer->host = krt_pool_alloc(device, (size_t)buffer->length,
                                zero ? KRT_POOL_ZERO : KRT_POOL_WRITTEN);
  if (!buffer->host)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory allocating a %llu-byte buffer",
                      (unsigned long long)buffer->length);
  return NULL;
}

static void local_buffer_free(kiln_device_t *device, kiln_buffer_t *buffer) {
  krt_pool_free(device, buffer->host);
}

static kiln_status_t local_buffer_write(kiln_device_t *device,
                                        kiln_buffer_t *buffer, uint64_t offset,
                                        const void *src, uint64_t length) {
  if (buffer->owner)
    return krt_status(A, KILN_STATUS_FAILED_PRECONDITION,
                      "buffer aliases read-only module data");
  memcpy(buffer->host + offset, src, (size_t)length);
  return NULL;
}

static kiln_status_t local_buffer_read(kiln_device_t *device,
                                       kiln_buffer_t *buffer, uint64_t offset,
                                       void *dst, uint64_t length) {
  memcpy(dst, buffer->host + offset, (size_t)length);
  return NULL;
}

/* The requirement string kiln_cpu_parse takes ("x86_64+avx2+fma") from
 * a variant's arch and LLVM feature list ("+avx2,+fma"; '-' entries only
 * disable and require nothing). False when it does not fit. */
static bool variant_spec(const krt_variant_t *v, char *buf, size_t size) {
  size_t n = strlen(v->arch);
  if (n + 1 > size) return false;
  memcpy(buf, v->arch, n + 1);
  for (const char *p = v->cpu_features; *p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 1 && p[0] == '+') {
      if (n + len + 1 > size) return false;
      memcpy(buf + n, p, len);
      n += len;
      buf[n] = 0;
    }
    p += len + (end ? 1 : 0);
  }
  return true;
}

/* The last requirement string pick_variant parsed and its score (-1:
 * this CPU cannot run it): a module's kernels mostly share one, and
 * parsing it (20-odd features) was a sixth of prepare. */
typedef struct spec_memo {
  char spec[256];
  int score;
} spec_memo_t;

/* Index of the variant this CPU runs best (the one using the most
 * features), or -1. */
static int pick_variant(const local_device_t *d, const krt_executable_t *exe,
                        spec_memo_t *memo) {
  int best = -1, best_score = -1;
  for (uint32_t i = 0; i < exe->variant_count; ++i) {
    const krt_variant_t *v = &exe->variants[i];
    char spec[256];
    kiln_cpu_info_t req;
    if (v->format != kiln_fb_PayloadFormat_ELF || !variant_spec(v, spec, sizeof spec))
      continue;
    /* One parse, no messages: this runs for every executable at prepare
     * (kiln_cpu_can_run would parse again and describe the host). */
    if (strcmp(spec, memo->spec) != 0) {
      memcpy(memo->spec, spec, sizeof spec);
      memo->score = kiln_cpu_parse(spec, &req, NULL, 0) != KILN_CPU_OK ||
                            req.arch != d->host.arch || (req.features & ~d->host.features)
                        ? -1
                        : __builtin_popcountll(req.features);
    }
    const int score = memo->score;
    if (score > best_score) {
      best = (int)i;
      best_score = score;
    }
  }
  return best;
}

static bool in_image(const kiln_elf_image_t *img, const void *p, size_t n) {
  const uintptr_t a = (uintptr_t)p, lo = (uintptr_t)img->map;
  return a >= lo && a - lo <= img->map_size && n <= img->map_size - (a - lo);
}

/* A NUL-terminated string that lies entirely inside the image. */
static bool image_string(const kiln_elf_image_t *img, const char *s) {
  if (!in_image(img, s, 1)) return false;
  const size_t room = img->map_size - (size_t)((uintptr_t)s - (uintptr_t)img->map);
  return memchr(s, 0, room) != NULL;
}

/* Cross-checks the library's export table against the module's. */
static kiln_status_t check_table(kiln_device_t *device, cpu_executable_t *ce,
                                 const kiln_executable_table_t *t,
                                 const char *vname) {
  const krt_executable_t *exe = ce->exe;
  const kiln_elf_image_t *img = &ce->image;
  if (!t)
    return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                      "variant '%s' refuses executable ABI version %u", vname,
                      KILN_EXECUTABLE_ABI_VERSION);
  if (!in_image(img, t, sizeof *t))
    return krt_status(A, KILN_STATUS_DATA_LOSS,
                      "variant '%s': %s outside the image", vname,
                      "export table");
  if (t->abi_version != KILN_EXECUTABLE_ABI_VERSION)
    return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                      "variant '%s' speaks executable ABI %u, runtime %u",
                      vname, t->abi_version, KILN_EXECUTABLE_ABI_VERSION);
  if (t->export_count != exe->export_count)
    return krt_status(A, KILN_STATUS_DATA_LOSS,
                      "variant '%s' exports %u entry points, module lists %u",
                      vname, t->export_count, exe->export_count);
  if (t->export_count &&
      !in_image(img, t->exports, (size_t)t->export_count * sizeof *t->exports))
    return krt_status(A, KILN_STATUS_DATA_LOSS,
                      "variant '%s': %s outside the image", vname, "exports");
  for (uint32_t i = 0; i < t->export_count; ++i) {
    const kiln_export_info_t *x = &t->exports[i];
    const krt_export_t *want = &exe->exports[i];
    if (!image_string(img, x->name) || strcmp(x->name, want->name) != 0)
      return krt_status(A, KILN_STATUS_DATA_LOSS,
                        "variant '%s': export %u is not '%s'", vname, i,
                        want->name);
    if (!in_image(img, (const void *)(uintptr_t)x->entry, 1))
      return krt_status(A, KILN_STATUS_DATA_LOSS,
                        "variant '%s': entry of '%s' outside the image", vname,
                        want->name);
    if (x->binding_count != want->binding_count ||
        x->push_constant_count != want->push_constant_count ||
        memcmp(x->workgroup_size, want->workgroup_size,
               sizeof x->workgroup_size) != 0)
      return krt_status(A, KILN_STATUS_DATA_LOSS,
                        "variant '%s': export '%s' metadata (%u bindings, %u "
                        "push constants, workgroup %ux%ux%u) disagrees with "
                        "the module (%u, %u, %ux%ux%u)", vname, want->name,
                        x->binding_count, x->push_constant_count,
                        x->workgroup_size[0], x->workgroup_size[1],
                        x->workgroup_size[2], want->binding_count,
                        want->push_constant_count, want->workgroup_size[0],
                        want->workgroup_size[1], want->workgroup_size[2]);
    ce->entries[i] = x->entry;
  }
  return NULL;
}

/* Executable `index` of module into the group: picks its variant (the
 * measuring pass), reads its bytes and adds them, which measures while the
 * group is unreserved and maps (checked) once it is. A variant whose
 * segment an earlier executable's variant added (kiln-compile links a
 * target's kernels into one shared object) shares that image. */
static kiln_status_t group_pass(kiln_device_t *device, kiln_module_t *module,
                                uint32_t index, kiln_elf_group_t *group,
                                void **handles, spec_memo_t *memo) {
  const krt_executable_t *exe = &module->executables[index];
  cpu_executable_t *ce = handles[index];
  if (!ce) {
    const int vi = pick_variant((const local_device_t *)device, exe, memo);
    if (vi < 0) {
      char held[512];
#ifndef KILN_NO_MESSAGES
      krt_describe_variants(exe, held, sizeof held);
#endif
      return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                        "executable '%s' has no variant device %s can run: the "
                        "device offers %s; the module holds %s",
                        exe->name, device->name, device->target, held);
    }
    ce = krt_alloc(A, sizeof *ce + exe->export_count * sizeof(kiln_entry_fn));
    if (!ce) return krt_oom(A);
    handles[index] = ce;
    ce->exe = exe;
    ce->variant = &exe->variants[vi];
  }
  const krt_variant_t *v = ce->variant;
  for (uint32_t k = 0; k < index; ++k) {
    const cpu_executable_t *o = handles[k];
    if (o->variant->segment == v->segment) {
      ce->image = o->image;
      return NULL;
    }
  }
  const uint8_t *bytes;
  uint64_t size;
  void *owned;
  /* Measuring parses bounds-checked headers only; the hash is checked
   * before mapping. (Compressed kernels, which kiln-compile no longer
   * writes, decompress in both passes.) */
  kiln_status_t s = krt_segment_bytes(module, v->segment, group->map != NULL,
                                      &bytes, &size, &owned);
  if (s) return krt_status_prefix(s, "executable '%s'", exe->name);
  char msg[256];
  const int rc = kiln_elf_group_add(group, bytes, (size_t)size, &ce->image,
                                    msg, sizeof msg);
  krt_free(A, owned);
  if (rc != KILN_ELF_OK)
    return krt_status(A,
                      rc == KILN_ELF_ERR_SYSTEM ? KILN_STATUS_UNAVAILABLE
                                                : KILN_STATUS_DATA_LOSS,
                      "executable '%s' variant '%s': %s", exe->name, v->name,
                      msg);
  return NULL;
}

/* Functions that call into mapped kernels: clang's -fsanitize=function
 * (in the KILN_SANITIZE build's UBSan) reads the 8 bytes before a callee
 * for a type signature, which generated code never carries, and a kernel
 * at the first byte of its mapping has an unmapped page there (a SEGV
 * before the call, depending only on code placement). */
#if defined(__clang__)
#define LOCAL_CALLS_KERNELS __attribute__((no_sanitize("function")))
#else
#define LOCAL_CALLS_KERNELS
#endif

/* A mapped, sealed kernel's export table against the module's. */
LOCAL_CALLS_KERNELS static kiln_status_t check_pass(kiln_device_t *device,
                                                    cpu_executable_t *ce) {
  const char *vname = ce->variant->name;
  /* An image shared by several executables names each one's query
   * kiln_executable_query.EXECUTABLE; an image of its own, plainly. */
  char name[sizeof KILN_EXECUTABLE_QUERY_SYMBOL + KILN_EXECUTABLE_SHARED_NAME_MAX + 1];
  const int n = snprintf(name, sizeof name, "%s.%s",
                         KILN_EXECUTABLE_QUERY_SYMBOL, ce->exe->name);
  void *sym = n > 0 && (size_t)n < sizeof name ? kiln_elf_lookup(&ce->image, name)
                                               : NULL;
  if (!sym) sym = kiln_elf_lookup(&ce->image, KILN_EXECUTABLE_QUERY_SYMBOL);
  kiln_executable_query_fn query = (kiln_executable_query_fn)(uintptr_t)sym;
  kiln_status_t s =
      query ? check_table(device, ce, query(KILN_EXECUTABLE_ABI_VERSION), vname)
            : krt_status(A, KILN_STATUS_DATA_LOSS,
                         "variant '%s' does not export %s", vname,
                         KILN_EXECUTABLE_QUERY_SYMBOL);
  return krt_status_prefix(s, "executable '%s'", ce->exe->name);
}

/* All of a module's kernels in one ELF group: a pass measuring them, one
 * reservation, a pass mapping them, the seal (their protections), a pass
 * checking their export tables. */
static kiln_status_t local_executables_load(kiln_device_t *device,
                                            kiln_module_t *module,
                                            void **handles, void **loaded) {
  kiln_elf_group_t *group = krt_alloc(A, sizeof *group);
  *loaded = group;
  if (!group)
    return krt_oom(A);
  kiln_status_t s = NULL;
  /* Set field by field: an aggregate initializer would keep a 260-byte
   * image of it in read-only data (runtime.size_budget). */
  spec_memo_t memo;
  memo.spec[0] = '\0';
  memo.score = -1;
  char msg[256];
  for (int pass = 0; pass < 3 && !s; ++pass) {
    if (pass && (pass == 1 ? kiln_elf_group_reserve(group, msg, sizeof msg)
                           : kiln_elf_group_seal(group, msg, sizeof msg)))
      return krt_status(A, KILN_STATUS_UNAVAILABLE, "%s", msg);
    for (uint32_t i = 0; i < module->executable_count && !s; ++i)
      s = pass < 2 ? group_pass(device, module, i, group, handles, &memo)
                   : check_pass(device, handles[i]);
  }
  return s;
}

static void local_executables_unload(kiln_device_t *device,
                                     kiln_module_t *module, void **handles,
                                     void *loaded) {
  for (uint32_t i = 0; i < module->executable_count; ++i)
    krt_free(A, handles[i]);
  kiln_elf_group_release(loaded);
  krt_free(A, loaded);
}

typedef struct run_ctx {
  kiln_entry_fn entry;
  const kiln_dispatch_state_t *state;
  atomic_uint failed_at[4]; /* first failure: x, y, z, status (+1 set) */
} run_ctx_t;

LOCAL_CALLS_KERNELS static int run_workgroup(void *opaque, uint32_t x,
                                             uint32_t y, uint32_t z,
                                             uint32_t worker) {
  run_ctx_t *ctx = opaque;
  kiln_workgroup_state_t wg;
  memset(&wg, 0, sizeof wg);
  wg.workgroup_id[0] = x;
  wg.workgroup_id[1] = y;
  wg.workgroup_id[2] = z;
  wg.worker_id = worker;
  const int r = ctx->entry(ctx->state, &wg);
  if (r != 0) {
    unsigned expected = 0;
    if (atomic_compare_exchange_strong(&ctx->failed_at[3], &expected,
                                       (unsigned)r | 0x80000000u)) {
      atomic_store(&ctx->failed_at[0], x);
      atomic_store(&ctx->failed_at[1], y);
      atomic_store(&ctx->failed_at[2], z);
    }
  }
  return r;
}

static kiln_status_t local_dispatch(kiln_device_t *device, void *handle,
                                    uint32_t export_ordinal,
                                    const krt_dispatch_t *d) {
  local_device_t *ld = (local_device_t *)device;
  cpu_executable_t *ce = handle;
  const krt_export_t *ex = &ce->exe->exports[export_ordinal];
  if (!d->workgroup_count[0] || !d->workgroup_count[1] ||
      !d->workgroup_count[2])
    return NULL;
  void *ptrs[KRT_MAX_BINDINGS];
  uint64_t lens[KRT_MAX_BINDINGS];
  for (uint32_t i = 0; i < d->binding_count; ++i) {
    ptrs[i] = d->bindings[i].buffer->host + d->bindings[i].offset;
    lens[i] = d->bindings[i].length;
  }
  kiln_dispatch_state_t st;
  memset(&st, 0, sizeof st);
  memcpy(st.workgroup_size, ex->workgroup_size, sizeof st.workgroup_size);
  memcpy(st.workgroup_count, d->workgroup_count, sizeof st.workgroup_count);
  st.max_concurrency = ld->concurrency;
  st.push_constant_count = d->push_constant_count;
  st.push_constants = d->push_constants;
  st.binding_count = d->binding_count;
  st.binding_ptrs = ptrs;
  st.binding_lengths = lens;
  run_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.entry = ce->entries[export_ordinal];
  ctx.state = &st;
  int rc = 0;
#ifdef KILN_WITH_LOCAL_TASK
  if (ld->pool_runs_workgroups) {
    rc = kiln_task_pool_dispatch(ld->pool, d->workgroup_count, run_workgroup,
                                 &ctx);
    if (rc == KILN_TASK_ERR_GRID_TOO_LARGE)
      return krt_status(A, KILN_STATUS_OUT_OF_RANGE,
                        "kernel '%s': grid %ux%ux%u is too large", ex->name,
                        d->workgroup_count[0], d->workgroup_count[1],
                        d->workgroup_count[2]);
  } else
#endif
  {
    for (uint32_t z = 0; z < d->workgroup_count[2] && !rc; ++z)
      for (uint32_t y = 0; y < d->workgroup_count[1] && !rc; ++y)
        for (uint32_t x = 0; x < d->workgroup_count[0] && !rc; ++x)
          rc = run_workgroup(&ctx, x, y, z, 0);
  }
  if (rc == 0) return NULL;
  return krt_status(A, KILN_STATUS_ABORTED,
                    "kernel '%s' returned %d at workgroup (%u, %u, %u)",
                    ex->name, (int)(atomic_load(&ctx.failed_at[3]) & 0x7fffffffu),
                    atomic_load(&ctx.failed_at[0]),
                    atomic_load(&ctx.failed_at[1]),
                    atomic_load(&ctx.failed_at[2]));
}

static kiln_status_t local_wait(kiln_device_t *device) {
  return NULL; /* dispatches complete before execute returns */
}

#ifdef KILN_WITH_TRANSFERS
static kiln_status_t local_copy(kiln_device_t *device, kiln_buffer_t *src,
                                uint64_t src_offset, kiln_buffer_t *dst,
                                uint64_t dst_offset, uint64_t length) {
  if (length) memmove(dst->host + dst_offset, src->host + src_offset, length);
  return NULL;
}

static kiln_status_t local_fill(kiln_device_t *device, kiln_buffer_t *dst,
                                uint64_t offset, uint64_t length,
                                uint32_t pattern) {
  for (uint64_t i = 0; i < length; i += 4)
    memcpy(dst->host + offset + i, &pattern, 4);
  return NULL;
}
#endif

#ifdef KILN_WITH_LOCAL_TASK
typedef struct host_job {
  void (*fn)(void *ctx, uint32_t i);
  void *ctx;
} host_job_t;

static int host_part(void *ctx, uint32_t x, uint32_t y, uint32_t z, uint32_t worker) {
  (void)y, (void)z, (void)worker;
  const host_job_t *j = ctx;
  j->fn(j->ctx, x);
  return 0;
}

/* kiln_device_t.host_parallel: the pool's threads (the caller among them). */
static void local_host_parallel(kiln_device_t *device, uint32_t count,
                                void (*fn)(void *ctx, uint32_t i), void *ctx) {
  host_job_t job = {fn, ctx};
  const uint32_t grid[3] = {count, 1, 1};
  /* It fails only for grids over 2^64; fn may run twice, never not. */
  if (kiln_task_pool_dispatch(((local_device_t *)device)->pool, grid, host_part, &job))
    for (uint32_t i = 0; i < count; ++i) fn(ctx, i);
}
#endif

static const krt_device_vtable_t local_vtable = {
    local_destroy,         local_buffer_alloc,    local_buffer_free,
    local_buffer_write,    local_buffer_read,     local_executables_load,
    local_executables_unload, local_dispatch,     local_wait,
#ifdef KILN_WITH_TRANSFERS
    local_copy,            local_fill,
#else
    NULL,                  NULL,
#endif
};

kiln_status_t krt_local_device_create(kiln_instance_t *instance,
                                      bool use_pool, uint32_t workers,
                                      kiln_device_t **out) {
  *out = NULL;
  const kiln_allocator_t *a = &instance->allocator;
  local_device_t *d = krt_alloc(a, sizeof *d);
  if (!d) return krt_oom(a);
  atomic_init(&d->base.refs, 1);
  d->base.vt = &local_vtable;
  d->base.instance = instance;
  d->base.allocator = a;
  d->base.host_memory = true;
  d->base.name = use_pool ? "local-task" : "local-sync";
  d->concurrency = 1;
  kiln_cpu_host(&d->host);
  /* KILN_CPU_FEATURES narrows what variants may use, so a machine with
   * AVX-512 can run (and test) the variants an older CPU would pick. */
  const char *mask = getenv("KILN_CPU_FEATURES");
  if (mask && *mask) {
    char msg[256];
    if (kiln_cpu_mask(&d->host, mask, msg, sizeof msg) != KILN_CPU_OK) {
      krt_free(a, d);
      return krt_status(a, KILN_STATUS_INVALID_ARGUMENT, "KILN_CPU_FEATURES: %s", msg);
    }
  }
  kiln_cpu_describe(&d->host, d->base.target, sizeof d->base.target);
#ifdef KILN_WITH_LOCAL_TASK
  if (use_pool) {
    char msg[256];
    /* The caller runs workgroups too, so a pool of N threads has N - 1
     * workers; the default N is the number of online cores. */
    if (workers == 0) {
      const long cores = sysconf(_SC_NPROCESSORS_ONLN);
      workers = cores > 0 ? (uint32_t)cores : 1;
    }
    if (kiln_task_pool_create(workers - 1, &d->pool, msg, sizeof msg) !=
        KILN_TASK_OK) {
      krt_free(a, d);
      return krt_status(a, KILN_STATUS_UNAVAILABLE,
                        "local-task: cannot start workers: %s", msg);
    }
    d->pool_runs_workgroups = true;
    d->concurrency = kiln_task_pool_concurrency(d->pool);
    if (d->concurrency > 1) d->base.host_parallel = local_host_parallel;
  } else if (workers >= 2 && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    /* A first call faults its fresh arena in (krt_pool_alloc), in huge
     * pages or 4 KiB ones by what each is measured to cost in this
     * process (allocator.c); with a helper on another core, what goes in
     * 4 KiB pages takes two threads (session 18: MobileNetV2's 6.1 MB
     * arena 1.0-1.3 ms, where a huge-page trial took 0.3-0.6 ms warm and
     * 4.9-6.2 ms cold). Opt-in (worker_count >= 2): by default local-sync
     * starts no thread, which is what a caller choosing it expects, and
     * back to back, with warm huge pages, the caller alone is faster. */
    char msg[256];
    if (kiln_task_pool_create_host(1, &d->pool, msg, sizeof msg) == KILN_TASK_OK)
      d->base.host_parallel = local_host_parallel;
  }
#else
  (void)workers;
#endif
  kiln_instance_retain(instance);
  *out = &d->base;
  return NULL;
}
