/* Test helper: reads everything in a verified module through the typed
 * accessors and re-checks, independently of the verifier, the invariants
 * it promises. Shared by the corruption tests and the fuzz target. */
#ifndef KILN_TEST_MODULE_WALK_H
#define KILN_TEST_MODULE_WALK_H

#include <stddef.h>

#include "kiln/module_format.h"

/* Returns false with why[] filled when an invariant does not hold; folds
 * every value read into *checksum so the reads cannot be optimized out.
 * Segment payloads up to 16 MiB are also decompressed and hash-checked
 * (failures there are legitimate outcomes and only counted). */
bool kiln_test_module_walk(const kiln_module_view_t *m, uint64_t *checksum,
                           char *why, size_t cap);

#endif /* KILN_TEST_MODULE_WALK_H */
