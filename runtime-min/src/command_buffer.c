/* Command buffers: the HAL natives record dispatches and barriers into
 * growable arrays (allocation happens while recording, never while the
 * device runs them), validating every index, count and byte range against
 * the module's export metadata so a device sees only well-formed work.
 * Execution replays the list on the call's device in order. */
#include <string.h>
#include <time.h>

#include "hal_internal.h"

enum { CMD_DISPATCH, CMD_BARRIER, CMD_COPY, CMD_FILL };

typedef struct krt_cmd {
  uint32_t kind;
  uint32_t pattern; /* fill */
  uint32_t executable, export_ordinal;
  uint32_t count[3];
  uint32_t pc_first, pc_count;
  uint32_t bind_first, bind_count;
#ifdef KILN_WITH_PROFILE
  const uint8_t *site; /* the recording call's bytecode (observers) */
#endif
} krt_cmd_t;

struct krt_command_buffer {
  krt_ref_t ref;
  kiln_device_t *device; /* memory from its pool; lives within one call */
  krt_cmd_t *cmds;
  size_t cmd_count, cmd_cap;
  uint32_t *pcs;
  size_t pc_count, pc_cap;
  krt_binding_t *binds;
  size_t bind_count, bind_cap;
};

/* Grows *p (elements of elem bytes) to hold need; false when out of memory. */
static bool grow(kiln_device_t *d, void **p, size_t *cap, size_t used,
                 size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap * 2 : 16;
  while (n < need) n *= 2;
  void *q = krt_pool_alloc(d, n * elem, KRT_POOL_RAW);
  if (!q) return false;
  if (*p) memcpy(q, *p, used * elem);
  krt_pool_free(d, *p);
  *p = q;
  *cap = n;
  return true;
}

kiln_status_t krt_command_buffer_create(krt_call_t *call,
                                        krt_command_buffer_t **out) {
  krt_command_buffer_t *cb = krt_pool_alloc(call->device, sizeof *cb, KRT_POOL_ZERO);
  if (!cb)
    return krt_oom(call->allocator);
  atomic_init(&cb->ref.count, 1);
  cb->ref.type = KRT_REF_COMMAND_BUFFER;
  cb->device = call->device;
  *out = cb;
  return NULL;
}

void krt_command_buffer_destroy(krt_command_buffer_t *cb) {
  kiln_device_t *d = cb->device;
  for (size_t i = 0; i < cb->bind_count; ++i)
    kiln_buffer_release(cb->binds[i].buffer);
  krt_pool_free(d, cb->cmds);
  krt_pool_free(d, cb->pcs);
  krt_pool_free(d, cb->binds);
  krt_pool_free(d, cb);
}

