/* The compile session: what one kiln-compile run knows besides the IR.
 *
 * Takes: options from the command line (or a test). Holds: the targets,
 * the rodata blobs (constants too large for attributes) and the
 * executable payloads (.so / .ptx bytes) that stages produce, keyed by
 * symbol names, never stored in IR attributes (PIPELINE.md). Guarantees:
 * entries keep the order they were added in (serialize writes them in
 * that order, so output is deterministic); owned bytes are freed by
 * kiln_session_destroy; borrowed ones must outlive the session.
 *
 * Stages reach the session of the IR they transform through its context:
 * kiln_session_of(kiln_op_context(module)). */
#ifndef KILN_SESSION_H
#define KILN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stages in pipeline order; --compile-to names them. */
#define KILN_STAGES(X) \
  X(INPUT, "input")    \
  X(FLOW, "flow")      \
  X(HAL, "hal")        \
  X(CODEGEN, "codegen") \
  X(LLVM_IR, "llvm-ir") \
  X(VM, "vm")          \
  X(SERIALIZE, "serialize")

typedef enum kiln_stage {
#define KILN_STAGE_ENUM(ID, NAME) KILN_STAGE_##ID,
  KILN_STAGES(KILN_STAGE_ENUM)
#undef KILN_STAGE_ENUM
  KILN_STAGE_COUNT
} kiln_stage_t;

const char *kiln_stage_name(kiln_stage_t s);
/* KILN_STAGE_COUNT when the name is unknown. */
kiln_stage_t kiln_stage_lookup(const char *name);

/* How serialize stores executable payloads (--compression=). AUTO:
 * PTX zstd-compressed when that pays, CPU ELF uncompressed (mappable);
 * NONE: nothing compressed, for a runtime built without zstd; ALWAYS:
 * every payload compressed (tests of the decompressing path). */
typedef enum kiln_compression {
  KILN_COMPRESSION_AUTO = 0,
  KILN_COMPRESSION_NONE,
  KILN_COMPRESSION_ALWAYS,
} kiln_compression_t;

typedef struct kiln_session_options {
  const char *input_path;
  const char *output_path;
  kiln_stage_t compile_to;   /* KILN_STAGE_SERIALIZE: write the module */
  bool print_debuginfo;      /* IR output carries source nodes as loc(...) */
  bool print_ir_after_all;
  const char *print_ir_after; /* comma-separated pass names, or NULL */
  bool timing;
  FILE *dump;                 /* where IR dumps and timings go (stderr) */
  /* Threads compiling executables (0: one per online core). Neither this
   * nor timing changes the output. */
  unsigned jobs;
  kiln_compression_t compression; /* executable payloads (zero: auto) */
  bool allow_unregistered;    /* accept ops outside the op table in the input */
  /* --output-format=static-library: compile through codegen, keep each
   * llvm-cpu variant as a relocatable object whose entry points are global
   * symbols named by kiln_session_static_entry_symbol, and write
   * DIR/NAME.h and DIR/NAME.a (compiler/static_library) instead of a
   * module. static_name is NAME (a C identifier), NULL otherwise. */
  const char *static_name;
  /* --weights=external (static library only): the weights go to
   * DIR/NAME.weights, which the app maps and hands to NAME_set_weights. */
  bool static_weights_external;
} kiln_session_options_t;

typedef struct kiln_session_rodata {
  const char *name;
  const void *data;
  uint64_t size;
  uint32_t alignment;
  bool owned;
} kiln_session_rodata_t;

/* OBJECT: a relocatable ELF object (static-library output only). */
typedef enum { KILN_PAYLOAD_ELF, KILN_PAYLOAD_PTX, KILN_PAYLOAD_OBJECT } kiln_payload_format_t;

typedef struct kiln_session_payload {
  char *executable;  /* hal.executable symbol */
  char *variant;     /* hal.executable.variant symbol, "" = any variant */
  kiln_payload_format_t format;
  char *arch;        /* "x86_64", or NULL: from the variant's target */
  char *features;    /* LLVM feature list "+avx2,+fma", or NULL */
  uint32_t sm_version;
  void *data;        /* owned */
  uint64_t size;
  char llvm_version[16]; /* "19.1.7" when LLVM generated it, else "" */
} kiln_session_payload_t;

/* A shape fixed at compile time: --dim=NAME=N (an ONNX dim_param; rank
 * 0, dims[0] = N), --sequence-length=NAME=N (an ONNX sequence input's
 * length; is_seq, dims[0] = N) or --static-shape=NAME=D0xD1x... (an ONNX
 * input name, NAME[k] for an element of a sequence input, or FUNC:INDEX
 * for MLIR input). */
typedef struct kiln_session_shape {
  char *name;
  bool is_dim, is_seq;
  uint32_t rank;
  int64_t dims[16];
} kiln_session_shape;

struct kiln_module_bundled_case_desc; /* kiln/module_builder.h */

