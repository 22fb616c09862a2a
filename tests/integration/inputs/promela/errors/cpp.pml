// error: 2:1 this `#if` has no `#endif`
#if 1
byte x;
