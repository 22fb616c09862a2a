/* Included by include.pml. */
#ifndef N
#define N 3
#endif
#define inc(v) v = v + 1
