// error: 4:1 a never claim
byte x;
active proctype P() { x++ }
never { skip }
