/* The loader: takes module bytes (an mmap of a file, or caller memory) and
 * turns them into an immutable kiln_module_t, or an error naming what is
 * wrong. Order: format verification (kiln_module_view_open: structure,
 * version, ranges), bytecode version, semantic checks of functions,
 * imports (resolved against the HAL natives by name and signature),
 * rodata and executables (ELF payloads verified), then every function's
 * bytecode. Nothing runs before all of it passed. Loading checks structure
 * only and reads no weight page: a file maps in microseconds whatever its
 * size. Weights' content hashes are checked on request
 * (kiln_module_check_hashes); a kernel's when a device loads it (per
 * device on first use or kiln_module_prepare; cached here), since only
 * the variant a device picks is ever run. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_internal.h"
#ifdef KILN_WITH_ZSTD
#include "kiln/module_zstd.h"
#endif
#include "elf_loader.h"

#define A (m->allocator)

/* A malformed module. A macro, not a function: a variadic wrapper's
 * register-save prologue costs more than the code argument at each call. */
#define corrupt(m, ...) krt_status((m)->allocator, KILN_STATUS_DATA_LOSS, __VA_ARGS__)

kiln_status_t krt_segment_bytes(kiln_module_t *m, uint32_t segment,
                                bool check, const uint8_t **out,
                                uint64_t *out_size, void **owned) {
  *owned = NULL;
  uint64_t size = 0;
  const uint8_t *data = kiln_module_segment_data(&m->view, segment, &size);
  if (!data) return corrupt(m, "segment %u does not exist", segment);
  kiln_fb_Segment_t seg = kiln_fb_Module_segments_at(m->view.root, segment);
  if (kiln_fb_Segment_compression(seg) == kiln_fb_Compression_None) {
    /* Kernels run, so their bytes are checked before use (weights are
     * not: a wrong weight cannot make the runtime misbehave). */
    kiln_format_error_t err;
    if (check && !kiln_module_segment_check_hash(&m->view, segment, &err))
      return corrupt(m, "%s", err.message);
    *out = data;
    *out_size = size;
    return NULL;
  }
#ifdef KILN_WITH_ZSTD
  const uint64_t full = kiln_fb_Segment_uncompressed_size(seg);
  if (full > KRT_MAX_PAYLOAD_BYTES)
    return corrupt(m, "segment %u: uncompressed size %llu exceeds the "
                   "runtime's limit of %u bytes", segment,
                   (unsigned long long)full, KRT_MAX_PAYLOAD_BYTES);
  /* Not zeroed: decompression writes every byte or fails. */
  uint8_t *buf = A->alloc(A->self, full ? (size_t)full : 1, 64);
  if (!buf)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory decompressing segment %u (%llu bytes)",
                      segment, (unsigned long long)full);
  kiln_format_error_t err;
  /* One context for all the segments read in a row (NULL on failure:
   * each read then makes its own). */
  if (!m->zstd) m->zstd = kiln_module_zstd_ctx_create();
  if (!kiln_module_segment_read_with(&m->view, segment, buf, full, m->zstd,
                                     &err)) {
    krt_free(A, buf);
    return corrupt(m, "%s", err.message);
  }
  *out = buf;
  *out_size = full;
  *owned = buf;
  return NULL;
#else
  return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                    "segment %u is zstd-compressed but this runtime was built "
                    "without zstd (KILN_RUNTIME_ZSTD=OFF)", segment);
#endif
}

