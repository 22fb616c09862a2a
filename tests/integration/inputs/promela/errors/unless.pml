// error: 3:27 `unless` is not
byte x;
active proctype P() { x++ unless { x == 2 } }
