/* kiln-dump: inspect a .kiln module.
 *   kiln-dump [--json | --raw-json] [--extract=DIR] [--check-hashes] FILE
 * --check-hashes decompresses every segment and checks its content hash
 * (open-time verification does not read payloads).
 * The file is mapped read-only and verified with the runtime's verifier
 * first; a module that does not verify is reported with the verifier's
 * message and exit status 1, and nothing else is printed. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "kiln/module_zstd.h"
#include "tool_version.h"

/* Keeps a variant's name usable as a file name. */
static void kd_sanitize(char *s) {
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
      *s = '_';
}

int kdump_extract(const kiln_module_view_t *m, const char *dir) {
  kiln_fb_Module_t r = m->root;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "kiln-dump: cannot create %s: %s\n", dir, strerror(errno));
    return 1;
  }
  for (uint32_t i = 0; i < kiln_fb_Module_executables_count(r); i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, i);
    for (uint32_t v = 0; v < kiln_fb_Executable_variants_count(e); v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      uint32_t si = kiln_fb_ExecutableVariant_segment(var);
      uint64_t size =
          kiln_fb_Segment_uncompressed_size(kiln_fb_Module_segments_at(r, si));
      char name[512];
      snprintf(name, sizeof name, "%s_%s", kiln_fb_Executable_name(e).data,
               kiln_fb_ExecutableVariant_name(var).data);
      kd_sanitize(name);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.%s", dir, name,
               kiln_fb_ExecutableVariant_format(var) == kiln_fb_PayloadFormat_PTX
                   ? "ptx" : "so");
      uint8_t *buf = size == (size_t)size ? malloc(size ? (size_t)size : 1) : NULL;
      kiln_format_error_t err;
      if (!buf) {
        fprintf(stderr, "kiln-dump: %s: cannot allocate %" PRIu64 " bytes\n",
                name, size);
        return 1;
      }
      if (!kiln_module_segment_read(m, si, buf, size, &err)) {
        fprintf(stderr, "kiln-dump: %s: %s\n", name, err.message);
        free(buf);
        return 1;
      }
      FILE *fp = fopen(path, "wb");
      bool ok = fp && fwrite(buf, 1, (size_t)size, fp) == size;
      if (fp && fclose(fp) != 0) ok = false;
      free(buf);
      if (!ok) {
        fprintf(stderr, "kiln-dump: cannot write %s\n", path);
        return 1;
      }
      printf("extracted %s (%" PRIu64 " bytes)\n", path, size);
    }
  }
  return 0;
}

/* Reads every segment back (decompressing) and checks its hash. */
static int kd_check_hashes(const kiln_module_view_t *m) {
  int bad = 0;
  for (uint32_t i = 0; i < kiln_fb_Module_segments_count(m->root); i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(m->root, i);
    uint64_t size = kiln_fb_Segment_uncompressed_size(s);
    uint8_t *buf = size == (size_t)size ? malloc(size ? (size_t)size : 1) : NULL;
    kiln_format_error_t err;
    if (!buf) {
      fprintf(stderr, "kiln-dump: segments[%" PRIu32 "]: cannot allocate %"
              PRIu64 " bytes\n", i, size);
      bad = 1;
    } else if (!kiln_module_segment_read(m, i, buf, size, &err)) {
      fprintf(stderr, "kiln-dump: %s\n", err.message);
      bad = 1;
    }
    free(buf);
  }
  printf("content hashes: %s\n", bad ? "MISMATCH" : "all ok");
  return bad;
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-dump", NULL)) return 0;
  enum { TEXT, JSON, RAW_JSON } mode = TEXT;
  const char *path = NULL, *extract = NULL;
  bool check = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) mode = JSON;
    else if (strcmp(argv[i], "--raw-json") == 0) mode = RAW_JSON;
    else if (strncmp(argv[i], "--extract=", 10) == 0 && argv[i][10]) extract = argv[i] + 10;
    else if (strcmp(argv[i], "--check-hashes") == 0) check = true;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else {
      fprintf(stderr, "kiln-dump: unknown argument '%s'\n", argv[i]);
      path = NULL;
      break;
    }
  }
  if (!path) {
    fprintf(stderr, "usage: kiln-dump [--json | --raw-json] [--extract=DIR] "
                    "[--check-hashes] FILE\n");
    return 2;
  }
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    fprintf(stderr, "kiln-dump: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  uint64_t size = (uint64_t)st.st_size;
  void *map = NULL;
  if (size) {
    map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      fprintf(stderr, "kiln-dump: cannot map %s: %s\n", path, strerror(errno));
      close(fd);
      return 1;
    }
  }
  close(fd);
  kiln_module_view_t m;
  kiln_format_error_t err;
  int rc = 1;
  if (!kiln_module_view_open(&m, map, size, &err)) {
    fprintf(stderr, "kiln-dump: %s: invalid module: %s\n", path, err.message);
  } else {
    rc = mode == JSON       ? kdump_json(stdout, &m, path)
         : mode == RAW_JSON ? kdump_raw_json(stdout, &m)
                            : kdump_text(stdout, &m, path);
    if (rc == 0 && check) rc = kd_check_hashes(&m);
    if (rc == 0 && extract) rc = kdump_extract(&m, extract);
  }
  if (map) munmap(map, (size_t)size);
  if (fflush(stdout) != 0) rc = 1;
  return rc;
}
