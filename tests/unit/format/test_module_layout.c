/* Layout guarantees: (must-show 4) a module whose segments lie beyond 4 GB
 * is representable and verifies, using a sparse file so no gigabytes are
 * written; (must-show 5) the same content builds to the same bytes, from
 * separate builders, repeated finishes, the file writer and the descriptor
 * writer alike (which also report write errors by cause). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kiln/module_builder.h"
#include "kiln/module_zstd.h"
#include "sample_module.h"

#define GiB (1ull << 30)

static void build(const kiln_sample_options_t *o, uint8_t **data, size_t *size) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_sample_module_fill(b, o);
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(b, data, size, &err), "%s", err.message);
  kiln_module_builder_destroy(b);
}

START_TEST(test_segments_beyond_4gb) {
  kiln_sample_options_t o = {true, KILN_MODULE_COMPRESS_AUTO};
  uint8_t *mod;
  size_t size;
  build(&o, &mod, &size);
  kiln_module_view_t m;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&m, mod, size, &err));
  uint32_t n = kiln_fb_Module_segments_count(m.root);
  ck_assert_uint_ge(n, 4);

  /* Move every segment past 4 GB (the first just past 2^32, the rest a
   * GiB apart), patching the 64-bit offsets in place, then write the
   * FlatBuffer and each segment into a sparse file at those offsets. */
  char path[] = "/tmp/kiln-4gb-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  unlink(path);
  uint8_t *fb = malloc((size_t)m.flatbuffer_size);
  memcpy(fb, mod, (size_t)m.flatbuffer_size);
  uint64_t end = 0;
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(m.root, i);
    uint64_t old = kiln_fb_Segment_offset(s), len = kiln_fb_Segment_size(s);
    uint64_t now = i == 0 ? 4 * GiB + 64 : (4 + i) * GiB;
    const uint8_t *field = kiln_fb_field(s.p, 1);
    ck_assert_ptr_nonnull(field);
    memcpy(fb + (field - mod), &now, 8);
    ck_assert_int_eq(pwrite(fd, mod + old, (size_t)len, (off_t)now), (ssize_t)len);
    end = now + len;
  }
  ck_assert_int_eq(pwrite(fd, fb, (size_t)m.flatbuffer_size, 0),
                   (ssize_t)m.flatbuffer_size);
  ck_assert_int_eq(ftruncate(fd, (off_t)end), 0);
  ck_assert_uint_gt(end, 4 * GiB + (uint64_t)n - 1);

  uint8_t *map = mmap(NULL, (size_t)end, PROT_READ, MAP_PRIVATE, fd, 0);
  ck_assert_ptr_ne(map, MAP_FAILED);
  kiln_module_view_t big;
  ck_assert_msg(kiln_module_view_open(&big, map, end, &err), "%s", err.message);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(big.root, i);
    ck_assert_uint_gt(kiln_fb_Segment_offset(s), 4 * GiB);
    uint64_t len, old_len;
    const uint8_t *now = kiln_module_segment_data(&big, i, &len);
    const uint8_t *was = kiln_module_segment_data(&m, i, &old_len);
    ck_assert_uint_eq(len, old_len);
    ck_assert_int_eq(memcmp(now, was, (size_t)len), 0);
    uint64_t un = kiln_fb_Segment_uncompressed_size(s);
    uint8_t *out = malloc(un ? un : 1);
    ck_assert_msg(kiln_module_segment_read(&big, i, out, un, &err), "%s", err.message);
    free(out);
  }
  /* One byte short: the last segment no longer fits, and the message
   * carries the full 64-bit offset. */
  ck_assert(!kiln_module_view_open(&big, map, end - 1, &err));
  char want[128];
  kiln_fb_Segment_t last = kiln_fb_Module_segments_at(m.root, n - 1);
  snprintf(want, sizeof want, "segments[%u]: bytes %llu+%llu run past the end", n - 1,
           (unsigned long long)((4 + n - 1) * GiB),
           (unsigned long long)kiln_fb_Segment_size(last));
  ck_assert_msg(strstr(err.message, want), "%s", err.message);
  munmap(map, (size_t)end);
  close(fd);
  free(fb);
  free(mod);
}
END_TEST

