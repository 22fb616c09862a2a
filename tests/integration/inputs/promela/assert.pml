// spin: violated (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* A race on a shared counter: the assertion fails. */
byte n, done;
active [2] proctype P() {
  byte t;
  t = n;
  n = t + 1;
  done++
}
init {
  done == 2;
  assert(n == 2)
}
