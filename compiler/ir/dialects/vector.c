/* The vector dialect: verifiers and custom syntax for the rows of vector.def. */
#include "dialects.h"