START_TEST(test_deterministic_bytes) {
  for (int large = 0; large < 2; large++) {
    kiln_sample_options_t o = {large, KILN_MODULE_COMPRESS_AUTO};
    uint8_t *a, *b;
    size_t na, nb;
    build(&o, &a, &na);
    build(&o, &b, &nb);
    ck_assert_uint_eq(na, nb);
    ck_assert_int_eq(memcmp(a, b, na), 0);

    /* Same builder, finished twice, and streamed to a file. */
    kiln_module_builder_t *bld = kiln_module_builder_create();
    kiln_sample_module_fill(bld, &o);
    uint8_t *c, *d;
    size_t nc, nd;
    kiln_format_error_t err;
    ck_assert(kiln_module_builder_finish(bld, &c, &nc, &err));
    ck_assert(kiln_module_builder_finish(bld, &d, &nd, &err));
    char path[] = "/tmp/kiln-det-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_msg(kiln_module_builder_write_file(bld, path, &err), "%s", err.message);
    FILE *fp = fopen(path, "rb");
    uint8_t *e = malloc(na + 1);
    size_t ne = fread(e, 1, na + 1, fp);
    fclose(fp);
    /* Streamed to a descriptor: written at its position, left open. */
    fd = open(path, O_RDWR | O_TRUNC);
    ck_assert_int_eq(write(fd, "HDR", 3), 3);
    ck_assert_msg(kiln_module_builder_write_fd(bld, fd, &err), "%s", err.message);
    ck_assert_int_eq(write(fd, "!", 1), 1);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    uint8_t *g = malloc(na + 8);
    ck_assert_int_eq(read(fd, g, na + 8), (ssize_t)na + 4);
    close(fd);
    ck_assert(memcmp(g, "HDR", 3) == 0 && g[na + 3] == '!');
    ck_assert_int_eq(memcmp(g + 3, a, na), 0);
    free(g);
    /* Write errors name the cause; a failed write_file leaves no file. */
    ck_assert(!kiln_module_builder_write_fd(bld, fd, &err));
    ck_assert_msg(strstr(err.message, "write failed: Bad file descriptor"), "%s", err.message);
    ck_assert(!kiln_module_builder_write_file(bld, "/nonexistent-dir/m.kiln", &err));
    ck_assert_msg(strstr(err.message, "cannot create /nonexistent-dir/m.kiln: No such file"),
                  "%s", err.message);
    fd = open("/dev/full", O_WRONLY);
    if (fd >= 0) {
      ck_assert(!kiln_module_builder_write_fd(bld, fd, &err));
      ck_assert_msg(strstr(err.message, "write failed: No space left on device"), "%s",
                    err.message);
      close(fd);
    }
    kiln_module_builder_destroy(bld);
    unlink(path);
    ck_assert_uint_eq(nc, na);
    ck_assert_uint_eq(nd, na);
    ck_assert_uint_eq(ne, na);
    ck_assert_int_eq(memcmp(a, c, na), 0);
    ck_assert_int_eq(memcmp(a, d, na), 0);
    ck_assert_int_eq(memcmp(a, e, na), 0);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
  }
}
END_TEST

/* Different content must give different bytes (guards against a
 * determinism test that passes because nothing is written). */
START_TEST(test_content_changes_bytes) {
  kiln_sample_options_t o = {false, KILN_MODULE_COMPRESS_AUTO};
  uint8_t *a, *b;
  size_t na, nb;
  build(&o, &a, &na);
  kiln_module_builder_t *bld = kiln_module_builder_create();
  kiln_sample_module_fill(bld, &o);
  kiln_module_builder_set_name(bld, "sampla");
  kiln_format_error_t err;
  ck_assert(kiln_module_builder_finish(bld, &b, &nb, &err));
  kiln_module_builder_destroy(bld);
  ck_assert(na != nb || memcmp(a, b, na) != 0);
  free(a);
  free(b);
}
END_TEST

/* A module larger than the fd writer's 2 MiB staging, streamed from an
 * odd file position: the staged edges and the blocks written straight
 * from a borrowed segment must give finish()'s bytes exactly. */
START_TEST(test_streamed_blocks) {
  const size_t big = ((size_t)5 << 20) + 12345;
  uint8_t *w = malloc(big);
  ck_assert_ptr_nonnull(w);
  for (size_t i = 0; i < big; i++) w[i] = (uint8_t)(i * 2654435761u >> 13);
  kiln_sample_options_t o = {true, KILN_MODULE_COMPRESS_AUTO};
  kiln_module_builder_t *bld = kiln_module_builder_create();
  kiln_sample_module_fill(bld, &o);
  kiln_module_builder_add_rodata_borrowed(bld, "big", w, big, 64);
  kiln_module_builder_add_rodata(bld, "after", w + 7, 3000, 4);
  uint8_t *a;
  size_t na;
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(bld, &a, &na, &err), "%s", err.message);
  ck_assert_uint_gt(na, big);
  char path[] = "/tmp/kiln-blocks-XXXXXX";
  for (size_t lead = 0; lead < 3; lead++) {
    const size_t at = lead == 0 ? 0 : lead == 1 ? 3 : ((size_t)2 << 20) - 5;
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)at), 0);
    ck_assert_int_eq(lseek(fd, (off_t)at, SEEK_SET), (off_t)at);
    ck_assert_msg(kiln_module_builder_write_fd(bld, fd, &err), "%s", err.message);
    uint8_t *g = malloc(na + 1);
    ck_assert_int_eq(pread(fd, g, na + 1, (off_t)at), (ssize_t)na);
    ck_assert_int_eq(memcmp(g, a, na), 0);
    free(g);
    close(fd);
    unlink(path);
    memcpy(path + sizeof path - 7, "XXXXXX", 6);
  }
  kiln_module_builder_destroy(bld);
  free(a);
  free(w);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_layout");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_segments_beyond_4gb);
  tcase_add_test(tc, test_deterministic_bytes);
  tcase_add_test(tc, test_content_changes_bytes);
  tcase_add_test(tc, test_streamed_blocks);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