kiln_status_t krt_command_buffer_dispatch(
    krt_call_t *call, krt_command_buffer_t *cb, uint32_t executable,
    uint32_t export_ordinal, const int32_t count[3], uint32_t pc_count,
    const krt_value_t *pcs, uint32_t bind_count, const krt_value_t *binds) {
  const kiln_allocator_t *a = call->allocator;
  const kiln_module_t *m = call->module;
  if (executable >= m->executable_count)
    return krt_status(a, KILN_STATUS_OUT_OF_RANGE,
                      "%s %u out of range (module has %u)", "executable",
                      executable, m->executable_count);
  const krt_executable_t *exe = &m->executables[executable];
  if (export_ordinal >= exe->export_count)
    return krt_status(a, KILN_STATUS_OUT_OF_RANGE,
                      "export %u out of range (executable '%s' has %u)",
                      export_ordinal, exe->name, exe->export_count);
  const krt_export_t *ex = &exe->exports[export_ordinal];
  for (int i = 0; i < 3; ++i)
    if (count[i] < 0)
      return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                        "'%s': negative workgroup count %d", ex->name,
                        count[i]);
  /* Workgroups spend the call's step budget like branches do. */
  uint64_t groups;
  if (__builtin_mul_overflow((uint64_t)count[0], (uint64_t)count[1], &groups) ||
      __builtin_mul_overflow(groups, (uint64_t)count[2], &groups) ||
      groups >= call->steps_left)
    return krt_status(a, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "'%s': a %dx%dx%d grid exceeds the call's step budget "
                      "(max_steps)", ex->name, count[0], count[1], count[2]);
  call->steps_left -= groups;
  if (pc_count != ex->push_constant_count)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "'%s' takes %u push constants, got %u", ex->name,
                      ex->push_constant_count, pc_count);
  if (bind_count != ex->binding_count)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "'%s' takes %u bindings, got %u", ex->name,
                      ex->binding_count, bind_count);
  for (uint32_t i = 0; i < bind_count; ++i) {
    const krt_ref_t *r = binds[3 * i].ref;
    if (!r || r->type != KRT_REF_BUFFER)
      return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                        "'%s' binding %u: expected buffer, got %s", ex->name,
                        i, krt_ref_type_name(r));
    const kiln_buffer_t *b = (const kiln_buffer_t *)r;
    const int64_t off = binds[3 * i + 1].i64, len = binds[3 * i + 2].i64;
    if (b->device != call->device)
      return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                        "'%s' binding %u: buffer belongs to device %s",
                        ex->name, i, b->device->name);
    if (off < 0 || len < 0 || (uint64_t)off > b->length ||
        (uint64_t)len > b->length - (uint64_t)off)
      return krt_status(a, KILN_STATUS_OUT_OF_RANGE,
                        "'%s' binding %u: range %lld+%lld outside the "
                        "%llu-byte buffer",
                        ex->name, i, (long long)off, (long long)len,
                        (unsigned long long)b->length);
    if (b->owner && !(ex->readonly_mask & (1u << i)))
      return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                        "'%s' binding %u writes to read-only module data",
                        ex->name, i);
  }
  if (!grow(call->device, (void **)&cb->cmds, &cb->cmd_cap, cb->cmd_count,
            cb->cmd_count + 1, sizeof *cb->cmds) ||
      !grow(call->device, (void **)&cb->pcs, &cb->pc_cap, cb->pc_count,
            cb->pc_count + pc_count, sizeof *cb->pcs) ||
      !grow(call->device, (void **)&cb->binds, &cb->bind_cap, cb->bind_count,
            cb->bind_count + bind_count, sizeof *cb->binds))
    return krt_oom(a);
  krt_cmd_t *c = &cb->cmds[cb->cmd_count++];
  memset(c, 0, sizeof *c);
  c->kind = CMD_DISPATCH;
#ifdef KILN_WITH_PROFILE
  c->site = call->site;
#endif
  c->executable = executable;
  c->export_ordinal = export_ordinal;
  for (int i = 0; i < 3; ++i) c->count[i] = (uint32_t)count[i];
  c->pc_first = (uint32_t)cb->pc_count;
  c->pc_count = pc_count;
  for (uint32_t i = 0; i < pc_count; ++i)
    cb->pcs[cb->pc_count++] = (uint32_t)pcs[i].i32;
  c->bind_first = (uint32_t)cb->bind_count;
  c->bind_count = bind_count;
  for (uint32_t i = 0; i < bind_count; ++i) {
    kiln_buffer_t *b = (kiln_buffer_t *)binds[3 * i].ref;
    kiln_buffer_retain(b);
    krt_binding_t *slot = &cb->binds[cb->bind_count++];
    slot->buffer = b;
    slot->offset = (uint64_t)binds[3 * i + 1].i64;
    slot->length = (uint64_t)binds[3 * i + 2].i64;
  }
  return NULL;
}

kiln_status_t krt_command_buffer_barrier(krt_call_t *call,
                                         krt_command_buffer_t *cb) {
  if (!grow(call->device, (void **)&cb->cmds, &cb->cmd_cap, cb->cmd_count,
            cb->cmd_count + 1, sizeof *cb->cmds))
    return krt_oom(call->allocator);
  krt_cmd_t *c = &cb->cmds[cb->cmd_count++];
  memset(c, 0, sizeof *c);
  c->kind = CMD_BARRIER;
  return NULL;
}

