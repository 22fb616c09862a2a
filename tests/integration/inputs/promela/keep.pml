// spin: holds 126 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* Receives that keep the message (`c?<...>`) and `else` beside receives
   that match constants: a reader copies the first message and leaves it
   for a taker; the taker waits with `else` until the message it matches
   comes first. */
mtype = { data, stop };
chan c = [2] of { mtype, byte };
byte copied, taken, idle;

active proctype Producer() {
  c!data,1;
  c!data,2;
  c!stop,0
}

active proctype Reader() {
  byte v;
end:
  do
  :: atomic { c?<data,v> -> copied = v }
  :: c?<stop,_> -> break
  od
}

active proctype Taker() {
  byte v;
end:
  do
  :: c?data,eval(copied) -> taken++
  :: c?stop,v -> break
  :: else -> idle = (idle + 1) % 3
  od;
  assert(taken <= 2)
}
