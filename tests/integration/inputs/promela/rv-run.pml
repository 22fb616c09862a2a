// spin: holds 11 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* Processes created by `run` whose first step is a rendezvous. */
chan c = [0] of { byte };
byte got;
proctype R() { byte v; c ? v; got = v }
proctype S() { c ! 5 }
init { atomic { run R(); run S() }; (got == 5) }
