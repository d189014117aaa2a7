/* dce: dead code elimination.
 *
 * Takes: any module. An op is dead when none of its results is used and it
 * has no effect besides its results (tx_op_is_effect_free: pure ops, and
 * linalg/scf ops on tensors whose bodies are effect free). Guarantees:
 * every dead op is erased, including ops that only become dead because
 * their users were (blocks are scanned from the end, nested regions first);
 * terminators, calls, and ops touching buffers are never erased. */
#include "tx_internal.h"

static bool is_dead(const kiln_op *op) {
  if (kiln_op_has_flag(op, KILN_OPF_TERMINATOR)) return false;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (kiln_value_has_uses(&op->results[i])) return false;
  return tx_op_is_effect_free(op);
}

static void dce_region(kiln_region *r, bool *changed);

static void dce_block(kiln_block *b, bool *changed) {
  for (kiln_op *op = b->last; op;) {
    kiln_op *prev = op->prev;
    for (uint32_t i = 0; i < op->num_regions; i++)
      dce_region(kiln_op_region(op, i), changed);
    if (is_dead(op)) {
      kiln_op_erase(op);
      *changed = true;
    }
    op = prev;
  }
}

static void dce_region(kiln_region *r, bool *changed) {
  for (kiln_block *b = r->first; b; b = b->next) dce_block(b, changed);
}

kiln_error *tx_dce(kiln_op *root, bool *changed) {
  /* One backward sweep catches chains inside a block; a value defined
   * outside a region and used only inside it dies in a later sweep. */
  for (int sweep = 0; sweep < 16; sweep++) {
    bool again = false;
    for (uint32_t i = 0; i < root->num_regions; i++)
      dce_region(kiln_op_region(root, i), &again);
    if (!again) break;
    *changed = true;
  }
  return NULL;
}

kiln_error *kiln_pass_dce(kiln_op *module, void *user) {
  (void)user;
  bool changed = false;
  return tx_dce(module, &changed);
}
