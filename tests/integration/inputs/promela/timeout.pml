// spin: holds 17 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored")
/* `timeout`: a watchdog hands the worker more work whenever every process
   waits, until done reaches 3; both compete for `timeout`, and an `else`
   beside `timeout` is taken wherever something else can move. */
chan work = [1] of { byte };
byte done;

active proctype Worker() {
  byte v;
  do
  :: work?v -> done = v
  :: timeout -> if
                :: done >= 3 -> break
                :: else -> skip
                fi
  od
}

active proctype Watchdog() {
  do
  :: timeout -> if
                :: done < 3 -> work!done + 1
                :: else -> break
                fi
  :: done == 2 -> if
                  :: timeout -> done = 0
                  :: else -> skip
                  fi
  od;
  assert(done == 3)
}
