/* Pieces of the driver shared between its files (prefix kiln_driver_). */
#ifndef KILN_DRIVER_INTERNAL_H
#define KILN_DRIVER_INTERNAL_H

#include "driver.h"

/* Registers translate-executables when the codegen libraries are built;
 * otherwise does nothing (the codegen stage then reports it missing). */
void kiln_driver_register_translate_executables(void);
/* translate_cuda.c: one cuda variant -> GPU pipeline -> PTX in the session. */
kiln_error *kiln_driver_translate_cuda(kiln_session *s, kiln_op *top, kiln_op *exe, kiln_op *var);

#endif
