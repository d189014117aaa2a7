/* The memref dialect: verifiers and custom syntax for the rows of memref.def. */
#include "dialects.h"