static kiln_status_t load_functions(kiln_module_t *m) {
  kiln_fb_Module_t root = m->view.root;
  const uint32_t n = kiln_fb_Module_functions_count(root);
  if (n > 65535) return corrupt(m, "%u functions (at most 65535)", n);
  m->function_count = n;
  m->functions = krt_alloc(A, (size_t)n * sizeof *m->functions + 1);
  m->vm_functions = krt_alloc(A, (size_t)n * sizeof *m->vm_functions + 1);
  if (!m->functions || !m->vm_functions)
    return krt_oom(A);
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(root, i);
    krt_function_t *fn = &m->functions[i];
    /* kiln_module_view_open has checked what the format alone decides:
     * names present and non-empty, element types known (the enum), dims
     * sizes or -1. What follows is what this runtime adds. */
    fn->name = kiln_fb_Function_name(f).data;
    fn->exported = kiln_fb_Function_exported(f);
    fn->input_count = kiln_fb_Function_inputs_count(f);
    fn->output_count = kiln_fb_Function_outputs_count(f);
    if (fn->input_count + (uint64_t)fn->output_count > 63)
      return corrupt(m, "function '%s': %u inputs + %u outputs exceed 63",
                     fn->name, fn->input_count, fn->output_count);
    const uint32_t nt = fn->input_count + fn->output_count;
    fn->types = krt_alloc(A, (size_t)nt * sizeof *fn->types + 1);
    if (!fn->types)
      return krt_oom(A);
    for (uint32_t j = 0; j < nt; ++j) {
      const bool in = j < fn->input_count;
      const uint32_t k = in ? j : j - fn->input_count;
      kiln_fb_TensorType_t t = in ? kiln_fb_Function_inputs_at(f, k)
                                  : kiln_fb_Function_outputs_at(f, k);
      kiln_tensor_type_t *tt = &fn->types[j];
      /* runtime.h numbers element types as the schema does */
      _Static_assert(KILN_ELEMENT_COUNT == kiln_fb_ElementType_STR + 1,
                     "kiln_element_type_t follows the schema's ElementType");
      tt->element_type =
          (kiln_element_type_t)kiln_fb_TensorType_element_type(t);
      const uint32_t rank = kiln_fb_TensorType_dims_count(t);
      if (rank > KILN_MAX_RANK)
        return corrupt(m, "function '%s' %s %u: rank %u exceeds %d",
                       fn->name, in ? "input" : "output", k, rank,
                       KILN_MAX_RANK);
      tt->rank = rank;
      for (uint32_t d = 0; d < rank; ++d)
        tt->dims[d] = kiln_fb_TensorType_dims_at(t, d);
      fn->derived[j + (in ? 0 : 1)] = 'r';
#ifdef KILN_WITH_SEQUENCES
      fn->sequences |= (uint64_t)kiln_fb_TensorType_sequence(t) << j;
      fn->unranked |= (uint64_t)(kiln_fb_TensorType_sequence(t) &&
                                 kiln_fb_TensorType_unranked(t)) << j;
#endif
    }
    fn->derived[fn->input_count] = '_';
    /* Host-callable functions take and return buffer views only; others
     * may declare any VM signature. */
    fn->signature = fn->derived;
    if (kiln_fb_Function_vm_signature_present(f)) {
      const char *sig = kiln_fb_Function_vm_signature(f).data;
      if (!kiln_vm_signature_valid(sig) || strchr(sig, 'C'))
        return corrupt(m, "function '%s': malformed VM signature \"%.64s\"",
                       fn->name, sig);
      if (fn->exported && strcmp(sig, fn->derived) != 0)
        return corrupt(m, "exported function '%s': VM signature \"%s\" does "
                       "not match its %u inputs / %u outputs (\"%s\")",
                       fn->name, sig, fn->input_count, fn->output_count,
                       fn->derived);
      fn->signature = sig;
    }
    kiln_vm_function_info_t *vf = &m->vm_functions[i];
    vf->code = kiln_module_function_bytecode(&m->view, i, &vf->code_size);
    vf->scalar_count = kiln_fb_Function_i32_register_count(f);
    vf->ref_count = kiln_fb_Function_ref_register_count(f);
    vf->signature = fn->signature;
    if (!vf->code) return corrupt(m, "function '%s': no bytecode", fn->name);
    if (vf->scalar_count > KILN_VM_MAX_REGISTERS ||
        vf->ref_count > KILN_VM_MAX_REGISTERS)
      return corrupt(m, "function '%s': %u scalar / %u ref registers exceed "
                     "the limit %u", fn->name, vf->scalar_count,
                     vf->ref_count, KILN_VM_MAX_REGISTERS);
    if (fn->input_count > vf->ref_count || fn->output_count > vf->ref_count)
      return corrupt(m, "function '%s': %u ref registers cannot hold %u "
                     "inputs / %u outputs", fn->name, vf->ref_count,
                     fn->input_count, fn->output_count);
    const uint32_t bytes = ((vf->scalar_count * 4 + 15) & ~15u) +
                           ((vf->ref_count * 8 + 15) & ~15u);
    if (bytes > m->max_frame_bytes) m->max_frame_bytes = bytes;
  }
  return NULL;
}

