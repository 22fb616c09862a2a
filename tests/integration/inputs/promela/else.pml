// spin: holds 498 (spin -o1 -o2 -o3 -a, gcc -DNOREDUCE -DSAFETY: pan's "states, stored"; a violation: the verdict only)
/* `else`, `select`, `for`, an inline, a record and `_pid`. */
typedef pair { byte a; bit b }
pair p;
byte total;
inline add(v) { total = total + v }
active [2] proctype P() {
  byte i;
  select (i : 1 .. 2);
  if
  :: i == 1 -> add(_pid)
  :: else -> p.b = 1
  fi;
  for (i : 1 .. 2) { p.a++ }
}