#ifdef KILN_WITH_TRANSFERS
/* Checks that args[i] is a buffer of this call's device with
 * [args[i+1], +length) inside it, and writable when `write`. */
static kiln_status_t transfer_range(krt_call_t *call, const char *what,
                                    const krt_value_t *args, unsigned i,
                                    int64_t length, bool write) {
  const kiln_allocator_t *a = call->allocator;
  const krt_ref_t *r = args[i].ref;
  if (!r || r->type != KRT_REF_BUFFER)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "%s: expected buffer, got %s", what, krt_ref_type_name(r));
  const kiln_buffer_t *b = (const kiln_buffer_t *)r;
  const int64_t off = args[i + 1].i64;
  if (b->device != call->device)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "%s: buffer belongs to device %s", what, b->device->name);
  if (off < 0 || length < 0 || (uint64_t)off > b->length ||
      (uint64_t)length > b->length - (uint64_t)off)
    return krt_status(a, KILN_STATUS_OUT_OF_RANGE,
                      "%s: range %lld+%lld outside the %llu-byte buffer", what,
                      (long long)off, (long long)length,
                      (unsigned long long)b->length);
  if (write && b->owner)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "%s: writes to read-only module data", what);
  return NULL;
}

/* Appends a transfer command holding `nbufs` retained buffers. */
static kiln_status_t push_transfer(krt_call_t *call, krt_command_buffer_t *cb,
                                   uint32_t kind, kiln_buffer_t *const *bufs,
                                   const uint64_t *offsets, uint32_t nbufs,
                                   uint64_t length, uint32_t pattern) {
  const kiln_allocator_t *a = call->allocator;
  if (!grow(call->device, (void **)&cb->cmds, &cb->cmd_cap, cb->cmd_count,
            cb->cmd_count + 1, sizeof *cb->cmds) ||
      !grow(call->device, (void **)&cb->binds, &cb->bind_cap, cb->bind_count,
            cb->bind_count + nbufs, sizeof *cb->binds))
    return krt_oom(a);
  krt_cmd_t *c = &cb->cmds[cb->cmd_count++];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->pattern = pattern;
  c->bind_first = (uint32_t)cb->bind_count;
  c->bind_count = nbufs;
  for (uint32_t i = 0; i < nbufs; ++i) {
    kiln_buffer_retain(bufs[i]);
    krt_binding_t *slot = &cb->binds[cb->bind_count++];
    slot->buffer = bufs[i];
    slot->offset = offsets[i];
    slot->length = length;
  }
  return NULL;
}

kiln_status_t krt_command_buffer_copy(krt_call_t *call,
                                      krt_command_buffer_t *cb,
                                      const krt_value_t *args) {
  /* args: cb, src, src_offset, dst, dst_offset, length */
  const int64_t length = args[5].i64;
  kiln_status_t s = transfer_range(call, "copy source", args, 1, length, false);
  if (!s) s = transfer_range(call, "copy target", args, 3, length, true);
  if (s) return s;
  kiln_buffer_t *bufs[2] = {(kiln_buffer_t *)args[1].ref,
                            (kiln_buffer_t *)args[3].ref};
  const uint64_t offsets[2] = {(uint64_t)args[2].i64, (uint64_t)args[4].i64};
  return push_transfer(call, cb, CMD_COPY, bufs, offsets, 2, (uint64_t)length,
                       0);
}

kiln_status_t krt_command_buffer_fill(krt_call_t *call,
                                      krt_command_buffer_t *cb,
                                      const krt_value_t *args) {
  /* args: cb, dst, offset, length, pattern */
  const int64_t length = args[3].i64;
  kiln_status_t s = transfer_range(call, "fill target", args, 1, length, true);
  if (s) return s;
  if ((args[2].i64 | length) & 3)
    return krt_status(call->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "fill: offset %lld and length %lld must be multiples "
                      "of 4", (long long)args[2].i64, (long long)length);
  kiln_buffer_t *buf = (kiln_buffer_t *)args[1].ref;
  const uint64_t offset = (uint64_t)args[2].i64;
  return push_transfer(call, cb, CMD_FILL, &buf, &offset, 1, (uint64_t)length,
                       (uint32_t)args[4].i32);
}

