// spin: holds 33 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* init creates two workers with `run`, passing a channel and a value. */
chan done = [2] of { byte };
proctype worker(chan out; byte id) {
  out ! id
}
init {
  byte a, b;
  atomic { run worker(done, 1); run worker(done, 2) };
  done ? a;
  done ? b;
  assert(a + b == 3)
}
