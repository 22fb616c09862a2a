// spin: violated (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* Two processes wait for each other: an invalid end state. */
byte x, y;
active proctype A() { y == 1; x = 1 }
active proctype B() { x == 1; y = 1 }
