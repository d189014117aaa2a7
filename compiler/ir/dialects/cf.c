/* The cf dialect: verifiers and custom syntax for the rows of cf.def. */
#include "dialects.h"