static kiln_status_t load_imports(kiln_module_t *m) {
  kiln_fb_Module_t root = m->view.root;
  const uint32_t n = kiln_fb_Module_imports_count(root);
  if (n > 65535) return corrupt(m, "%u imports (at most 65535)", n);
  m->import_count = n;
  m->imports = krt_alloc(A, (size_t)n * sizeof *m->imports + 1);
  m->import_signatures =
      krt_alloc(A, (size_t)n * sizeof *m->import_signatures + 1);
  if (!m->imports || !m->import_signatures)
    return krt_oom(A);
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_Import_t imp = kiln_fb_Module_imports_at(root, i);
    const char *name = kiln_fb_Import_name(imp).data;
    const char *sig = kiln_fb_Import_signature(imp).data;
    if (!kiln_vm_signature_valid(sig))
      return corrupt(m, "import '%s': malformed signature \"%.64s\"", name,
                     sig);
    /* Each row: the name, its NUL, the signature, its NUL. */
    const char *k = krt_hal_natives;
    uint32_t row = 0;
    for (; *k && strcmp(k, name) != 0; ++row)
      k = strchr(strchr(k, 0) + 1, 0) + 1;
    if (!*k)
      return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                        "import '%s' is not provided by this runtime", name);
    const char *native_sig = strchr(k, 0) + 1;
    if (strcmp(native_sig, sig) != 0)
      return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                        "import '%s': the module expects signature \"%s\" but "
                        "the runtime provides \"%s\"",
                        name, sig, native_sig);
    m->imports[i] = krt_hal_fns[row];
    m->import_signatures[i] = native_sig;
  }
  return NULL;
}

static kiln_status_t load_rodata(kiln_module_t *m) {
  kiln_fb_Module_t root = m->view.root;
  const uint32_t n = kiln_fb_Module_rodata_count(root);
  m->rodata_count = n;
  m->rodata_data = krt_alloc(A, (size_t)n * sizeof *m->rodata_data + 1);
  m->rodata_size = krt_alloc(A, (size_t)n * sizeof *m->rodata_size + 1);
  if (!m->rodata_data || !m->rodata_size)
    return krt_oom(A);
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_Rodata_t r = kiln_fb_Module_rodata_at(root, i);
    const uint32_t seg = kiln_fb_Rodata_segment(r);
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(root, seg);
    if (kiln_fb_Segment_compression(s) != kiln_fb_Compression_None)
      return krt_status(A, KILN_STATUS_UNIMPLEMENTED,
                        "rodata '%s': compressed weights are not supported "
                        "(weights are used in place)",
                        kiln_fb_Rodata_name(r).data);
    m->rodata_data[i] = kiln_module_segment_data(&m->view, seg,
                                                 &m->rodata_size[i]);
    const uint32_t align = kiln_fb_Rodata_alignment(r);
    if (align > 1 && ((uintptr_t)m->rodata_data[i] & (align - 1)))
      return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                        "rodata '%s' lands at an address not aligned to %u: "
                        "load modules from 64-byte-aligned memory",
                        kiln_fb_Rodata_name(r).data, align);
  }
  return NULL;
}

