/* The hal dialect: verifiers and custom syntax for the rows of hal.def. */
#include "dialects.h"
