// spin: violated (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: assertion violated (count==3); a violation: the verdict only)
/* `#include`, `#ifndef`, a macro with a parameter, a record and `_pid`. */
#include "include-defs.h"
#if N > 2
byte count;
#else
short count;
#endif
active [2] proctype P() {
  do
  :: count < N -> inc(count)
  :: count >= N -> break
  od;
  assert(count == N);
  printf("%d done\n", _pid)
}
