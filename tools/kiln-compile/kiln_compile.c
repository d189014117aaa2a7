/* kiln-compile: IN.mlir|IN.onnx -> OUT.kiln (or IR at a stage).
 *
 *   kiln-compile IN.mlir -o OUT.kiln [--target=llvm-cpu[:ARCH[+FEATURES]]]...
 *       [--compile-to=input|flow|hal|codegen|llvm-ir|vm]
 *       [--print-ir-after-all] [--print-ir-after=PASS] [--timing] [--jobs=N]
 *       [--compression=none|auto|always]
 *       [--dim=NAME=N]... [--static-shape=INPUT=D0xD1x...]...
 *       [--sequence-length=INPUT=N]...
 *       [--bundle-io=IN.npy[,IN2.npy...]:OUT.npy[,...]]...
 *   kiln-compile --print-pipeline
 *
 * Options fill a compile session; compiler/driver/pipeline.c does the
 * rest. Exit status: 0 success, 1 compile error (message on stderr), 2 bad
 * usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "driver.h"
#include "kiln/module_builder.h"
#include "run_io.h"
#include "tool_version.h"

static void usage(FILE *o) {
  fputs("usage: kiln-compile IN.mlir|IN.onnx -o OUT.kiln [options]\n"
        "  --target=T               llvm-cpu[:ARCH[+FEATURES]] or cuda:sm_NN;\n"
        "                           repeatable (one variant each); default: the host\n"
        "  --compile-to=STAGE       stop after STAGE and print the IR:\n"
        "                           input, flow, hal, codegen, llvm-ir, vm\n"
        "  --print-debuginfo        with --compile-to: print each op's source nodes\n"
        "                           (ONNX node names) as loc(fused[...]), which\n"
        "                           compiling the text again keeps\n"
        "  --print-ir-after-all     print the IR after every pass (stderr)\n"
        "  --print-ir-after=PASS    print the IR after the named pass(es) (stderr)\n"
        "  --timing                 time every pass, and each executable's LLVM steps (stderr)\n"
        "  --jobs=N                 compile executables on N threads (default: one per\n"
        "                           online core); the output is the same for every N\n"
        "  --print-pipeline         print the passes of every stage, in order, and exit\n"
        "  --compression=MODE       executable payloads: auto (default: PTX\n"
        "                           zstd-compressed when that pays, CPU code\n"
        "                           uncompressed), none (for a runtime built\n"
        "                           without zstd), always\n"
        "  --substitute-executable=EXE[:VARIANT]=FILE\n"
        "                           use FILE (ELF .so or .ptx) as the payload of\n"
        "                           hal.executable EXE instead of generating code\n"
        "                           (hal-level input only)\n"
        "  --dim=NAME=N             compile the ONNX dim_param NAME as size N (repeatable)\n"
        "  --static-shape=IN=D0xD1x...\n"
        "                           compile input IN static: its ONNX input name,\n"
        "                           NAME[K] for element K of a sequence input, or\n"
        "                           FUNC:INDEX for MLIR input (repeatable)\n"
        "  --sequence-length=IN=N   compile ONNX sequence input IN as N tensors, the\n"
        "                           arguments IN[0]..IN[N-1] (repeatable)\n"
        "  --bundle-io=IN.npy[,IN2.npy...]:OUT.npy[,...]\n"
        "                           store these inputs and the outputs they must give\n"
        "                           in the module, for kiln-run --check-bundled\n"
        "                           (repeatable: one check each; module output only)\n"
        "  --allow-unregistered-dialect  accept ops outside the op table\n"
        "  --output-format=FORMAT   module (default: a .kiln module) or static-library:\n"
        "                           -o DIR/NAME writes DIR/NAME.h and DIR/NAME.a, the model\n"
        "                           as C functions (one llvm-cpu target, static shapes)\n"
        "  --weights=MODE           static library: embedded (default: read-only data in\n"
        "                           NAME.a) or external (DIR/NAME.weights, which the app\n"
        "                           maps and passes to NAME_set_weights)\n"
        "  -o FILE                  output (module, or IR with --compile-to; '-' = stdout)\n"
        "  --version                print the version and source revision\n",
        o);
}

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    const size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (!got) break;
  }
  const bool ok = !ferror(f) && buf && n < cap + 1;
  fclose(f);
  if (!ok) {
    free(buf);
    return NULL;
  }
  *size = n;
  return buf;
}

/* Whether option A goes into the module's provenance: the options that
 * shape the output do; paths would make the bytes depend on where the
 * module was built, and options that only print, time or schedule the
 * work (--print-ir-*, --timing, --jobs) do not change them. */
