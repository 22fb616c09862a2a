// error: 3:27 the bitwise operator `&`
byte x;
active proctype P() { x = x & 1 }
