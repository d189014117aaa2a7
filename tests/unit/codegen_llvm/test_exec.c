/* Kernels written as memref-level MLIR with hal.interface ops are lowered
 * (scf-to-cf, translation), compiled with the llvm_cpu back end (O3, lld),
 * loaded by the runtime's ELF loader (no dlopen, no libc in the object)
 * and run workgroup by workgroup; results are checked against values
 * computed here. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_ELF_LOADER
int main(void) {
  printf("SKIP: the runtime's ELF loader (kiln_elf) was not available at configure time\n");
  return 77;
}
#else

#include <check.h>
#include <math.h>
#include <string.h>

#include "elf_loader.h"
#include "harness.h"
#include "kiln/executable_abi.h"

typedef struct loaded {
  kiln_elf_image_t image;
  const kiln_export_info_t *export;
} loaded_t;

static loaded_t load(const char *text, const char *name) {
  kiln_llvm_cpu_bytes_t so = {0};
  const char *err = harness_compile(text, &so);
  ck_assert_msg(!err, "%s", err ? err : "");
  loaded_t l;
  memset(&l, 0, sizeof l);
  char msg[256];
  int rc = kiln_elf_load(so.data, so.size, &l.image, msg, sizeof msg);
  kiln_llvm_cpu_bytes_free(&so);
  ck_assert_msg(rc == KILN_ELF_OK, "kiln_elf_load: %s", msg);
  kiln_executable_query_fn q = (kiln_executable_query_fn)(uintptr_t)
      kiln_elf_lookup(&l.image, KILN_EXECUTABLE_QUERY_SYMBOL);
  ck_assert_ptr_nonnull((void *)(uintptr_t)q);
  const kiln_executable_table_t *t = q(KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->export_count, 1);
  ck_assert_str_eq(t->exports[0].name, name);
  l.export = &t->exports[0];
  return l;
}

/* Runs every workgroup of a count[0] x count[1] grid, in reverse order. */
static void run(const loaded_t *l, void **ptrs, uint64_t *lengths, uint32_t nbind,
                const uint32_t *pcs, uint32_t npc, uint32_t gx, uint32_t gy) {
  kiln_dispatch_state_t ds = {
      .workgroup_size = {l->export->workgroup_size[0], l->export->workgroup_size[1],
                         l->export->workgroup_size[2]},
      .workgroup_count = {gx, gy, 1},
      .max_concurrency = 1,
      .push_constant_count = npc,
      .push_constants = pcs,
      .binding_count = nbind,
      .binding_ptrs = ptrs,
      .binding_lengths = lengths,
  };
  for (uint32_t y = gy; y-- > 0;)
    for (uint32_t x = gx; x-- > 0;) {
      kiln_workgroup_state_t ws = {.workgroup_id = {x, y, 0}};
      ck_assert_int_eq(l->export->entry(&ds, &ws), 0);
    }
}

static float *falloc(size_t n) {
  float *p = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  ck_assert_ptr_nonnull(p);
  return p;
}

static const char add_kernel[] =
    "func.func @add() attributes {kiln.launch = {workgroup_size = array<i64: 64, 1, 1>}} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c64 = arith.constant 64 : index\n"
    "  %c1000 = arith.constant 1000 : index\n"
    "  %a = hal.interface.binding {binding = 0 : i32} : memref<1000xf32>\n"
    "  %b = hal.interface.binding {binding = 1 : i32} : memref<1000xf32>\n"
    "  %o = hal.interface.binding {binding = 2 : i32} : memref<1000xf32>\n"
    "  %wg = hal.interface.workgroup.id {dim = 0 : index} : index\n"
    "  %base = arith.muli %wg, %c64 : index\n"
    "  scf.for %i = %c0 to %c64 step %c1 {\n"
    "    %g = arith.addi %base, %i : index\n"
    "    %in = arith.cmpi slt, %g, %c1000 : index\n"
    "    scf.if %in {\n"
    "      %x = memref.load %a[%g] : memref<1000xf32>\n"
    "      %y = memref.load %b[%g] : memref<1000xf32>\n"
    "      %s = arith.addf %x, %y : f32\n"
    "      memref.store %s, %o[%g] : memref<1000xf32>\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

