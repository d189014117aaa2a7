/* Lookups in the HAL import table (kiln/hal_imports.def), for the
 * compiler and for tests. Its own object, so a runtime that does not call
 * it does not carry the table twice. */
#include <string.h>

#include "kiln/vm_bytecode.h"

static const struct {
  const char *name, *signature;
} hal_imports[] = {
#define KILN_HAL_IMPORT(C_NAME, NAME, SIGNATURE, HAL_OP, SEMANTICS) {NAME, SIGNATURE},
#include "kiln/hal_imports.def"
};

const char *kiln_hal_import_signature(const char *name) {
  for (size_t i = 0; i < sizeof hal_imports / sizeof hal_imports[0]; i++)
    if (strcmp(hal_imports[i].name, name) == 0) return hal_imports[i].signature;
  return NULL;
}
