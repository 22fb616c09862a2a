// spin: holds 3
/* Conditions used as numbers: at most one of the flags is up. */
bit a, b;
active proctype P() { end: do :: atomic { !b -> a = 1 }; a = 0 od }
active proctype Q() { end: do :: atomic { !a -> b = 1 }; b = 0 od }
active proctype M() { end: do :: assert((a == 1) + (b == 1) <= 1 && -(a == 1) * 2 > -3) od }
