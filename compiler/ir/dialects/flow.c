/* The flow dialect: verifiers and custom syntax for the rows of flow.def. */
#include "dialects.h"