START_TEST(elementwise_add) {
  loaded_t l = load(add_kernel, "add");
  ck_assert_uint_eq(l.export->workgroup_size[0], 64);
  ck_assert_uint_eq(l.export->binding_count, 3);
  ck_assert_uint_eq(l.export->push_constant_count, 0);
  ck_assert_uint_eq(l.export->readonly_binding_mask, 3);
  enum { N = 1000, CAP = 1024 };
  float *a = falloc(CAP), *b = falloc(CAP), *o = falloc(CAP);
  for (int i = 0; i < CAP; i++) {
    a[i] = (float)i * 0.5f - 100.0f;
    b[i] = (float)(i % 17) * 3.0f;
    o[i] = -7.0f;
  }
  void *ptrs[3] = {a, b, o};
  uint64_t lens[3] = {N * 4, N * 4, N * 4};
  run(&l, ptrs, lens, 3, NULL, 0, (N + 63) / 64, 1);
  for (int i = 0; i < N; i++) ck_assert_msg(o[i] == a[i] + b[i], "o[%d] = %g", i, (double)o[i]);
  for (int i = N; i < CAP; i++) ck_assert(o[i] == -7.0f); /* guard: nothing past the end */
  free(a);
  free(b);
  free(o);
  kiln_elf_unload(&l.image);
}
END_TEST

/* C[37x41] = A[37x29] * B[29x41] in 8x8 tiles: workgroup (x, y) owns the
 * tile at rows 8y, cols 8x; partial tiles at the edges are guarded. The
 * output tile is addressed through a memref.subview. */
static const char matmul_kernel[] =
    "func.func @matmul() attributes {kiln.launch = {workgroup_size = array<i64: 8, 8, 1>}} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %M = arith.constant 37 : index\n"
    "  %N = arith.constant 41 : index\n"
    "  %K = arith.constant 29 : index\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %A = hal.interface.binding {binding = 0 : i32} : memref<37x29xf32>\n"
    "  %B = hal.interface.binding {binding = 1 : i32} : memref<29x41xf32>\n"
    "  %C = hal.interface.binding {binding = 2 : i32} : memref<37x41xf32>\n"
    "  %wx = hal.interface.workgroup.id {dim = 0 : index} : index\n"
    "  %wy = hal.interface.workgroup.id {dim = 1 : index} : index\n"
    "  %r0 = arith.muli %wy, %c8 : index\n"
    "  %c0_ = arith.muli %wx, %c8 : index\n"
    "  %rem_r = arith.subi %M, %r0 : index\n"
    "  %rem_c = arith.subi %N, %c0_ : index\n"
    "  %tr = arith.minsi %rem_r, %c8 : index\n"
    "  %tc = arith.minsi %rem_c, %c8 : index\n"
    "  %T = memref.subview %C[%r0, %c0_] [%tr, %tc] [1, 1] : memref<37x41xf32> to memref<?x?xf32, strided<[41, 1], offset: ?>>\n"
    "  scf.for %i = %c0 to %tr step %c1 {\n"
    "    scf.for %j = %c0 to %tc step %c1 {\n"
    "      %gi = arith.addi %r0, %i : index\n"
    "      %gj = arith.addi %c0_, %j : index\n"
    "      %acc = scf.for %k = %c0 to %K step %c1 iter_args(%s = %zero) -> (f32) {\n"
    "        %x = memref.load %A[%gi, %k] : memref<37x29xf32>\n"
    "        %y = memref.load %B[%k, %gj] : memref<29x41xf32>\n"
    "        %p = arith.mulf %x, %y : f32\n"
    "        %s2 = arith.addf %s, %p : f32\n"
    "        scf.yield %s2 : f32\n"
    "      }\n"
    "      memref.store %acc, %T[%i, %j] : memref<?x?xf32, strided<[41, 1], offset: ?>>\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

START_TEST(tiled_matmul) {
  loaded_t l = load(matmul_kernel, "matmul");
  ck_assert_uint_eq(l.export->readonly_binding_mask, 3);
  enum { M = 37, N = 41, K = 29 };
  float *A = falloc(M * K), *B = falloc(K * N), *C = falloc(M * N);
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 13) - 6.0f;
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 11) * 0.5f - 2.0f;
  for (int i = 0; i < M * N; i++) C[i] = NAN;
  void *ptrs[3] = {A, B, C};
  uint64_t lens[3] = {M * K * 4, K * N * 4, M * N * 4};
  run(&l, ptrs, lens, 3, NULL, 0, (N + 7) / 8, (M + 7) / 8);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
      /* Small integers and halves: every sum is exact in any order. */
      ck_assert_msg(C[i * N + j] == s, "C[%d][%d] = %g, expected %g", i, j,
                    (double)C[i * N + j], (double)s);
    }
  free(A);
  free(B);
  free(C);
  kiln_elf_unload(&l.image);
}
END_TEST

/* Vectors: out[w] = sum over the 8-wide row w of (x * s + 1), with s a push
 * constant; 2-D vector load/store copies a 2x8 block through an alloca. */