typedef struct kiln_session {
  kiln_session_options_t options;
  char **targets;    /* --target values in order; default {"llvm-cpu"} */
  uint32_t target_count;
  char **flags;      /* command line, for the module's producer record */
  uint32_t flag_count;
  kiln_session_rodata_t *rodata;
  uint32_t rodata_count, rodata_cap;
  kiln_session_payload_t *payloads;
  uint32_t payload_count, payload_cap;
  kiln_context *ctx; /* attached IR context, or NULL */
  /* The input's provenance for the module (kiln_session_record_input):
   * its base name (owned, or NULL) and the SHA-256 of its bytes ("" when
   * not recorded). */
  char *input_name;
  char input_sha256[65];
  /* Work a target's pass leaves for a later pass of the same target
   * (translate-llvm-cpu queues LLVM modules that compile-llvm-cpu then
   * compiles on --jobs threads): opaque here, released by pending_free
   * with the session if still there. */
  void *pending;
  void (*pending_free)(void *pending);
  kiln_session_shape *shapes; /* --dim and --static-shape, in order */
  uint32_t shape_count;
  /* --bundle-io check data, owned by the caller: serialize stores each
   * case with the module (a case without a function name goes with the
   * module's one exported function). */
  const struct kiln_module_bundled_case_desc *bundled_cases;
  uint32_t bundled_case_count;
} kiln_session;

kiln_session *kiln_session_create(void);
void kiln_session_destroy(kiln_session *s);

kiln_error *kiln_session_add_target(kiln_session *s, const char *target);
/* The targets to compile for: the --target values, or {"llvm-cpu"} (the
 * host) when none was given. */
uint32_t kiln_session_targets(const kiln_session *s, const char *const **out);
kiln_error *kiln_session_add_flag(kiln_session *s, const char *flag);
/* Marks the payload of executable/variant as generated by LLVM
 * MAJOR.MINOR.PATCH (the module records it per variant). */
void kiln_session_note_llvm(kiln_session *s, const char *executable, const char *variant,
                            unsigned major, unsigned minor, unsigned patch);
/* Records the input file's base name and SHA-256 (what `sha256sum PATH`
 * prints) for the module's provenance. */
kiln_error *kiln_session_record_input(kiln_session *s, const char *path);
/* "NAME=N" (--dim) and "NAME=D0xD1x..." (--static-shape; "NAME=" is a
 * rank-0 shape): parsed and checked (dims in 0..2^31, at most 16, the
 * name not bound twice). */
kiln_error *kiln_session_add_dim(kiln_session *s, const char *spec);
kiln_error *kiln_session_add_static_shape(kiln_session *s, const char *spec);
/* "NAME=N" (--sequence-length): ONNX sequence input NAME holds N tensors. */
kiln_error *kiln_session_add_sequence_length(kiln_session *s, const char *spec);

/* Adds a rodata blob; returns its index (what hal.buffer.rodata names)
 * through *index. copy: the session keeps its own copy; otherwise data
 * must outlive the session. alignment: a power of two <= 64. */
kiln_error *kiln_session_add_rodata(kiln_session *s, const char *name,
                                    const void *data, uint64_t size,
                                    uint32_t alignment, bool copy,
                                    uint32_t *index);
/* Stores (a copy of) a payload for executable/variant, replacing an
 * earlier one with the same keys. variant "" matches every variant of the
 * executable that has no payload of its own. */
kiln_error *kiln_session_set_payload(kiln_session *s, const char *executable,
                                     const char *variant,
                                     kiln_payload_format_t format,
                                     const char *arch, const char *features,
                                     const void *data, uint64_t size);
/* The payload for executable/variant (exact key first, then variant ""),
 * or NULL. */
const kiln_session_payload_t *kiln_session_payload(const kiln_session *s,
                                                   const char *executable,
                                                   const char *variant);

/* The global symbol of kernel EXPORT in static-library output for library
 * NAME: "NAME_k_" then the export name with [A-Za-z0-9] kept, '_' doubled
 * and any other byte written "_XX" (hex), so distinct export names give
 * distinct symbols. Owned by the caller; NULL when out of memory. */
char *kiln_session_static_entry_symbol(const char *name, const char *export_name);

/* Associates s with ctx (one session per context; s = NULL detaches the
 * context's session) / finds it again. Detach before destroying ctx; a
 * session destroyed first detaches itself. */
void kiln_session_attach(kiln_session *s, kiln_context *ctx);
kiln_session *kiln_session_of(const kiln_context *ctx);

/* What a target's last pass (it stores the variant's payload) knows of
 * the variant whose inner module it runs on. */
typedef struct kiln_session_variant {
  kiln_session *session;
  kiln_op *executable, *variant;  /* the hal.executable and its variant */
  const char *executable_name, *variant_name, *target;
  bool has_payload;               /* substituted: nothing to generate */
} kiln_session_variant;
/* Fills *out for INNER, the inner module of a hal.executable.variant with
 * a target string, in a context with a session; otherwise an error naming
 * PASS and what is missing. */
kiln_error *kiln_session_variant_of(kiln_op *inner, const char *pass, kiln_session_variant *out);

#ifdef __cplusplus
}
#endif
#endif /* KILN_SESSION_H */