static kiln_status_t load_executables(kiln_module_t *m) {
  kiln_fb_Module_t root = m->view.root;
  const uint32_t n = kiln_fb_Module_executables_count(root);
  uint32_t verified = UINT32_MAX, verified_machine = 0; /* last ELF checked */
  m->executable_count = n;
  m->executables = krt_alloc(A, (size_t)n * sizeof *m->executables + 1);
  if (!m->executables)
    return krt_oom(A);
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(root, i);
    krt_executable_t *exe = &m->executables[i];
    exe->name = kiln_fb_Executable_name(e).data;
    exe->export_count = kiln_fb_Executable_exports_count(e);
    exe->variant_count = kiln_fb_Executable_variants_count(e);
    exe->exports = krt_alloc(A, exe->export_count * sizeof *exe->exports + 1);
    exe->variants =
        krt_alloc(A, exe->variant_count * sizeof *exe->variants + 1);
    if (!exe->exports || !exe->variants)
      return krt_oom(A);
    for (uint32_t j = 0; j < exe->export_count; ++j) {
      kiln_fb_ExecutableExport_t x = kiln_fb_Executable_exports_at(e, j);
      krt_export_t *ex = &exe->exports[j];
      ex->name = kiln_fb_ExecutableExport_name(x).data;
      kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(x);
      ex->workgroup_size[0] = wg.x;
      ex->workgroup_size[1] = wg.y;
      ex->workgroup_size[2] = wg.z;
      ex->binding_count = kiln_fb_ExecutableExport_bindings_count(x);
      ex->push_constant_count =
          kiln_fb_ExecutableExport_push_constant_count(x);
      if (ex->binding_count > KRT_MAX_BINDINGS ||
          ex->push_constant_count > KRT_MAX_PUSH_CONSTANTS)
        return corrupt(m, "executable '%s' export '%s': %u bindings / %u push "
                       "constants exceed the limits %u / %u", exe->name,
                       ex->name, ex->binding_count, ex->push_constant_count,
                       KRT_MAX_BINDINGS, KRT_MAX_PUSH_CONSTANTS);
      for (uint32_t b = 0; b < ex->binding_count; ++b)
        if (kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(x, b)))
          ex->readonly_mask |= 1u << b;
    }
    for (uint32_t j = 0; j < exe->variant_count; ++j) {
      kiln_fb_ExecutableVariant_t v = kiln_fb_Executable_variants_at(e, j);
      krt_variant_t *var = &exe->variants[j];
      var->name = kiln_fb_ExecutableVariant_name(v).data;
      var->target = kiln_fb_ExecutableVariant_target(v).data;
      var->arch = kiln_fb_ExecutableVariant_arch(v).data;
      var->cpu_features = kiln_fb_ExecutableVariant_cpu_features(v).data;
      var->sm_version = kiln_fb_ExecutableVariant_sm_version(v);
      var->format = kiln_fb_ExecutableVariant_format(v);
      var->segment = kiln_fb_ExecutableVariant_segment(v);
      kiln_fb_Segment_t s = kiln_fb_Module_segments_at(root, var->segment);
      if (kiln_fb_Segment_compression(s) != kiln_fb_Compression_None)
        continue; /* verified after decompression, when a device loads it */
      if (var->format == kiln_fb_PayloadFormat_ELF) {
        /* A target's executables share one image (kiln-compile): checked
         * once, its machine against each variant's arch. */
        if (var->segment != verified) {
          uint64_t size;
          const uint8_t *data =
              kiln_module_segment_data(&m->view, var->segment, &size);
          char msg[256];
          kiln_elf_info_t info;
          if (kiln_elf_verify(data, (size_t)size, &info, msg, sizeof msg))
            return corrupt(m, "executable '%s' variant '%s': invalid ELF: %s",
                           exe->name, var->name, msg);
          verified = var->segment;
          verified_machine = info.machine;
        }
        const char *machine = kiln_elf_machine_name(verified_machine);
        if (strcmp(machine, var->arch) != 0)
          return corrupt(m, "executable '%s' variant '%s': declared arch "
                         "'%s' but holds an %s ELF", exe->name, var->name,
                         var->arch, machine);
      }
    }
  }
  return NULL;
}

static kiln_status_t verify_bytecode(kiln_module_t *m) {
  const uint32_t version = kiln_fb_Module_bytecode_version(m->view.root);
  if (version != KILN_VM_BYTECODE_VERSION)
    return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                      "module bytecode version %u is not supported: this "
                      "runtime runs version %u (recompile the module)",
                      version, KILN_VM_BYTECODE_VERSION);
  uint32_t largest = 0;
  for (uint32_t i = 0; i < m->function_count; ++i)
    if (m->vm_functions[i].code_size > largest)
      largest = m->vm_functions[i].code_size;
  uint8_t *scratch = krt_alloc(A, kiln_vm_verify_scratch_size(largest) + 1);
  if (!scratch)
    return krt_oom(A);
  const kiln_vm_module_info_t info = {m->vm_functions, m->function_count,
                                      m->import_signatures, m->import_count};
  kiln_status_t s = NULL;
  for (uint32_t i = 0; i < m->function_count && !s; ++i) {
    kiln_vm_diag_t diag;
    if (kiln_vm_verify_function(&info, i, scratch, &diag))
      s = corrupt(m, "function '%s': invalid bytecode %s",
                  m->functions[i].name, diag.message);
  }
  krt_free(A, scratch);
  return s;
}

