// error: 3:23 `timeout` is not
chan c = [1] of { byte };
active proctype P() { timeout -> c ! 1 }
