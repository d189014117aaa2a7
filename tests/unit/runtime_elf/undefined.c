/* A kernel library that calls a function it does not define; linked
 * without --no-undefined so the loader must reject it. */
extern int kiln_missing_function(int);
int kiln_executable_query(int v) { return kiln_missing_function(v); }
