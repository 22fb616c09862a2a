// spin: holds 6
/* provided: A steps only while x < 3, B only while x is not 1. */
byte x;
active proctype A() provided (x < 3) { end: do :: x++ od }
active proctype B() provided (x != 1) { end: do :: x > 0 -> x-- od }