#endif /* KILN_WITH_TRANSFERS */

#ifdef KILN_WITH_PROFILE
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A dispatch under the device's observer (kept out of the plain path):
 * run to completion, timed, then reported with where it came from. */
static kiln_status_t observed_dispatch(krt_call_t *call, const krt_cmd_t *c,
                                       size_t index, const krt_dispatch_t *d) {
  kiln_device_t *device = call->device;
  kiln_dispatch_event_t e;
  e.start_ns = now_ns();
  kiln_status_t s = device->vt->dispatch(
      device, call->cache->executables[c->executable], c->export_ordinal, d);
  if (!s) s = device->vt->wait(device);
  e.end_ns = now_ns();
  if (s) return s;
  const krt_executable_t *exe = &call->module->executables[c->executable];
  e.executable = exe->name;
  e.export_name = exe->exports[c->export_ordinal].name;
  const char *names[KILN_DISPATCH_MAX_NODES], *kinds[KILN_DISPATCH_MAX_NODES];
  krt_vm_site(call->module, c->site, &e, names, kinds);
  e.command_index = (uint32_t)index;
  memcpy(e.workgroup_count, c->count, sizeof e.workgroup_count);
  kiln_dispatch_binding_t b[KRT_MAX_BINDINGS];
  const uint32_t ro = exe->exports[c->export_ordinal].readonly_mask;
  for (uint32_t i = 0; i < d->binding_count && i < KRT_MAX_BINDINGS; ++i) {
    b[i].buffer = d->bindings[i].buffer;
    b[i].offset = d->bindings[i].offset;
    b[i].length = d->bindings[i].length;
    b[i].read_only = (ro >> i) & 1u;
  }
  e.binding_count = d->binding_count < KRT_MAX_BINDINGS ? d->binding_count : KRT_MAX_BINDINGS;
  e.bindings = b;
  device->observer(device->observer_user, &e);
  return NULL;
}
#endif

kiln_status_t krt_command_buffer_execute(krt_call_t *call,
                                         krt_command_buffer_t *cb) {
  kiln_device_t *device = call->device;
  for (size_t i = 0; i < cb->cmd_count; ++i) {
    const krt_cmd_t *c = &cb->cmds[i];
    /* (NULL arrays when nothing was recorded: no pointer arithmetic.) */
    const krt_binding_t *b = c->bind_count ? cb->binds + c->bind_first : NULL;
    kiln_status_t ts = NULL;
    switch (c->kind) {
      case CMD_BARRIER: continue; /* devices run commands in order */
#ifdef KILN_WITH_TRANSFERS
      case CMD_COPY:
        ts = device->vt->copy(device, b[0].buffer, b[0].offset, b[1].buffer,
                              b[1].offset, b[0].length);
        break;
      case CMD_FILL:
        ts = device->vt->fill(device, b[0].buffer, b[0].offset, b[0].length,
                              c->pattern);
        break;
#endif
      default: break;
    }
    if (c->kind != CMD_DISPATCH) {
      if (ts) return krt_status_prefix(ts, "command %zu", i);
      continue;
    }
    krt_dispatch_t d;
    memcpy(d.workgroup_count, c->count, sizeof d.workgroup_count);
    d.push_constant_count = c->pc_count;
    d.push_constants = c->pc_count ? cb->pcs + c->pc_first : NULL;
    d.binding_count = c->bind_count;
    d.bindings = b;
    kiln_status_t s;
#ifdef KILN_WITH_PROFILE
    if (device->observer)
      s = observed_dispatch(call, c, i, &d);
    else
#endif
      s = device->vt->dispatch(device, call->cache->executables[c->executable],
                               c->export_ordinal, &d);
    if (s) {
      const krt_executable_t *exe = &call->module->executables[c->executable];
      return krt_status_prefix(s, "dispatch %zu ('%s' export '%s')", i,
                               exe->name,
                               exe->exports[c->export_ordinal].name);
    }
  }
  return NULL;
}
