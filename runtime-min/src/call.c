/* Functions: lookup, reflection (from the verified signature tables, no
 * code runs) and kiln_function_call, which checks the inputs against the
 * declared types, runs the VM on a stack allocated for this call only, and
 * checks what the function returns. Concurrent calls share nothing
 * mutable but the per-device executable cache, which locks. */
#include <string.h>

#include "runtime_internal.h"

uint32_t kiln_module_function_count(const kiln_module_t *module) {
  return module->function_count;
}

kiln_status_t kiln_module_function_at(kiln_module_t *module, uint32_t ordinal,
                                      kiln_function_t *out_function) {
  if (ordinal >= module->function_count)
    return krt_status(module->allocator, KILN_STATUS_OUT_OF_RANGE,
                      "%s %u out of range (module has %u)", "function",
                      ordinal, module->function_count);
  out_function->module = module;
  out_function->ordinal = ordinal;
  return NULL;
}

kiln_status_t kiln_module_lookup_function(kiln_module_t *module,
                                          const char *name,
                                          kiln_function_t *out_function) {
  for (uint32_t i = 0; i < module->function_count; ++i) {
    if (strcmp(module->functions[i].name, name) == 0) {
      out_function->module = module;
      out_function->ordinal = i;
      return NULL;
    }
  }
  char names[512];
  size_t n = 0;
  names[0] = 0;
#ifndef KILN_NO_MESSAGES /* the list only feeds the message */
  for (uint32_t i = 0; i < module->function_count && n < sizeof names; ++i) {
    if (!module->functions[i].exported) continue;
    int w = snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                     module->functions[i].name);
    if (w > 0) n += (size_t)w;
  }
#endif
  return krt_status(module->allocator, KILN_STATUS_NOT_FOUND,
                    "module '%s' has no function '%s' (exported: %s)",
                    module->name, name, n ? names : "none");
}

static const krt_function_t *fn_of(kiln_function_t f) {
  return f.module && f.ordinal < f.module->function_count
             ? &f.module->functions[f.ordinal]
             : NULL;
}

const char *kiln_function_name(kiln_function_t function) {
  const krt_function_t *f = fn_of(function);
  return f ? f->name : "";
}
int kiln_function_is_exported(kiln_function_t function) {
  const krt_function_t *f = fn_of(function);
  return f && f->exported;
}
uint32_t kiln_function_input_count(kiln_function_t function) {
  const krt_function_t *f = fn_of(function);
  return f ? f->input_count : 0;
}
uint32_t kiln_function_output_count(kiln_function_t function) {
  const krt_function_t *f = fn_of(function);
  return f ? f->output_count : 0;
}

kiln_tensor_type_t kiln_function_input_type(kiln_function_t function,
                                            uint32_t i) {
  kiln_tensor_type_t t;
  memset(&t, 0, sizeof t);
  const krt_function_t *f = fn_of(function);
  if (f && i < f->input_count) t = f->types[i];
  return t;
}

kiln_tensor_type_t kiln_function_output_type(kiln_function_t function,
                                             uint32_t i) {
  kiln_tensor_type_t t;
  memset(&t, 0, sizeof t);
  const krt_function_t *f = fn_of(function);
  if (f && i < f->output_count) t = f->types[f->input_count + i];
  return t;
}

/* Declared type j of f as text: "tensor<4xf32>", or for a sequence
 * "seq<tensor<?xf32>>"; straight into buf, counting as snprintf does. */
static size_t type_format(const krt_function_t *f, uint32_t j, char *buf,
                          size_t size) {
  size_t n = 0;
#ifdef KILN_WITH_SEQUENCES
  const bool seq = f->sequences >> j & 1;
  if (seq) krt_append(buf, size, &n, "seq<");
  if (f->unranked >> j & 1) { /* "tensor<*xf32>" */
    krt_append(buf, size, &n, "tensor<*x");
    krt_append(buf, size, &n, kiln_element_type_name(f->types[j].element_type));
    krt_append(buf, size, &n, ">>");
    return n;
  }
#endif
  n += kiln_tensor_type_format(&f->types[j], n < size ? buf + n : NULL,
                               n < size ? size - n : 0);
#ifdef KILN_WITH_SEQUENCES
  if (seq) krt_append(buf, size, &n, ">");
#endif
  return n;
}

size_t kiln_function_signature_format(kiln_function_t function, char *buf,
                                      size_t size) {
  const krt_function_t *f = fn_of(function);
  size_t n = 0;
  if (size) buf[0] = 0;
  if (!f) return 0;
  const uint32_t count = f->input_count + f->output_count;
  const char *arrow = f->output_count == 1 ? ") -> " : ") -> (";
  krt_append(buf, size, &n, "(");
  for (uint32_t i = 0; i < count; ++i) {
    krt_append(buf, size, &n, i == f->input_count ? arrow : i ? ", " : "");
    n += type_format(f, i, n < size ? buf + n : NULL, n < size ? size - n : 0);
  }
  if (f->output_count == 0) krt_append(buf, size, &n, arrow);
  if (f->output_count != 1) krt_append(buf, size, &n, ")");
  return n;
}