static kiln_status_t load_common(kiln_instance_t *instance, const void *data,
                                 size_t size, void *mapping,
                                 kiln_module_t **out) {
  *out = NULL;
  const kiln_allocator_t *a = &instance->allocator;
  kiln_module_t *m = krt_alloc(a, sizeof *m);
  if (!m) {
    if (mapping) munmap(mapping, size);
    return krt_oom(a);
  }
  atomic_init(&m->refs, 1);
  m->instance = instance;
  kiln_instance_retain(instance);
  m->allocator = a;
  m->mapping = mapping;
  m->mapping_size = size;
  pthread_mutex_init(&m->cache_lock, NULL);
  kiln_format_error_t err;
  kiln_status_t s = NULL;
  if (!kiln_module_view_open(&m->view, data, size, &err)) {
    s = krt_status(a,
                   err.incompatible ? KILN_STATUS_INCOMPATIBLE
                                    : KILN_STATUS_DATA_LOSS,
                   "%s", err.message);
  }
  if (!s) {
    m->name = kiln_fb_Module_name(m->view.root).data;
    s = load_functions(m);
  }
  if (!s) s = load_imports(m);
  if (!s) s = load_rodata(m);
  if (!s) s = load_executables(m);
  if (!s) s = verify_bytecode(m);
  if (s) {
    kiln_module_release(m);
    return s;
  }
  *out = m;
  return NULL;
}

kiln_status_t kiln_module_load_memory(kiln_instance_t *instance,
                                      const void *data, size_t size,
                                      kiln_module_t **out_module) {
  return load_common(instance, data, size, NULL, out_module);
}

kiln_status_t kiln_module_load_file(kiln_instance_t *instance,
                                    const char *path,
                                    kiln_module_t **out_module) {
  *out_module = NULL;
  const kiln_allocator_t *a = &instance->allocator;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return krt_status(a, KILN_STATUS_NOT_FOUND, "cannot open '%s': %s", path,
                      strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "'%s' is not a regular file", path);
  }
  if (st.st_size == 0) {
    close(fd);
    return krt_status(a, KILN_STATUS_DATA_LOSS, "'%s' is empty", path);
  }
  const size_t size = (size_t)st.st_size;
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return krt_status(a, KILN_STATUS_UNAVAILABLE, "cannot map '%s': %s", path,
                      strerror(errno));
#if defined(KILN_WITH_HUGE_PAGES) && defined(MADV_HUGEPAGE)
  /* A hint that reads nothing now: pages not in the page cache (evicted,
   * as proactive reclaim does to a file idle for a minute, or never read)
   * are read in 2 MiB folios, each mapped by one entry, for this process
   * and every later one; read back without it they came in small folios
   * (MobileNetV2's 14 MB: 220 faults, 0.7-1.5 ms of CPU per process to
   * map, against 12 faults and 77 us). Cached pages stay as they are. */
  madvise(map, size, MADV_HUGEPAGE);
#endif
  return krt_status_prefix(load_common(instance, map, size, map, out_module),
                           "%s", path);
}

static void cache_free(kiln_module_t *m, krt_device_cache_t *c) {
  if (c->executables)
    c->device->vt->executables_unload(c->device, m, c->executables,
                                      c->loaded);
  for (uint32_t i = 0; c->rodata && i < m->rodata_count; ++i)
    kiln_buffer_release(c->rodata[i]);
  krt_free(A, c->executables);
  krt_free(A, c->rodata);
  krt_free(A, c);
}

void kiln_module_retain(kiln_module_t *module) {
  if (module) atomic_fetch_add(&module->refs, 1);
}

void kiln_module_release(kiln_module_t *m) {
  if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
  for (krt_device_cache_t *c = m->caches, *next; c; c = next) {
    next = c->next;
    kiln_device_t *device = c->device;
    cache_free(m, c);
    kiln_device_release(device);
  }
  for (uint32_t i = 0; m->functions && i < m->function_count; ++i)
    krt_free(A, m->functions[i].types);
  for (uint32_t i = 0; m->executables && i < m->executable_count; ++i) {
    krt_free(A, m->executables[i].exports);
    krt_free(A, m->executables[i].variants);
  }
  krt_free(A, m->functions);
  krt_free(A, m->vm_functions);
  krt_free(A, m->imports);
  krt_free(A, m->import_signatures);
  krt_free(A, m->executables);
  krt_free(A, m->rodata_data);
  krt_free(A, m->rodata_size);
  pthread_mutex_destroy(&m->cache_lock);
  if (m->mapping) munmap(m->mapping, m->mapping_size);
  kiln_instance_t *inst = m->instance;
  krt_free(A, m);
  kiln_instance_release(inst);
}