static const char vector_kernel[] =
    "func.func @vec() attributes {kiln.launch = {workgroup_size = array<i64: 1, 1, 1>}} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %one = arith.constant dense<1.0> : vector<8xf32>\n"
    "  %X = hal.interface.binding {binding = 0 : i32} : memref<16x8xf32>\n"
    "  %O = hal.interface.binding {binding = 1 : i32} : memref<16xf32>\n"
    "  %Y = hal.interface.binding {binding = 2 : i32} : memref<16x8xf32>\n"
    "  %pc = hal.interface.constant {index = 0 : index} : i32\n"
    "  %s = arith.sitofp %pc : i32 to f32\n"
    "  %w = hal.interface.workgroup.id {dim = 0 : index} : index\n"
    "  %x = vector.load %X[%w, %c0] : memref<16x8xf32>, vector<8xf32>\n"
    "  %sv = vector.broadcast %s : f32 to vector<8xf32>\n"
    "  %f = vector.fma %x, %sv, %one : vector<8xf32>\n"
    "  %r = vector.reduction <add>, %f : vector<8xf32> into f32\n"
    "  memref.store %r, %O[%w] : memref<16xf32>\n"
    "  %e = vector.extract %f[3] : f32 from vector<8xf32>\n"
    "  %g = vector.insert %e, %x [0] : f32 into vector<8xf32>\n"
    "  %tmp = memref.alloca() : memref<2x8xf32>\n"
    "  %g2 = vector.broadcast %g : vector<8xf32> to vector<2x8xf32>\n"
    "  vector.store %g2, %tmp[%c0, %c0] : memref<2x8xf32>, vector<2x8xf32>\n"
    "  %back = vector.load %tmp[%c0, %c0] : memref<2x8xf32>, vector<2x8xf32>\n"
    "  %row = vector.extract %back[1] : vector<8xf32> from vector<2x8xf32>\n"
    "  vector.store %row, %Y[%w, %c0] : memref<16x8xf32>, vector<8xf32>\n"
    "  return\n"
    "}\n";

START_TEST(vectors) {
  loaded_t l = load(vector_kernel, "vec");
  ck_assert_uint_eq(l.export->push_constant_count, 1);
  ck_assert_uint_eq(l.export->readonly_binding_mask, 1);
  float *X = falloc(128), *O = falloc(16), *Y = falloc(128);
  for (int i = 0; i < 128; i++) X[i] = (float)(i % 9) - 4.0f;
  void *ptrs[3] = {X, O, Y};
  uint64_t lens[3] = {512, 64, 512};
  uint32_t pcs[1] = {3};
  run(&l, ptrs, lens, 3, pcs, 1, 16, 1);
  for (int w = 0; w < 16; w++) {
    float s = 0;
    for (int k = 0; k < 8; k++) s += X[w * 8 + k] * 3.0f + 1.0f;
    ck_assert_msg(O[w] == s, "O[%d] = %g, expected %g", w, (double)O[w], (double)s);
    ck_assert(Y[w * 8] == X[w * 8 + 3] * 3.0f + 1.0f);
    for (int k = 1; k < 8; k++) ck_assert(Y[w * 8 + k] == X[w * 8 + k]);
  }
  free(X);
  free(O);
  free(Y);
  kiln_elf_unload(&l.image);
}
END_TEST

/* Views and copies: collapse_shape, memref.copy into an alloca,
 * reinterpret_cast, a strided subview (column step 2), copy between
 * strided views, expand_shape, and dim through a cast to dynamic sizes. */
static const char views_kernel[] =
    "func.func @views() {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c2 = arith.constant 2 : index\n"
    "  %c3 = arith.constant 3 : index\n"
    "  %c10 = arith.constant 10 : index\n"
    "  %c11 = arith.constant 11 : index\n"
    "  %X = hal.interface.binding {binding = 0 : i32} : memref<6x8xf32>\n"
    "  %O = hal.interface.binding {binding = 1 : i32} : memref<48xf32>\n"
    "  %P = hal.interface.binding {binding = 2 : i32} : memref<4x12xf32>\n"
    "  %c = memref.collapse_shape %X [[0, 1]] : memref<6x8xf32> into memref<48xf32>\n"
    "  memref.copy %c, %O : memref<48xf32> to memref<48xf32>\n"
    "  %t = memref.alloca() : memref<48xf32>\n"
    "  memref.copy %c, %t : memref<48xf32> to memref<48xf32>\n"
    "  %r = memref.reinterpret_cast %t to offset: [0], sizes: [4, 12], strides: [12, 1] : memref<48xf32> to memref<4x12xf32>\n"
    "  %sv = memref.subview %r[1, 2] [2, 5] [1, 2] : memref<4x12xf32> to memref<2x5xf32, strided<[12, 2], offset: 14>>\n"
    "  %dst = memref.subview %P[0, 0] [2, 5] [1, 1] : memref<4x12xf32> to memref<2x5xf32, strided<[12, 1]>>\n"
    "  memref.copy %sv, %dst : memref<2x5xf32, strided<[12, 2], offset: 14>> to memref<2x5xf32, strided<[12, 1]>>\n"
    "  %e = memref.expand_shape %O [[0, 1]] output_shape [6, 8] : memref<48xf32> into memref<6x8xf32>\n"
    "  %v = memref.load %e[%c2, %c3] : memref<6x8xf32>\n"
    "  memref.store %v, %P[%c3, %c11] : memref<4x12xf32>\n"
    "  %dyn = memref.cast %P : memref<4x12xf32> to memref<?x?xf32>\n"
    "  %d1 = memref.dim %dyn, %c1 : memref<?x?xf32>\n"
    "  %di = arith.index_cast %d1 : index to i32\n"
    "  %df = arith.sitofp %di : i32 to f32\n"
    "  memref.store %df, %dyn[%c3, %c10] : memref<?x?xf32>\n"
    "  return\n"
    "}\n";