/* Does `view` match the declared type (dynamic dims match anything)? */
static bool matches(const kiln_tensor_type_t *want,
                    const kiln_buffer_view_t *view) {
  if (want->element_type != view->element_type || want->rank != view->rank)
    return false;
  for (uint32_t d = 0; d < want->rank; ++d)
    if (want->dims[d] >= 0 && want->dims[d] != view->dims[d]) return false;
  return true;
}

static kiln_status_t type_error(const kiln_allocator_t *a, const char *what,
                                uint32_t i, const kiln_tensor_type_t *want,
                                const kiln_buffer_view_t *view) {
#ifdef KILN_NO_MESSAGES
  (void)what, (void)i, (void)want, (void)view;
  return krt_status(a, KILN_STATUS_INVALID_ARGUMENT, "type mismatch");
#else
  char ws[200], gs[200];
  kiln_tensor_type_t got;
  kiln_tensor_type_format(want, ws, sizeof ws);
  kiln_buffer_view_type(view, &got);
  kiln_tensor_type_format(&got, gs, sizeof gs);
  /* name the first dimension that differs when only sizes do */
  if (want->element_type == view->element_type && want->rank == view->rank)
    for (uint32_t d = 0; d < want->rank; ++d)
      if (want->dims[d] >= 0 && want->dims[d] != view->dims[d])
        return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                          "%s %u: expected %s, got %s (dimension %u is %lld, must be %lld)", what, i, ws,
                          gs, d, (long long)view->dims[d], (long long)want->dims[d]);
  return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                    "%s %u: expected %s, got %s", what, i, ws, gs);
#endif
}

/* A view given as `what` i ("input 1", "input 0 element 2"), or (device
 * NULL) returned. */
static kiln_status_t check_view(const kiln_allocator_t *a,
                                const kiln_tensor_type_t *want,
                                const kiln_buffer_view_t *v,
                                kiln_device_t *device, const char *what,
                                uint32_t i) {
  if (!matches(want, v)) return type_error(a, what, i, want, v);
  if (device && v->buffer->device != device)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "%s %u lives on device %s, the call runs on %s", what, i,
                      v->buffer->device->name, device->name);
  return NULL;
}

/* Value r against declared type j of f, given as input i or (device NULL)
 * returned as output i: a view, or a list for a sequence type. Inputs
 * are views or lists (the API's types), outputs are checked to be. */
static kiln_status_t check_value(const kiln_allocator_t *a,
                                 const krt_function_t *f, uint32_t j,
                                 const krt_ref_t *r, kiln_device_t *device,
                                 uint32_t i) {
  const char *what = device ? "input" : "output";
#ifdef KILN_WITH_SEQUENCES
  const bool seq = f->sequences >> j & 1;
  if (r && seq != (r->type == KRT_REF_LIST)) {
    char ws[200];
    type_format(f, j, ws, sizeof ws);
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "%s %u: expected %s, got a %s", what, i, ws,
                      seq ? "tensor" : "sequence");
  }
  if (r && seq) {
    const krt_list_t *l = (const krt_list_t *)r;
    char element[40]; /* "input 0 element": the message names both */
    snprintf(element, sizeof element, "%s %u element", what, i);
    for (uint32_t k = 0; k < l->count; ++k) {
      /* unranked: the element's own rank and dims, the declared type */
      kiln_tensor_type_t any = f->types[j];
      if (f->unranked >> j & 1) {
        any.rank = l->items[k]->rank;
        for (uint32_t d = 0; d < any.rank; ++d) any.dims[d] = -1;
      }
      kiln_status_t s = check_view(a, &any, l->items[k], device, element, k);
      if (s) return s;
    }
    return NULL;
  }
#endif
  if (!r) /* outputs: call_refs checked */
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT, "input %u is missing", i);
  return check_view(a, &f->types[j], (const kiln_buffer_view_t *)r, device,
                    what, i);
}

/* kiln_function_call on refs: views, and lists for sequences. Its only
 * caller inlines it in a runtime without sequences (bytes). */
