/* The property the transforms' fuzz target and mutation test check on any
 * input text: parsing it and running any pass never crashes; when the
 * input verifies, the IR still verifies after each pass, and it prints as
 * text that parses and verifies again. Returns false (after printing why)
 * when the property fails. */
#ifndef KILN_TEST_TRANSFORMS_HARNESS_H
#define KILN_TEST_TRANSFORMS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

bool tx_check_passes_on_text(const char *text, size_t len);

#endif
