// spin: holds 4118 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* Polls `c?[...]`: as a guard, negated, in `&&` and `||`, on an array of
   channels at a computed index, with constants, mtype names, `eval` and
   variables (which match anything); and `else` beside receives that match. */
mtype = { req, ack, nak };
chan q[2] = [2] of { mtype, byte };
byte seen, polled;

active [2] proctype Sender() {
  byte i;
  do
  :: i < 2 -> q[_pid]!req,i; i++
  :: i < 2 && q[_pid]?[req,0] -> q[_pid]!nak,i; i++
  :: i == 2 -> break
  od
}

active proctype Receiver() {
  byte k, v;
  mtype m;
end:
  do
  :: q[k]?[req,eval(seen % 2)] -> q[k]?req,v; seen++
  :: !q[k]?[req,_] && q[k]?[m,v] -> q[k]?m,v; polled++
  :: q[1-k]?[ack,_] || q[1-k]?[nak,1] -> q[1-k]?_,_
  :: nempty(q[k]) && !q[k]?[req,_] -> k = 1 - k
  :: q[k]?[req,1] -> q[k]?req,1
  :: else -> k = 1 - k
  od
}