static bool shapes_output(const char *a) {
  static const char *const skip[] = {"--substitute-executable=", "--bundle-io=", "--print-ir-", "--timing",
                                     "--jobs", "--compile-to=", "--print-debuginfo", "--version", "--help",
                                     "--print-pipeline"};
  if (strncmp(a, "--", 2) != 0) return false;
  for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
    if (strncmp(a, skip[i], strlen(skip[i])) == 0) return false;
  return true;
}

/* EXE[:VARIANT]=FILE */
static kiln_error *substitute(kiln_session *s, const char *spec) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1])
    return kiln_error_new("--substitute-executable wants EXE[:VARIANT]=FILE, got '%s'", spec);
  char name[256];
  const size_t n = (size_t)(eq - spec);
  if (n >= sizeof name) return kiln_error_new("executable name too long in '%s'", spec);
  memcpy(name, spec, n);
  name[n] = 0;
  char *colon = strchr(name, ':');
  const char *variant = "";
  if (colon) {
    *colon = 0;
    variant = colon + 1;
  }
  size_t size = 0;
  char *data = read_file(eq + 1, &size);
  if (!data) return kiln_error_new("cannot read '%s'", eq + 1);
  const size_t len = strlen(eq + 1);
  const kiln_payload_format_t fmt =
      len > 4 && strcmp(eq + 1 + len - 4, ".ptx") == 0 ? KILN_PAYLOAD_PTX : KILN_PAYLOAD_ELF;
  kiln_error *e = kiln_session_set_payload(s, name, variant, fmt, NULL, NULL, data, size);
  free(data);
  return e;
}

/* --bundle-io cases: the .npy tensors and the descriptors pointing at
 * them, alive until the session is destroyed. */
typedef struct bundle_io {
  kiln_module_bundled_case_desc_t *cases;
  uint32_t count;
  kiln_host_tensor_t *tensors;
  kiln_module_bundled_tensor_desc_t *descs;
  uint32_t tensor_count;
} bundle_io;

static void bundle_io_free(bundle_io *b) {
  for (uint32_t i = 0; i < b->tensor_count; i++) kiln_host_tensor_free(&b->tensors[i]);
  free(b->tensors);
  free(b->descs);
  free(b->cases);
}

/* Reads one side of a spec (comma-separated .npy paths, [p, end)) into
 * the next tensors; returns how many, or -1 after an error. */
static long bundle_side(bundle_io *b, const char *p, const char *end, const char *spec,
                        kiln_error **err) {
  long n = 0;
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    if (stop == p || (size_t)(stop - p) >= 4096) {
      *err = kiln_error_new("--bundle-io: empty or overlong file name in '%s'", spec);
      return -1;
    }
    char path[4096];
    memcpy(path, p, (size_t)(stop - p));
    path[stop - p] = 0;
    kiln_host_tensor_t *t = &b->tensors[b->tensor_count];
    char msg[256];
    if (!kiln_npy_read(path, t, msg, sizeof msg)) {
      *err = kiln_error_new("--bundle-io: %s: %s", path, msg);
      return -1;
    }
    kiln_module_bundled_tensor_desc_t *d = &b->descs[b->tensor_count++];
    const char *slash = strrchr(path, '/');
    d->name = strdup(slash ? slash + 1 : path);
    d->type.element_type = (kiln_fb_ElementType_t)t->type.element_type;
    d->type.rank = t->type.rank;
    d->type.dims = t->type.dims;
    d->data = t->data;
    d->size = t->size;
    n++;
    p = comma ? comma + 1 : end;
  }
  return n;
}