const char *kiln_module_name(const kiln_module_t *module) {
  return module->name;
}

/* ---- per-device cache ----------------------------------------------------- */

static kiln_status_t cache_create(kiln_module_t *m, kiln_device_t *device,
                                  krt_device_cache_t **out) {
  krt_device_cache_t *c = krt_alloc(A, sizeof *c);
  if (!c) return krt_oom(A);
  c->device = device;
  c->executables =
      krt_alloc(A, (size_t)m->executable_count * sizeof(void *) + 1);
  if (!device->host_memory)
    c->rodata = krt_alloc(A, (size_t)m->rodata_count * sizeof(void *) + 1);
  if (!c->executables || (!device->host_memory && !c->rodata)) {
    cache_free(m, c);
    return krt_oom(A);
  }
  kiln_status_t s =
      device->vt->executables_load(device, m, c->executables, &c->loaded);
  /* Devices without host memory get one device copy of each rodata. */
  for (uint32_t i = 0; !s && c->rodata && i < m->rodata_count; ++i) {
    s = kiln_buffer_allocate(device, m->rodata_size[i], &c->rodata[i]);
    if (!s)
      s = kiln_buffer_write(c->rodata[i], 0, m->rodata_data[i],
                            m->rodata_size[i]);
  }
  if (s) {
    cache_free(m, c);
    return s;
  }
  *out = c;
  return NULL;
}

/* Frees the decompression context once a batch of reads is done. */
static void segment_reads_done(kiln_module_t *m) {
#ifdef KILN_WITH_ZSTD
  kiln_module_zstd_ctx_free(m->zstd);
  m->zstd = NULL;
#else
  (void)m;
#endif
}

kiln_status_t krt_module_device_cache(kiln_module_t *m, kiln_device_t *device,
                                      krt_device_cache_t **out) {
  pthread_mutex_lock(&m->cache_lock);
  krt_device_cache_t *c = m->caches;
  while (c && c->device != device) c = c->next;
  kiln_status_t s = NULL;
  if (!c) {
    s = cache_create(m, device, &c);
    segment_reads_done(m);
    if (!s) {
      kiln_device_retain(device);
      c->next = m->caches;
      m->caches = c;
    }
  }
  pthread_mutex_unlock(&m->cache_lock);
  *out = c;
  return krt_status_prefix(s, "module '%s' on device %s", m->name,
                           device->name);
}

kiln_status_t kiln_module_check_hashes(kiln_module_t *m) {
  kiln_status_t s = NULL;
  pthread_mutex_lock(&m->cache_lock);
  for (uint32_t i = 0;
       !s && i < kiln_fb_Module_segments_count(m->view.root); ++i) {
    const uint8_t *bytes;
    uint64_t size;
    void *owned;
    /* krt_segment_bytes checks the hash (after decompressing). */
    s = krt_segment_bytes(m, i, true, &bytes, &size, &owned);
    krt_free(A, owned);
  }
  segment_reads_done(m);
  pthread_mutex_unlock(&m->cache_lock);
  return s;
}

kiln_status_t kiln_module_prepare(kiln_module_t *module,
                                  kiln_device_t *device) {
  krt_device_cache_t *c;
  return krt_module_device_cache(module, device, &c);
}

void krt_describe_variants(const krt_executable_t *exe, char *buf,
                           size_t size) {
  size_t n = 0;
  buf[0] = 0;
  if (exe->variant_count == 0) {
    snprintf(buf, size, "no variants at all");
    return;
  }
  for (uint32_t i = 0; i < exe->variant_count && n < size; ++i) {
    const krt_variant_t *v = &exe->variants[i];
    int w;
    if (v->format == kiln_fb_PayloadFormat_PTX)
      w = snprintf(buf + n, size - n, "%s'%s' (cuda PTX sm_%u)", i ? ", " : "",
                   v->name, v->sm_version);
    else
      w = snprintf(buf + n, size - n, "%s'%s' (%s ELF %s%s%s)", i ? ", " : "",
                   v->name, v->target, v->arch, v->cpu_features[0] ? " " : "",
                   v->cpu_features);
    if (w < 0) break;
    n += (size_t)w;
  }
}
