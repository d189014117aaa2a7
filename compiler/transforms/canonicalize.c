/* canonicalize: the input stage's clean-up, fold-constants, simplify, cse
 * and dce run in turn until a whole round changes nothing.
 *
 * Takes: any module. Guarantees: the result is a fixed point of the four
 * passes, unless it takes more than CANON_MAX_ROUNDS rounds (each round
 * strictly shrinks or rewrites the IR, so that bound is only reached by
 * enormous inputs; the IR is valid either way). */
#include "tx_internal.h"

#define CANON_MAX_ROUNDS 32

kiln_error *kiln_pass_canonicalize(kiln_op *module, void *user) {
  (void)user;
  for (int round = 0; round < CANON_MAX_ROUNDS; round++) {
    bool changed = false;
    kiln_error *err = tx_fold_constants(module, &changed);
    if (!err) err = tx_simplify(module, &changed);
    if (!err) err = tx_cse(module, &changed);
    if (!err) err = tx_dce(module, &changed);
    if (err) return err;
    if (!changed) break;
  }
  return NULL;
}
