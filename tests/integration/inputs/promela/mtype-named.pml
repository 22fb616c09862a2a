// spin: holds 307 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* Named mtypes: each set numbered on its own, as SPIN numbers them
   (here open = 2, close = 1, red = 3, green = 2, blue = 1, and the plain
   set's later declaration goes on: ping = 2, pong = 1, done = 3), in
   variables, parameters, channel fields and matches. */
mtype = { ping, pong };
mtype:cmd = { open, close };
mtype:colour = { red, green, blue };
mtype = { done };
chan c = [2] of { mtype:cmd, mtype:colour, mtype };
mtype:colour last = blue;
mtype:cmd state;

proctype Sender(mtype:colour col; mtype kind) {
  c!open,col,kind;
  c!close,green,done
}

active proctype Receiver() {
  mtype:cmd what;
  mtype:colour hue;
  mtype m;
end:
  do
  :: c?[open,_,ping] -> c?what,hue,m; last = hue
  :: c?close,eval(last),m -> state = close
  :: c?<what,hue,done> -> c?_,_,_; state = what
  :: c?open,hue,pong -> last = hue
  od
}

init {
  assert(open == 2 && close == 1 && red == 3 && blue == 1);
  assert(ping == 2 && pong == 1 && done == 3);
  run Sender(red, ping);
  run Sender(green, pong)
}
