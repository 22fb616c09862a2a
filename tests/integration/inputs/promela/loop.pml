// spin: holds 10 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* A do loop with a break: SPIN's guard and increment are two steps. */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od;
  x = 0
}