/* Parses "IN.npy[,IN2.npy...]:OUT.npy[,...]" into one more case. */
static kiln_error *bundle_add(bundle_io *b, const char *spec) {
  const char *colon = strrchr(spec, ':');
  if (!colon || colon == spec || !colon[1])
    return kiln_error_new("--bundle-io wants IN.npy[,IN2.npy...]:OUT.npy[,...], got '%s'", spec);
  uint32_t files = 2;
  for (const char *c = spec; *c; c++) files += *c == ',';
  void *nc = realloc(b->cases, (b->count + 1) * sizeof *b->cases);
  if (nc) b->cases = nc;
  void *nt = realloc(b->tensors, (b->tensor_count + files) * sizeof *b->tensors);
  if (nt) b->tensors = nt;
  void *nd = realloc(b->descs, (b->tensor_count + files) * sizeof *b->descs);
  if (nd) b->descs = nd;
  if (!nc || !nt || !nd) return kiln_error_new("out of memory");
  const uint32_t first = b->tensor_count;
  kiln_error *err = NULL;
  const long ins = bundle_side(b, spec, colon, spec, &err);
  if (ins < 0) return err;
  const long outs = bundle_side(b, colon + 1, colon + strlen(colon), spec, &err);
  if (outs < 0) return err;
  kiln_module_bundled_case_desc_t *c = &b->cases[b->count++];
  memset(c, 0, sizeof *c);
  c->input_count = (uint32_t)ins;
  c->output_count = (uint32_t)outs;
  /* Pointers into descs and tensors are fixed up once every spec is read
   * (both may move while growing); keep the first index meanwhile. */
  c->inputs = (const void *)(uintptr_t)first;
  return NULL;
}

static void bundle_fixup(bundle_io *b) {
  for (uint32_t i = 0; i < b->tensor_count; i++) b->descs[i].type.dims = b->tensors[i].type.dims;
  for (uint32_t i = 0; i < b->count; i++) {
    kiln_module_bundled_case_desc_t *c = &b->cases[i];
    const uint32_t first = (uint32_t)(uintptr_t)c->inputs;
    c->inputs = &b->descs[first];
    c->outputs = &b->descs[first + c->input_count];
  }
}