START_TEST(views_and_copies) {
  loaded_t l = load(views_kernel, "views");
  ck_assert_uint_eq(l.export->readonly_binding_mask, 1);
  float *X = falloc(48), *O = falloc(48), *P = falloc(48);
  for (int i = 0; i < 48; i++) {
    X[i] = (float)(i * 3 + 1);
    O[i] = -1;
    P[i] = 0;
  }
  void *ptrs[3] = {X, O, P};
  uint64_t lens[3] = {192, 192, 192};
  run(&l, ptrs, lens, 3, NULL, 0, 1, 1);
  for (int i = 0; i < 48; i++) ck_assert(O[i] == X[i]);
  float want[48] = {0};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 5; j++) want[i * 12 + j] = X[(1 + i) * 12 + 2 + 2 * j];
  want[3 * 12 + 11] = X[2 * 8 + 3];
  want[3 * 12 + 10] = 12.0f;
  for (int i = 0; i < 48; i++)
    ck_assert_msg(P[i] == want[i], "P[%d] = %g, expected %g", i, (double)P[i], (double)want[i]);
  free(X);
  free(O);
  free(P);
  kiln_elf_unload(&l.image);
}
END_TEST

/* Partial tiles through transfers: 37 elements in steps of 8; the last
 * read pads with 0 and the last write leaves the elements past the end
 * alone (the buffer is larger than the binding's memref). */
static const char transfer_kernel[] =
    "func.func @xfer() {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %n = arith.constant 37 : index\n"
    "  %pad = arith.constant 0.0 : f32\n"
    "  %two = arith.constant dense<2.0> : vector<8xf32>\n"
    "  %X = hal.interface.binding {binding = 0 : i32} : memref<37xf32>\n"
    "  %Y = hal.interface.binding {binding = 1 : i32} : memref<37xf32>\n"
    "  %S = hal.interface.binding {binding = 2 : i32} : memref<1xf32>\n"
    "  %sum = scf.for %i = %c0 to %n step %c8 iter_args(%acc = %pad) -> (f32) {\n"
    "    %v = vector.transfer_read %X[%i], %pad : memref<37xf32>, vector<8xf32>\n"
    "    %w = arith.mulf %v, %two : vector<8xf32>\n"
    "    vector.transfer_write %w, %Y[%i] : vector<8xf32>, memref<37xf32>\n"
    "    %r = vector.reduction <add>, %v, %acc : vector<8xf32> into f32\n"
    "    scf.yield %r : f32\n"
    "  }\n"
    "  memref.store %sum, %S[%c0] : memref<1xf32>\n"
    "  return\n"
    "}\n";

START_TEST(partial_tile_transfers) {
  loaded_t l = load(transfer_kernel, "xfer");
  float *X = falloc(48), *Y = falloc(48), *S = falloc(16);
  float want = 0;
  for (int i = 0; i < 48; i++) {
    X[i] = i < 37 ? (float)(i % 5) + 0.5f : 1000.0f; /* past the end: must not count */
    Y[i] = -3.0f;
    if (i < 37) want += X[i];
  }
  void *ptrs[3] = {X, Y, S};
  uint64_t lens[3] = {37 * 4, 37 * 4, 4};
  run(&l, ptrs, lens, 3, NULL, 0, 1, 1);
  for (int i = 0; i < 37; i++) ck_assert_msg(Y[i] == 2 * X[i], "Y[%d] = %g", i, (double)Y[i]);
  for (int i = 37; i < 48; i++) ck_assert_msg(Y[i] == -3.0f, "Y[%d] written past the end", i);
  ck_assert_msg(S[0] == want, "sum %g, expected %g", (double)S[0], (double)want);
  free(X);
  free(Y);
  free(S);
  kiln_elf_unload(&l.image);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_to_llvm_exec");
  TCase *tc = tcase_create("exec");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, elementwise_add);
  tcase_add_test(tc, tiled_matmul);
  tcase_add_test(tc, vectors);
  tcase_add_test(tc, views_and_copies);
  tcase_add_test(tc, partial_tile_transfers);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
#endif
