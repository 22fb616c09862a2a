// spin: holds 44 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* A producer and a consumer on a buffered channel of mtype messages. */
mtype = { req, ack };
chan c = [2] of { mtype, byte };
byte got;
active proctype producer() {
  byte i = 0;
  do
  :: i < 3 -> c ! req, i; i++
  :: i == 3 -> break
  od
}
active proctype consumer() {
  byte v;
end:
  do
  :: c ? req, v -> got = v
  od
}
