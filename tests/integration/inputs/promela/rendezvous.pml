// spin: holds 5 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* A rendezvous between two active processes, with an end label. */
chan r = [0] of { byte };
byte sum;
active proctype sender() {
  r ! 1;
  r ! 2
}
active proctype receiver() {
  byte v;
end:
  do
  :: r ? v -> sum = sum + v
  od
}
