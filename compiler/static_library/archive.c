/* Writes a static archive in the System V / GNU `ar` format that ld, lld
 * and ar read: "!<arch>\n", a symbol index member "/" (big-endian count,
 * member header offsets, NUL-terminated names) so that linkers pull a
 * member by the symbols it defines, then each member with a 60-byte header
 * and its bytes padded to an even size. LLVM's archive writer is C++ only
 * (llvm-c has no binding for it), and the format is small enough to write
 * here. Deterministic: dates, owners and groups are 0, mode 644. Member
 * names must fit the 15 characters of a short name. */
#include <stdlib.h>
#include <string.h>

#include "sl_internal.h"

static void sl_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void sl_header(FILE *f, const char *name, uint64_t size) {
  char h[61];
  snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10llu`\n", name, "0", "0", "0", "644",
           (unsigned long long)size);
  fwrite(h, 1, 60, f);
}

kiln_error *sl_archive_write(const sl_member *members, uint32_t count, FILE *f) {
  uint64_t nsym = 0, names = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (strlen(members[i].name) > 15) return kiln_error_new("archive member name '%s' is too long", members[i].name);
    for (const char *const *s = members[i].symbols; s && *s; s++) nsym++, names += strlen(*s) + 1;
  }
  const uint64_t index_size = 4 + 4 * nsym + names;
  /* Member offsets: the magic, the index (padded to even), then members. */
  uint64_t offset = 8 + 60 + index_size + (index_size & 1);
  uint8_t *index = malloc(index_size + 1);
  if (!index) return kiln_error_new("out of memory");
  if (nsym > UINT32_MAX || offset > UINT32_MAX) {
    free(index);
    return kiln_error_new("the archive is too large for a 32-bit symbol index");
  }
  sl_be32(index, (uint32_t)nsym);
  uint8_t *offs = index + 4, *str = index + 4 + 4 * nsym;
  for (uint32_t i = 0; i < count; i++) {
    if (offset > UINT32_MAX) {
      free(index);
      return kiln_error_new("the archive is too large for a 32-bit symbol index");
    }
    for (const char *const *s = members[i].symbols; s && *s; s++) {
      sl_be32(offs, (uint32_t)offset);
      offs += 4;
      const size_t len = strlen(*s) + 1;
      memcpy(str, *s, len);
      str += len;
    }
    offset += 60 + members[i].size + (members[i].size & 1);
  }
  fwrite("!<arch>\n", 1, 8, f);
  sl_header(f, "/", index_size);
  fwrite(index, 1, index_size, f);
  if (index_size & 1) fputc('\n', f);
  free(index);
  for (uint32_t i = 0; i < count; i++) {
    char name[17];
    snprintf(name, sizeof name, "%s/", members[i].name);
    sl_header(f, name, members[i].size);
    if (members[i].size) fwrite(members[i].data, 1, members[i].size, f);
    if (members[i].size & 1) fputc('\n', f);
  }
  return ferror(f) ? kiln_error_new("writing the archive failed") : NULL;
}