#ifndef KILN_WITH_SEQUENCES
__attribute__((always_inline)) inline
#endif
static kiln_status_t call_refs(kiln_function_t function, kiln_device_t *device,
                               krt_ref_t *const *inputs, uint32_t input_count,
                               krt_ref_t **outputs, uint32_t output_count) {
  kiln_module_t *m = function.module;
  const krt_function_t *f = fn_of(function);
  if (!f)
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "invalid function handle");
  const kiln_allocator_t *a = m->allocator;
  for (uint32_t i = 0; i < output_count; ++i) outputs[i] = NULL;
  if (strcmp(f->signature, f->derived) != 0)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "function '%s' takes VM values (\"%s\"), not buffer "
                      "views: it cannot be called from the host",
                      f->name, f->signature);
  if (input_count != f->input_count)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "function '%s' takes %u inputs, got %u", f->name,
                      f->input_count, input_count);
  if (output_count != f->output_count)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "function '%s' returns %u outputs, room given for %u",
                      f->name, f->output_count, output_count);
  for (uint32_t i = 0; i < input_count; ++i) {
    kiln_status_t s = check_value(a, f, i, inputs[i], device, i);
    if (s) return krt_status_prefix(s, "function '%s'", f->name);
  }
  krt_call_t call;
  memset(&call, 0, sizeof call);
  call.module = m;
  call.device = device;
  call.allocator = a;
  call.function = f;
  call.steps_left = device->max_steps ? device->max_steps : UINT64_MAX;
  kiln_status_t s = krt_module_device_cache(m, device, &call.cache);
  if (s) return s;
  call.stack_size = krt_vm_stack_size(m);
  /* Not zeroed: the interpreter zeroes each frame as it pushes it. */
  call.stack = krt_pool_alloc(device, call.stack_size, KRT_POOL_RAW);
  if (!call.stack)
    return krt_status(a, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory for a %zu-byte VM stack",
                      call.stack_size);
  krt_ref_t *results[64] = {0};
  s = krt_vm_invoke(&call, function.ordinal, inputs, results);
  krt_pool_free(device, call.stack);
  for (uint32_t i = 0; !s && i < output_count; ++i) {
    const krt_ref_t *r = results[i];
    if (!r || (r->type != KRT_REF_BUFFER_VIEW
#ifdef KILN_WITH_SEQUENCES
               && r->type != KRT_REF_LIST
#endif
               ))
      s = krt_status(a, KILN_STATUS_INTERNAL,
                     "function '%s' returned a %s as output %u", f->name,
                     krt_ref_type_name(r), i);
    else
      s = krt_status_prefix(check_value(a, f, f->input_count + i, r, NULL, i),
                            "function '%s' returned a wrong type", f->name);
  }
  if (s) {
    for (uint32_t i = 0; i < output_count; ++i) krt_ref_release(results[i]);
    return s;
  }
  for (uint32_t i = 0; i < output_count; ++i) outputs[i] = results[i];
  return NULL;
}

kiln_status_t kiln_function_call(kiln_function_t function,
                                 kiln_device_t *device,
                                 kiln_buffer_view_t *const *inputs,
                                 uint32_t input_count,
                                 kiln_buffer_view_t **outputs,
                                 uint32_t output_count) {
#ifdef KILN_WITH_SEQUENCES
  const krt_function_t *f = fn_of(function);
  for (uint32_t i = 0; i < output_count; ++i) outputs[i] = NULL;
  if (f && f->sequences) /* its outputs[] could not hold a list */
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "function '%s' takes or returns sequences: call it "
                      "with kiln_function_call_values", f->name);
#endif
  /* A view starts with its ref: the arrays are arrays of refs. */
  return call_refs(function, device, (krt_ref_t *const *)inputs, input_count,
                   (krt_ref_t **)outputs, output_count);
}

#ifdef KILN_WITH_SEQUENCES
int kiln_function_input_is_sequence(kiln_function_t function, uint32_t i) {
  const krt_function_t *f = fn_of(function);
  return f && i < f->input_count && (f->sequences >> i & 1);
}

int kiln_function_output_is_sequence(kiln_function_t function, uint32_t i) {
  const krt_function_t *f = fn_of(function);
  return f && i < f->output_count &&
         (f->sequences >> (f->input_count + i) & 1);
}

kiln_status_t kiln_function_call_values(kiln_function_t function,
                                        kiln_device_t *device,
                                        const kiln_call_value_t *inputs,
                                        uint32_t input_count,
                                        kiln_call_value_t *outputs,
                                        uint32_t output_count) {
  krt_ref_t *in[64], *out[64];
  for (uint32_t i = 0; i < output_count; ++i)
    outputs[i].view = NULL, outputs[i].sequence = NULL;
  if (input_count > 64 || output_count > 64)
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "%u inputs and %u outputs: at most 64 each",
                      input_count, output_count);
  for (uint32_t i = 0; i < input_count; ++i) {
    if (!inputs[i].view == !inputs[i].sequence)
      return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                        "input %u: set one of view and sequence", i);
    in[i] = inputs[i].view ? &inputs[i].view->ref : &inputs[i].sequence->ref;
  }
  kiln_status_t s =
      call_refs(function, device, in, input_count, out, output_count);
  for (uint32_t i = 0; !s && i < output_count; ++i) {
    if (out[i]->type == KRT_REF_LIST) outputs[i].sequence = (krt_list_t *)out[i];
    else outputs[i].view = (kiln_buffer_view_t *)out[i];
  }
  return s;
}
#endif