int main(int argc, char **argv) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  char llvm[48];
  snprintf(llvm, sizeof llvm, "LLVM %u.%u.%u", major, minor, patch);
  if (kiln_tool_version(argc, argv, "kiln-compile", llvm)) return 0;
  kiln_session *s = kiln_session_create();
  if (!s) {
    fputs("kiln-compile: out of memory\n", stderr);
    return 1;
  }
  kiln_session_options_t *o = &s->options;
  kiln_error *err = NULL;
  int status = 0;
  bool static_library = false;
  bundle_io bundles;
  memset(&bundles, 0, sizeof bundles);
  for (int i = 1; i < argc && !err && !status; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) {
        fputs("kiln-compile: -o needs a file\n", stderr);
        status = 2;
        break;
      }
      o->output_path = argv[++i];
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      kiln_session_destroy(s);
      return 0;
    }
    if (strcmp(a, "--print-pipeline") == 0) {
      kiln_driver_print_pipeline(stdout);
      kiln_session_destroy(s);
      return 0;
    }
    if (shapes_output(a)) err = kiln_session_add_flag(s, a);
    if (err) break;
    if (strncmp(a, "--target=", 9) == 0) {
      err = kiln_session_add_target(s, a + 9);
    } else if (strncmp(a, "--compile-to=", 13) == 0) {
      o->compile_to = kiln_stage_lookup(a + 13);
      if (o->compile_to == KILN_STAGE_COUNT || o->compile_to == KILN_STAGE_SERIALIZE) {
        fprintf(stderr, "kiln-compile: unknown stage '%s' (valid: input, flow, hal, codegen, llvm-ir, vm)\n",
                a + 13);
        status = 2;
      }
    } else if (strcmp(a, "--print-ir-after-all") == 0) {
      o->print_ir_after_all = true;
    } else if (strncmp(a, "--print-ir-after=", 17) == 0) {
      o->print_ir_after = a + 17;
    } else if (strcmp(a, "--print-debuginfo") == 0) {
      o->print_debuginfo = true;
    } else if (strcmp(a, "--timing") == 0) {
      o->timing = true;
    } else if (strncmp(a, "--jobs=", 7) == 0) {
      char *end = NULL;
      const unsigned long n = strtoul(a + 7, &end, 10);
      if (!a[7] || *end || a[7] == '-' || n < 1 || n > 1024) {
        fprintf(stderr, "kiln-compile: --jobs wants a thread count from 1 to 1024, got '%s'\n",
                a + 7);
        status = 2;
      }
      o->jobs = (unsigned)n;
    } else if (strncmp(a, "--compression=", 14) == 0) {
      const char *m = a + 14;
      if (strcmp(m, "auto") == 0) o->compression = KILN_COMPRESSION_AUTO;
      else if (strcmp(m, "none") == 0) o->compression = KILN_COMPRESSION_NONE;
      else if (strcmp(m, "always") == 0) o->compression = KILN_COMPRESSION_ALWAYS;
      else {
        fprintf(stderr, "kiln-compile: unknown compression '%s' (valid: none, auto, always)\n", m);
        status = 2;
      }
    } else if (strncmp(a, "--substitute-executable=", 24) == 0) {
      err = substitute(s, a + 24);
    } else if (strncmp(a, "--dim=", 6) == 0) {
      err = kiln_session_add_dim(s, a + 6);
    } else if (strncmp(a, "--static-shape=", 15) == 0) {
      err = kiln_session_add_static_shape(s, a + 15);
    } else if (strncmp(a, "--sequence-length=", 18) == 0) {
      err = kiln_session_add_sequence_length(s, a + 18);
    } else if (strncmp(a, "--output-format=", 16) == 0) {
      if (strcmp(a + 16, "static-library") == 0) static_library = true;
      else if (strcmp(a + 16, "module") == 0) static_library = false;
      else {
        fprintf(stderr, "kiln-compile: unknown output format '%s' (valid: module, static-library)\n",
                a + 16);
        status = 2;
      }
    } else if (strncmp(a, "--weights=", 10) == 0) {
      if (strcmp(a + 10, "external") == 0) o->static_weights_external = true;
      else if (strcmp(a + 10, "embedded") == 0) o->static_weights_external = false;
      else {
        fprintf(stderr, "kiln-compile: unknown weights mode '%s' (valid: embedded, external)\n", a + 10);
        status = 2;
      }
    } else if (strncmp(a, "--bundle-io=", 12) == 0) {
      err = bundle_add(&bundles, a + 12);
    } else if (strcmp(a, "--allow-unregistered-dialect") == 0) {
      o->allow_unregistered = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "kiln-compile: unknown option '%s'\n", a);
      usage(stderr);
      status = 2;
    } else if (!o->input_path) {
      o->input_path = a;
    } else {
      fprintf(stderr, "kiln-compile: more than one input ('%s' and '%s')\n", o->input_path, a);
      status = 2;
    }
  }
  if (!err && !status && !o->input_path) {
    usage(stderr);
    status = 2;
  }
  if (!err && !status && o->static_weights_external && !static_library) {
    fputs("kiln-compile: --weights=external needs --output-format=static-library (a module maps "
          "its weights from the module file)\n", stderr);
    status = 2;
  }
  if (!err && !status && static_library) {
    /* NAME is the last part of -o DIR/NAME; the stage checks it. */
    if (!o->output_path) {
      fputs("kiln-compile: --output-format=static-library needs -o DIR/NAME\n", stderr);
      status = 2;
    } else {
      const char *slash = strrchr(o->output_path, '/');
      o->static_name = slash ? slash + 1 : o->output_path;
    }
  }
  if (!err && !status && bundles.count) {
    if (static_library || o->compile_to != KILN_STAGE_SERIALIZE) {
      fputs("kiln-compile: --bundle-io stores check data in a module; it does not go with "
            "--compile-to or --output-format=static-library\n", stderr);
      status = 2;
    }
    bundle_fixup(&bundles);
    s->bundled_cases = bundles.cases;
    s->bundled_case_count = bundles.count;
  }
  if (!err && !status) err = kiln_compile(s);
  if (err) {
    fprintf(stderr, "kiln-compile: error: %s\n", kiln_error_message(err));
    kiln_error_free(err);
    status = 1;
  }
  kiln_session_destroy(s);
  for (uint32_t i = 0; i < bundles.tensor_count; i++) free((char *)bundles.descs[i].name);
  bundle_io_free(&bundles);
  return status;
}
